// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { SvcIslands } from "../http/islands.ts";
import { outsidePrefix } from "../http/requestHandler.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { andThen } from "../util/maybePromise.ts";
import { type BridgeOptions, createBridgeHandler, type SvcClosable } from "./bridgeHandler.ts";
import { fromWebRequest, pathOf, toWebResponse } from "./internal/web.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";

export interface FetchHandlerOptions extends BridgeOptions {
  /** Where the endpoints are mounted, e.g. "/api". Default: "" (the server root). */
  prefix?: string;
}

/** A web-standard fetch handler, with the islands of its handler set. */
export interface FetchHandler extends SvcIslands, SvcClosable {
  (request: Request): Promise<Response>;
}

/**
 * The svc endpoints as a web-standard fetch handler, for Next.js route handlers,
 * `Bun.serve`, `Deno.serve` or any runtime that speaks `Request → Response`.
 */
export function createFetchHandler(
  source: ComponentRegistry | Handlers,
  options: FetchHandlerOptions = {},
): FetchHandler {
  const handle = createBridgeHandler(source, options);
  const prefix = resolvePrefix(options.prefix);
  const fetchHandler = async (request: Request): Promise<Response> => {
    const below = belowPrefix(pathOf(request.url), prefix);
    if (below === undefined) return toWebResponse(outsidePrefix(pathOf(request.url)));
    const response = handle(fromWebRequest(request, below));
    return andThen(response, toWebResponse);
  };
  return Object.assign(fetchHandler, { island: handle.islands.island, close: handle.close });
}
