import type { Server, ServerResponse } from "node:http";

/** What else stops with the server: at once, and over the grace period. */
export interface ClosingParts {
  /** Ends what holds connections open for good (event streams) and stops watching files. */
  stop(): void;
  /** Lets work in flight finish (renders), for at most `graceMs`. */
  finish(graceMs: number): Promise<void> | undefined;
}

/**
 * A graceful shutdown of `server`: once closing, every answer closes its connection, and
 * answers still being prepared close theirs when they are written. Each response is
 * {@link track}ed as its request arrives.
 */
export class GracefulClose {
  readonly #server: Server;
  /** Shutting down: answers close their connection. */
  #closing = false;
  /** Answers not yet written, which then close their connection too. */
  readonly #unanswered = new Set<ServerResponse>();

  constructor(server: Server) {
    this.#server = server;
  }

  /** Follows `res` until it is written, so that a shutdown can close its connection. */
  track(res: ServerResponse): void {
    if (this.#closing) res.setHeader("connection", "close");
    else {
      this.#unanswered.add(res);
      res.once("close", () => this.#unanswered.delete(res));
    }
    res.once("finish", () => {
      // Its connection is idle now: closed at once, not after the keep-alive timeout.
      if (this.#closing) setImmediate(() => this.#server.closeIdleConnections());
    });
  }

  /**
   * Stops listening, stops `parts`, lets requests and `parts`' work in flight finish (at most
   * `graceMs`), then closes every connection left.
   */
  async close(graceMs: number, parts: ClosingParts): Promise<void> {
    const server = this.#server;
    this.#closing = true;
    for (const res of this.#unanswered) if (!res.headersSent) res.setHeader("connection", "close");
    const closed = new Promise<void>((resolve) => server.close(() => resolve()));
    // Event streams end with their last event; idle keep-alive connections close now.
    parts.stop();
    server.closeIdleConnections();
    const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
    await Promise.race([parts.finish(graceMs), deadline]);
    await Promise.race([closed, deadline]);
    server.closeAllConnections();
    await closed;
  }
}
