/**
 * The one translation between Node's `http` objects and the core's request and response,
 * shared by every Node-style transport (the node handler, Express, Fastify, Koa, Nest).
 * Internal: not part of the package's API.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import { Socket } from "node:net";
import { Readable } from "node:stream";
import type {
  RequestBody,
  RequestHandler,
  SvcRequest,
  SvcResponse,
} from "../../http/requestHandler.ts";
import { andThen } from "../../util/maybePromise.ts";

/**
 * How long a request body may stall (no byte arriving), and how long it may take in all, in
 * ms: a client that stops sending halfway has its connection closed, so slow senders cannot
 * hold connections for as long as the server's own timeouts allow (five minutes by default).
 */
export const BODY_STALL_MS = 10_000;
export const BODY_TOTAL_MS = 30_000;

/** Runs `handle` for a node request whose path below the mount point is `url`. */
export function answerNode(
  handle: RequestHandler,
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
): void {
  void andThen(handle(toSvcRequest(req, url, res)), (ready) => writeNodeResponse(res, ready));
}

/**
 * The core's view of a node request whose path below the mount point is `url`. Its `signal`
 * aborts when the connection closes before the answer is complete (`res`, when given). Its
 * body is the request stream's, unless the framework parsed it already: `parsed` tells what
 * its body parser made of it (Koa's `ctx.request.body`, Fastify's `request.body`); without
 * it, `req.body` as Express's parsers leave it.
 */
export function toSvcRequest(
  req: IncomingMessage,
  url: string,
  res?: ServerResponse,
  parsed?: () => unknown,
): SvcRequest {
  return new NodeRequest(req, url, res, parsed);
}

/** One object per request (the header reader lives on the prototype, not in a closure). */
class NodeRequest implements SvcRequest {
  readonly method: string;
  readonly url: string;
  readonly readFromSocket: boolean;
  readonly #req: IncomingMessage;
  readonly #res: ServerResponse | undefined;
  readonly #parsed: (() => unknown) | undefined;
  #controller: AbortController | undefined;

  constructor(
    req: IncomingMessage,
    url: string,
    res: ServerResponse | undefined,
    parsed: (() => unknown) | undefined,
  ) {
    this.method = req.method ?? "GET";
    this.url = url;
    // A response holding a real socket: read by a poll, not injected (light-my-request's
    // socket is no net.Socket) nor pipelined (its response gets the socket once the one ahead
    // is done); HTTP/1, where one request at a time arrives on a connection.
    this.readFromSocket =
      res !== undefined && req.httpVersionMajor === 1 && res.socket instanceof Socket;
    this.#req = req;
    this.#res = res;
    this.#parsed = parsed;
  }

  body(limit: number): Promise<RequestBody> {
    const req = this.#req;
    // A body parser that ran before svc consumed the stream and left what it made of it.
    const consumed = req.readableEnded || (req as { _body?: unknown })._body === true;
    const parsed = this.#parsed?.() ?? (consumed ? (req as { body?: unknown }).body : undefined);
    if (parsed !== undefined) return Promise.resolve(fromParsed(parsed, limit));
    if (Number(req.headers["content-length"]) > limit) {
      req.resume(); // let the rest go by; the answer is 413
      return Promise.resolve({ tooLarge: true });
    }
    if (consumed) return Promise.resolve({ bytes: new Uint8Array() });
    return new Promise((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const started = performance.now();
      let lastByte = started;
      // One timer, pushed back as bytes come: a stalled or trickling sender loses its
      // connection (the request then fails as one whose client went away).
      const onTimer = () => {
        const now = performance.now();
        const left = Math.min(lastByte + BODY_STALL_MS, started + BODY_TOTAL_MS) - now;
        if (left > 0) {
          timer = setTimeout(onTimer, left);
          return;
        }
        // Destroys the socket too: the request is incomplete.
        req.destroy(new Error("The request body stalled; its connection was closed."));
      };
      let timer = setTimeout(onTimer, BODY_STALL_MS);
      const done = () => {
        clearTimeout(timer);
        req.off("data", onData).off("end", onEnd).off("error", onError);
      };
      const onData = (chunk: Buffer) => {
        lastByte = performance.now();
        size += chunk.byteLength;
        if (size <= limit) {
          chunks.push(chunk);
          return;
        }
        done();
        req.resume();
        resolve({ tooLarge: true });
      };
      const onEnd = () => {
        done();
        resolve({ bytes: Buffer.concat(chunks) });
      };
      const onError = (error: unknown) => {
        done();
        reject(error);
      };
      req.on("data", onData).once("end", onEnd).once("error", onError);
    });
  }

  header(name: string): string | undefined {
    const value = this.#req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  /** Made on first use: most requests never ask. */
  get signal(): AbortSignal {
    if (this.#controller === undefined) {
      const controller = new AbortController();
      this.#controller = controller;
      const target = this.#res ?? this.#req;
      const abort = () => {
        if (!(this.#res?.writableFinished ?? false)) controller.abort();
      };
      if (target.destroyed) abort();
      else target.once("close", abort);
    }
    return this.#controller.signal;
  }
}

/** Writes a core response to a node response, unless the client has gone. */
export function writeNodeResponse(res: ServerResponse, response: SvcResponse): void {
  const { body } = response;
  if (res.destroyed || res.headersSent) {
    if (body instanceof ReadableStream) void body.cancel();
    return;
  }
  if (body instanceof ReadableStream) {
    res.writeHead(response.status, response.headers);
    res.flushHeaders();
    const stream = Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
    // Whoever ends first ends the other: the client going away cancels the stream.
    res.once("close", () => stream.destroy());
    stream.once("error", () => res.destroy());
    stream.pipe(res);
    return;
  }
  if (body !== null) {
    response.headers["content-length"] = String(
      typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
    );
  }
  res.writeHead(response.status, response.headers);
  res.end(body ?? undefined);
}

/**
 * A body as frameworks that take Node values want it: bytes as a `Buffer` (a view, no copy),
 * a stream as a Node `Readable`.
 */
export function toNodeBody(body: SvcResponse["body"]): Buffer | string | Readable | undefined {
  if (body === null) return undefined;
  if (typeof body === "string") return body;
  if (body instanceof ReadableStream) {
    return Readable.fromWeb(body as import("node:stream/web").ReadableStream<Uint8Array>);
  }
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}

/** A body a framework parsed already: bytes and text as bytes, anything else as the value. */
export function fromParsed(value: unknown, limit: number): RequestBody {
  if (typeof value === "string") value = Buffer.from(value);
  if (value instanceof Uint8Array) {
    return value.byteLength > limit ? { tooLarge: true } : { bytes: value };
  }
  return { parsed: value };
}
