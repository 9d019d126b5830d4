import type { LiveEvent } from "@svc/protocol";

/** What the live-reload event stream is made from (the live-reload core implements it). */
export interface LiveSource {
  /** Identifies this server instance: sent in `hello`, so a client can tell a restart. */
  readonly serverId: string;
  /** Events a new connection gets right after `hello` (components broken now). */
  current(): LiveEvent[];
  /** Receives every later event; returns the unsubscribe function. */
  subscribe(listener: (event: LiveEvent) => void): () => void;
}

/** How often a comment line keeps idle proxies from closing the stream. */
const KEEP_ALIVE_MS = 15_000;

const encoder = new TextEncoder();

/**
 * A server-sent event stream of `source`: `retry`, `hello`, the current errors, then every
 * event as it happens. It ends — and lets go of its subscription and timer at once — when the
 * client goes away (`signal` aborts, or the transport cancels the stream).
 */
export function eventStream(source: LiveSource, signal?: AbortSignal): ReadableStream<Uint8Array> {
  let stop = () => {};
  return new ReadableStream<Uint8Array>({
    start(controller) {
      const send = (text: string) => {
        try {
          controller.enqueue(encoder.encode(text));
        } catch {
          stop(); // closed meanwhile
        }
      };
      const sendEvent = (event: LiveEvent) => send(`data: ${JSON.stringify(event)}\n\n`);
      send("retry: 1000\n\n");
      sendEvent({ type: "hello", server: source.serverId });
      for (const event of source.current()) sendEvent(event);
      const unsubscribe = source.subscribe(sendEvent);
      const keepAlive = setInterval(() => send(": keep-alive\n\n"), KEEP_ALIVE_MS);
      keepAlive.unref?.();
      let stopped = false;
      const onAbort = () => {
        stop();
        try {
          controller.close();
        } catch {
          // already closed or errored
        }
      };
      stop = () => {
        if (stopped) return;
        stopped = true;
        clearInterval(keepAlive);
        unsubscribe();
        signal?.removeEventListener("abort", onAbort);
      };
      if (signal?.aborted) onAbort();
      else signal?.addEventListener("abort", onAbort, { once: true });
    },
    cancel() {
      stop();
    },
  });
}
