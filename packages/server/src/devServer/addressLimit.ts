import type { Socket } from "node:net";
import { OverloadedError } from "../errors.ts";
import { errorResponse, type SvcResponse } from "../http/requestHandler.ts";

/** How long a connection past its address's limit may stay open for its answer, in ms. */
const REFUSED_GRACE_MS = 2_000;

/** When a client refused for its address's many connections may try again, in seconds. */
const ADDRESS_RETRY_AFTER = 5;

/**
 * The open connections of each remote address of a server (each is {@link count}ed as it
 * opens), so that one client cannot take every connection the server accepts: a connection
 * past `max` is marked refused — its request is to be answered 503 and the connection closed
 * (see {@link refuses}) — and is closed after a short grace if it sends none.
 */
export class AddressLimit {
  readonly max: number;
  /** Open connections by remote address. */
  readonly #open = new Map<string, number>();
  readonly #refused = new WeakSet<Socket>();

  constructor(max: number) {
    if (!Number.isInteger(max) || max < 1) {
      throw new RangeError(
        `maxConnectionsPerAddress must be a whole number of connections, 1 or more, or Infinity (got ${max})`,
      );
    }
    this.max = max;
  }

  /** Whether requests on `socket` are to be refused: it came past its address's limit. */
  refuses(socket: Socket): boolean {
    return this.#refused.has(socket);
  }

  /** Counts `socket` until it closes (the server's `connection` event). */
  count(socket: Socket): void {
    const address = socket.remoteAddress ?? "";
    const open = (this.#open.get(address) ?? 0) + 1;
    this.#open.set(address, open);
    let grace: NodeJS.Timeout | undefined;
    if (open > this.max) {
      this.#refused.add(socket);
      grace = setTimeout(() => socket.destroy(), REFUSED_GRACE_MS);
      grace.unref();
    }
    socket.once("close", () => {
      clearTimeout(grace);
      const left = (this.#open.get(address) ?? 1) - 1;
      if (left === 0) this.#open.delete(address);
      else this.#open.set(address, left);
    });
  }
}

/** The answer on a connection past its address's limit, which then closes. */
export function tooManyFromAddress(max: number): SvcResponse {
  const response = errorResponse(
    new OverloadedError(
      `This server takes at most ${max} connections from one address`,
      ADDRESS_RETRY_AFTER,
    ),
  );
  response.headers.connection = "close";
  return response;
}
