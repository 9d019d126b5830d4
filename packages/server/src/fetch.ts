import type { ComponentRegistry } from "./componentRegistry.ts";
import { type HandlerOptions, type Handlers, resolveHandlers } from "./handlers.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";
import {
  createRequestHandler,
  type RequestHandlerOptions,
  type SvcResponse,
} from "./requestHandler.ts";

export interface FetchHandlerOptions extends HandlerOptions, RequestHandlerOptions {
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
  const handle = createRequestHandler(resolveHandlers(source, options), options);
  const prefix = resolvePrefix(options.prefix);
  return async (request) => {
    const url = new URL(request.url);
    const below = belowPrefix(url.pathname + url.search, prefix);
    if (below === undefined) {
      return Response.json({ error: "NotFound", message: "Not found." }, { status: 404 });
    }
    const response = await handle({
      method: request.method,
      url: below,
      header: (name) => request.headers.get(name) ?? undefined,
    });
    return toWebResponse(response);
  };
}

export function toWebResponse(response: SvcResponse): Response {
  return new Response(response.body as ConstructorParameters<typeof Response>[0], {
    status: response.status,
    headers: response.headers,
  });
}
