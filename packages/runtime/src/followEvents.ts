import type { LiveEvent } from "@svc/protocol";

export type LiveStatus = "connecting" | "open" | "reconnecting";

const FIRST_RETRY_MS = 1000;
const MAX_RETRY_MS = 15_000;

/**
 * Follows `svc serve`'s live-reload stream (`{apiBase}/events`): calls `onEvent` with every
 * parsed event and keeps the connection up — the browser retries a dropped stream by itself
 * but gives up for good on an HTTP error or a response that is not an event stream (a proxy,
 * a server starting up), so then it reconnects with a backoff (1 s doubling, at most 15 s).
 * React-free: `@svc/react`'s `connectLive` and the standalone loader both follow through it.
 *
 * `onStatus` hears `connecting` at every (re)connection attempt, `open`, and `reconnecting`
 * when the stream drops.
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
      if (current.readyState === EventSource.CLOSED) {
        current.close();
        timer = setTimeout(open, delay);
        delay = Math.min(delay * 2, MAX_RETRY_MS);
      }
    };
  };
  open();
  return () => {
    closed = true;
    clearTimeout(timer);
    source?.close();
  };
}
