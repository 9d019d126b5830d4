/** Where the live-reload stream is served, below the mount prefix. */
export const EVENTS_PATH = "/events";

/** A position of a bundler error, as the live-reload stream reports it. */
export interface LiveErrorLocation {
  /** Path relative to the component directory, e.g. `Counter.tsx`. */
  file?: string;
  /** 1-based. */
  line?: number;
  /** 0-based, as esbuild reports it (editors show `column + 1`). */
  column?: number;
  text: string;
  /** The source line the error is on. */
  lineText?: string;
  /**
   * Development only: the lines around the error, for a code frame; `start` is the 1-based
   * number of `lines[0]`.
   */
  frame?: { start: number; lines: string[] };
}

/** The `error` event: a loaded component does not bundle now (or its schema is broken). */
export interface LiveErrorEvent {
  type: "error";
  name: string;
  /** The error kind, e.g. `BundleError`. */
  error: string;
  message: string;
  /** For a `BundleError`: esbuild's positions, so a client can show a code frame. */
  locations?: LiveErrorLocation[];
}

/** One message of the live-reload stream (`GET {prefix}/events`, server-sent events). */
export type LiveEvent =
  /** First on every connection; a new `server` id means the server restarted. */
  | { type: "hello"; server: string }
  /** A component's bundle or schema changed; `hash` is its new bundle hash. */
  | { type: "change"; name: string; hash: string }
  | LiveErrorEvent
  /** Components were added or removed; `names` is the new listing. */
  | { type: "list"; names: string[] }
  /**
   * The last event of a stream: the server is shutting down. The stream ends after it, and a
   * client reconnects (as `EventSource` does) to the server that takes over.
   */
  | { type: "closing" };
