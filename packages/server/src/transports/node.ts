import type { IncomingMessage, ServerResponse } from "node:http";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import {
  type BridgeOptions,
  createBridgeHandler,
  outsidePrefix,
  type RequestHandler,
  type SvcRequest,
  type SvcResponse,
} from "../http/requestHandler.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";

export interface NodeHandlerOptions extends BridgeOptions {
  /** Where the endpoints are mounted, e.g. "/api". Default: "" (the server root). */
  prefix?: string;
}

/** A `node:http` request listener; `next` is called for requests outside the prefix. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, next?: () => void) => void;

/**
 * The svc endpoints as a `node:http` listener (also usable as Connect/Express middleware).
 *
 * ```ts
 * http.createServer(createNodeHandler(new ComponentRegistry("./components"), { prefix: "/api" }))
 * ```
 */
export function createNodeHandler(
  source: ComponentRegistry | Handlers,
  options: NodeHandlerOptions = {},
): NodeHandler {
  const handle = createBridgeHandler(source, options);
  const prefix = resolvePrefix(options.prefix);
  return (req, res, next) => {
    const url = belowPrefix(req.url ?? "/", prefix);
    if (url === undefined) {
      if (next) return next();
      writeNodeResponse(res, outsidePrefix(req.url ?? "/"));
      return;
    }
    answerNode(handle, req, res, url);
  };
}

/** Runs `handle` for a node request whose path below the mount point is `url`. */
export function answerNode(
  handle: RequestHandler,
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
): void {
  const response = handle(new NodeRequest(req, url));
  if (response instanceof Promise) {
    void response.then((ready) => writeNodeResponse(res, ready));
  } else {
    writeNodeResponse(res, response);
  }
}

/** The core's view of a node request whose path below the mount point is `url`. */
export function toSvcRequest(req: IncomingMessage, url: string): SvcRequest {
  return new NodeRequest(req, url);
}

/** One object per request (the header reader lives on the prototype, not in a closure). */
class NodeRequest implements SvcRequest {
  readonly method: string;
  readonly url: string;
  readonly #req: IncomingMessage;

  constructor(req: IncomingMessage, url: string) {
    this.method = req.method ?? "GET";
    this.url = url;
    this.#req = req;
  }

  header(name: string): string | undefined {
    const value = this.#req.headers[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }
}

/** Writes a core response to a node response, unless the client has gone. */
export function writeNodeResponse(res: ServerResponse, response: SvcResponse): void {
  if (res.destroyed || res.headersSent) return;
  const { body } = response;
  if (body !== null) {
    response.headers["content-length"] = String(
      typeof body === "string" ? Buffer.byteLength(body) : body.byteLength,
    );
  }
  res.writeHead(response.status, response.headers);
  res.end(body ?? undefined);
}

/** A body as a Node `Buffer` (a view, no copy), for frameworks that only take Buffers as bytes. */
export function toBuffer(body: Uint8Array): Buffer {
  return Buffer.isBuffer(body) ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength);
}
