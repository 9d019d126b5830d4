import type { Hono, MiddlewareHandler } from "hono";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import { requirePeer } from "../util/peer.ts";
import { type BridgeOptions, createFrameworkHandler } from "./bridgeHandler.ts";
import { fromWebRequest, pathOf, toWebResponse } from "./internal/web.ts";
import { createPatternMount } from "./mount.ts";

/**
 * The svc endpoints as Hono 4 middleware, live reload included in development. It speaks
 * web-standard `Request`/`Response`, so it runs wherever Hono does, and needs nothing of Hono
 * at run time. Mount it on a wildcard path: everything below it is svc's.
 *
 * ```ts
 * app.use("/api/*", svcHono(registry));
 * ```
 */
export function svcHono(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): MiddlewareHandler {
  const handle = createFrameworkHandler("svcHono", "hono", "hono", source, options);
  const below = createPatternMount();
  // Not an async function: a warm bundle is answered in the same tick, with no promise made.
  const middleware = (c: Parameters<MiddlewareHandler>[0]): Response | Promise<Response> => {
    const url = below(pathOf(c.req.url), c.req.routePath);
    const response = handle(fromWebRequest(c.req.raw, url));
    return response instanceof Promise ? response.then(toWebResponse) : toWebResponse(response);
  };
  return middleware as MiddlewareHandler;
}

/**
 * @deprecated Use `app.use("/api/*", svcHono(registry))`. This returns a Hono sub-app for
 * `app.route("/api", createRoutes(registry))`, and goes in the next minor version.
 */
export function createRoutes(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): Hono {
  const { Hono } = requirePeer<typeof import("hono")>("hono", "@svc/server/hono", "hono");
  return new Hono().all("*", svcHono(source, options));
}
