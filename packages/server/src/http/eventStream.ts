import type { LiveEvent } from "@svc/protocol";
import { OverloadedError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { CACHE } from "./headers.ts";
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";

/** What the live-reload event stream is made from (the live-reload core implements it). */
export interface LiveSource {
  /** Identifies this server instance: sent in `hello`, so a client can tell a restart. */
  readonly serverId: string;
  /** Events a new connection gets right after `hello` (components broken now). */
  current(): LiveEvent[];
  /** Receives every later event; returns the unsubscribe function. */
  subscribe(listener: (event: LiveEvent) => void): () => void;
}

/**
 * How often a comment line goes out: it keeps idle proxies from closing the stream, and a
 * write to a client that vanished without closing makes its connection fail sooner.
 */
export const HEARTBEAT_MS = 15_000;

/**
 * How long one stream lasts before the server ends it: `EventSource` then reconnects after
 * `retry` and, on its `hello`, svc's clients re-check what they have loaded — nothing is
 * missed, and a stream nobody reads any more cannot hold its place for good.
 */
export const STREAM_LIFETIME_MS = 5 * 60_000;

/** How long a client waits before it reconnects (the `retry:` field), in ms. */
const RETRY_MS = 1000;

/** The event-stream clients one request handler serves at once, by default. */
export const MAX_EVENT_CLIENTS = 256;

export interface EventStreamOptions {
  /**
   * Ends the stream after this long, in ms (the client reconnects); 0 never does. Default:
   * {@link STREAM_LIFETIME_MS}.
   */
  lifetimeMs?: number;
  /** Interval of the comment lines, in ms. Default: {@link HEARTBEAT_MS}. */
  heartbeatMs?: number;
  /** Called once when the stream ends, whichever way it ends. */
  onEnd?: () => void;
}

const encoder = new TextEncoder();

/**
 * A server-sent event stream of `source`: `retry`, `hello`, the current errors, then every
 * event as it happens, with a comment line every `heartbeatMs`. It ends — and lets go of its
 * subscription and timers at once — when the client goes away (`signal` aborts, or the
 * transport cancels the stream), or after `lifetimeMs` (then with `retry` again, so the
 * client reconnects).
 */
export function eventStream(
  source: LiveSource,
  signal?: AbortSignal,
  options: EventStreamOptions = {},
): ReadableStream<Uint8Array> {
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
      const sendEvent = (event: LiveEvent) => {
        send(`data: ${JSON.stringify(event)}\n\n`);
        // The source is closing: this was the stream's last event.
        if (event.type === "closing") end();
      };
      send(`retry: ${RETRY_MS}\n\n`);
      sendEvent({ type: "hello", server: source.serverId });
      for (const event of source.current()) sendEvent(event);
      const unsubscribe = source.subscribe(sendEvent);
      const heartbeat = setInterval(
        () => send(": keep-alive\n\n"),
        options.heartbeatMs ?? HEARTBEAT_MS,
      );
      heartbeat.unref?.();
      const lifetimeMs = options.lifetimeMs ?? STREAM_LIFETIME_MS;
      const lifetime =
        lifetimeMs > 0
          ? setTimeout(() => {
              send(`retry: ${RETRY_MS}\n\n`);
              end();
            }, lifetimeMs)
          : undefined;
      lifetime?.unref?.();
      let stopped = false;
      const end = () => {
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
        clearInterval(heartbeat);
        clearTimeout(lifetime);
        unsubscribe();
        signal?.removeEventListener("abort", end);
        options.onEnd?.();
      };
      if (signal?.aborted) end();
      else signal?.addEventListener("abort", end, { once: true });
    },
    cancel() {
      stop();
    },
  });
}

export interface EventStreamsOptions {
  /** Streams open at once; past it {@link EventStreams.open} gives none. Default: 256. */
  maxClients?: number;
  /** How long a stream lasts, in ms (each gets 90–100 % of it). Default: 5 minutes. */
  lifetimeMs?: number;
  /** Interval of the comment lines, in ms. Default: 15 000. */
  heartbeatMs?: number;
  /** Told once, the first time a client is refused. */
  logger?: Logger;
}

/**
 * The event streams of one request handler: at most `max` at once, so clients that connect
 * and never leave cannot take every connection the server has.
 */
export class EventStreams {
  readonly source: LiveSource;
  readonly max: number;
  readonly #lifetimeMs: number;
  readonly #heartbeatMs: number | undefined;
  readonly #logger: Logger | undefined;
  #open = 0;
  #refused = false;

  constructor(source: LiveSource, options: EventStreamsOptions = {}) {
    this.source = source;
    this.max = options.maxClients ?? MAX_EVENT_CLIENTS;
    if (!(Number.isInteger(this.max) || this.max === Number.POSITIVE_INFINITY) || this.max < 1) {
      throw new RangeError(
        `maxEventClients must be a whole number of clients, 1 or more, or Infinity (got ${this.max})`,
      );
    }
    this.#lifetimeMs = options.lifetimeMs ?? STREAM_LIFETIME_MS;
    this.#heartbeatMs = options.heartbeatMs;
    this.#logger = options.logger;
  }

  /** How many streams are open. */
  get clients(): number {
    return this.#open;
  }

  /** A stream for a new client, or undefined when `max` are open already. */
  open(signal?: AbortSignal): ReadableStream<Uint8Array> | undefined {
    if (this.#open >= this.max) {
      if (!this.#refused) {
        this.#refused = true;
        this.#logger?.warn(
          `svc: ${this.max} clients follow the live-reload stream; more are answered 503 until some leave (maxEventClients)`,
        );
      }
      return undefined;
    }
    this.#open++;
    return eventStream(this.source, signal, {
      // Spread out, so the pages that connected together (after a restart) do not all
      // reconnect in the same second.
      lifetimeMs: Math.round(this.#lifetimeMs * (0.9 + 0.1 * Math.random())),
      heartbeatMs: this.#heartbeatMs,
      onEnd: () => {
        this.#open--;
      },
    });
  }
}

/** When a client refused an event stream may try again, in seconds. */
const EVENTS_RETRY_AFTER = 10;

/**
 * `GET {prefix}/events`: the live-reload stream, a place among `events`'s clients taken; 204
 * where live reload is off.
 */
export function eventsResponse(events: EventStreams | undefined, request: SvcRequest): SvcResponse {
  // Live reload is off here (production, static mode, `live: false`): 204 is what tells an
  // `EventSource` to stop reconnecting (HTML's server-sent events), so a page left with
  // `data-svc-live` or `<SvcProvider live>` stops at once, with nothing in its console.
  if (events === undefined) {
    return { status: 204, headers: { "cache-control": CACHE.never }, body: null };
  }
  // A `HEAD` (what a client that lost the stream asks: is one served here?) subscribes
  // to nothing, so it starts no watching and takes no place.
  const body = request.method === "HEAD" ? null : events.open(request.signal);
  if (body === undefined) {
    throw new OverloadedError(
      `${events.max} clients follow the live-reload stream already`,
      EVENTS_RETRY_AFTER,
    );
  }
  return {
    status: 200,
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-cache, no-transform",
      "x-accel-buffering": "no",
    },
    body,
  };
}
