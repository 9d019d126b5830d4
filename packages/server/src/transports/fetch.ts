import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import {
  type BridgeOptions,
  createBridgeHandler,
  outsidePrefix,
  type SvcRequest,
  type SvcResponse,
} from "../http/requestHandler.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";

export interface FetchHandlerOptions extends BridgeOptions {
  /** Where the endpoints are mounted, e.g. "/api". Default: "" (the server root). */
  prefix?: string;
}

/**
 * The svc endpoints as a web-standard fetch handler, for Next.js route handlers,
 * `Bun.serve`, `Deno.serve` or any runtime that speaks `Request → Response`.
 */
export function createFetchHandler(
  source: ComponentRegistry | Handlers,
  options: FetchHandlerOptions = {},
): (request: Request) => Promise<Response> {
  const handle = createBridgeHandler(source, options);
  const prefix = resolvePrefix(options.prefix);
  return async (request) => {
    const below = belowPrefix(pathOf(request.url), prefix);
    if (below === undefined) {
      return toWebResponse(outsidePrefix(pathOf(request.url)));
    }
    const response = handle(fromWebRequest(request, below));
    return response instanceof Promise ? response.then(toWebResponse) : toWebResponse(response);
  };
}

/**
 * Path and query of an absolute URL, as written. A `Request`'s URL has been through the
 * WHATWG URL parser already, which removes dot segments (`/a/../b`, also `%2e%2e`) and
 * re-encodes some characters, so this is what svc sees from any fetch-based runtime.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const hash = url.indexOf("#", start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}

/** The core's view of a web-standard request whose path below the mount point is `url`. */
export function fromWebRequest(request: Request, url: string): SvcRequest {
  return {
    method: request.method,
    url,
    header: (name) => request.headers.get(name) ?? undefined,
  };
}

export function toWebResponse(response: SvcResponse): Response {
  return new Response(response.body as ConstructorParameters<typeof Response>[0], {
    status: response.status,
    headers: response.headers,
  });
}
