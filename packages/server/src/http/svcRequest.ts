/** What the core's request handler takes and gives: every transport translates to and from these. */

/** A request as the core sees it; every transport builds one. */
export interface SvcRequest {
  method: string;
  /** Raw (still percent-encoded) path below the mount point, with or without the query. */
  url: string;
  /** Reads a request header (case-insensitive name); undefined when absent. */
  header(name: string): string | undefined;
  /** Aborts when the client goes away; ends streaming answers (the event stream). */
  signal?: AbortSignal;
  /**
   * The request body, read up to `limit` bytes: its bytes; or what the framework's own body
   * parser already made of it (`express.json()`, Fastify's, Nest's); or `tooLarge`.
   * Transports without bodies leave it out (then a `POST` has an empty body).
   */
  body?(limit: number): Promise<RequestBody>;
  /**
   * True when the request was read from a real socket by the event loop's poll (an HTTP/1
   * request whose response holds the connection), not made in this process (an `inject`, a
   * `Request` built by hand) nor queued behind another on its connection (pipelined). Every
   * write such a request follows was complete before its bytes were sent, so a warm bundle its
   * directory watches vouch for can be answered at the end of the turn (`dirWatches.ts`).
   * Leave it out when unsure: the bundle is then answered after the next poll, as for a call.
   */
  readonly readFromSocket?: boolean;
}

/** What {@link SvcRequest.body} found. */
export type RequestBody = { bytes: Uint8Array } | { parsed: unknown } | { tooLarge: true };

/**
 * A response as the core decides it; every transport writes it back verbatim. A body that is
 * a `ReadableStream` is streamed (the live-reload events) and cancelled when the client goes.
 */
export interface SvcResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string | ReadableStream<Uint8Array> | null;
}
