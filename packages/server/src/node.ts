import type { IncomingMessage, ServerResponse } from "node:http";
import type { ComponentRegistry } from "./componentRegistry.ts";
import type { Handlers } from "./handlers.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";
import {
  type BridgeOptions,
  createBridgeHandler,
  type RequestHandler,
  type SvcRequest,
  type SvcResponse,
} from "./requestHandler.ts";

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
      res.writeHead(404, { "content-type": "application/json; charset=utf-8" });
      res.end(JSON.stringify({ error: "NotFound", message: "Not found." }));
      return;
    }
    void answerNode(handle, req, res, url);
  };
}

/** Runs `handle` for a node request whose path below the mount point is `url`. */
export async function answerNode(
  handle: RequestHandler,
  req: IncomingMessage,
  res: ServerResponse,
  url: string,
): Promise<void> {
  const response = await handle(toSvcRequest(req, url));
  writeNodeResponse(res, response);
}

export function toSvcRequest(req: IncomingMessage, url: string): SvcRequest {
  return {
    method: req.method ?? "GET",
    url,
    header: (name) => {
      const value = req.headers[name];
      return Array.isArray(value) ? value.join(", ") : value;
    },
  };
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
