import type { LiveEvent } from "@svc/protocol";

/**
 * `off`: the server does not serve live reload at that URL (production, static mode,
 * `live: false`: it answers `204 No Content`; or nothing is there: `404`). Nothing more is
 * asked of it.
 */
export type LiveStatus = "connecting" | "open" | "reconnecting" | "off";

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 15_000;

/**
 * Follows `svc serve`'s live-reload stream (`{apiBase}/events`): calls `onEvent` with every
 * parsed event and keeps the connection up — the browser retries a dropped stream by itself
 * but gives up for good on an HTTP error or a response that is not an event stream (a proxy,
 * a server starting up), so then it reconnects with a backoff (1 s doubling, at most 15 s).
 * Unless the server said there is no stream to follow: when the browser gives up, one `HEAD`
 * of the URL tells why, and `204 No Content` (svc where live reload is off: production, static
 * mode) or `404` ends it — a page that keeps `data-svc-live` in production asks once, not every
 * 15 s for as long as it is open. React-free: `@svc/react`'s `connectLive` and the standalone
 * loader both follow through it.
 *
 * `onStatus` hears `connecting` at every (re)connection attempt, `open`, `reconnecting` when
 * the stream drops, and `off` when it ends for good.
 *
 * Returns the function that disconnects. Does nothing where `EventSource` is missing.
 */
export function followEvents(
  url: string,
  onEvent: (event: LiveEvent) => void,
  onStatus?: (status: LiveStatus) => void,
): () => void {
  if (typeof EventSource === "undefined") return () => {};
  let source: EventSource | undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let delay = FIRST_RETRY_MS;
  let closed = false;
  const open = () => {
    if (closed) return;
    onStatus?.("connecting");
    const current = new EventSource(url);
    source = current;
    current.onopen = () => {
      delay = FIRST_RETRY_MS;
      onStatus?.("open");
    };
    current.onmessage = (message: MessageEvent<string>) => {
      let event: LiveEvent;
      try {
        event = JSON.parse(message.data) as LiveEvent;
      } catch {
        return;
      }
      onEvent(event);
    };
    current.onerror = () => {
      onStatus?.("reconnecting");
      if (current.readyState !== EventSource.CLOSED) return; // the browser retries by itself
      current.close();
      served(url).then((stream) => {
        if (closed) return;
        if (!stream) {
          closed = true;
          onStatus?.("off");
          return;
        }
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      });
    };
  };
  open();
  return () => {
    closed = true;
    clearTimeout(timer);
    source?.close();
  };
}

/**
 * Whether a stream may be served at `url` later: false when the server answers that it has
 * none (`204`, `404`); true for anything else, a network error included (a restarting server).
 */
function served(url: string): Promise<boolean> {
  return fetch(url, { method: "HEAD", cache: "no-store" }).then(
    (response) => response.status !== 204 && response.status !== 404,
    () => true,
  );
}

// `@svc/runtime/live` is what development pages alone load: the error overlay comes with it.
export { type ErrorReport, errorReportOf, showErrorOverlay } from "./errorOverlay.ts";
