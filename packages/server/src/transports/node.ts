// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { SvcIslands } from "../http/islands.ts";
import { outsidePrefix } from "../http/requestHandler.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { type BridgeOptions, createBridgeHandler, type SvcClosable } from "./bridgeHandler.ts";
import { answerNode, writeNodeResponse } from "./internal/node.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";

export interface NodeHandlerOptions extends BridgeOptions {
  /** Where the endpoints are mounted, e.g. "/api". Default: "" (the server root). */
  prefix?: string;
}

/**
 * A `node:http` request listener (`next` is called for requests outside the prefix), with the
 * islands of its handler set.
 */
export interface NodeHandler extends SvcIslands, SvcClosable {
  (req: IncomingMessage, res: ServerResponse, next?: () => void): void;
}

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
  const listener = (req: IncomingMessage, res: ServerResponse, next?: () => void): void => {
    const url = belowPrefix(req.url ?? "/", prefix);
    if (url === undefined) {
      if (next) {
        next();
        return;
      }
      writeNodeResponse(res, outsidePrefix(req.url ?? "/"));
      return;
    }
    answerNode(handle, req, res, url);
  };
  return Object.assign(listener, { island: handle.islands.island, close: handle.close });
}
