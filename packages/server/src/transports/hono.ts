import type { Hono } from "hono";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import { type BridgeOptions, createBridgeHandler } from "../http/requestHandler.ts";
import { fromWebRequest, pathOf, toWebResponse } from "./fetch.ts";
import { belowPattern } from "./mount.ts";
import { importPeer } from "./peer.ts";

export type { BridgeOptions } from "../http/requestHandler.ts";

const hono = await importPeer<typeof import("hono")>("hono", "@svc/server/hono", "hono");

/**
 * The svc endpoints as a Hono 4 sub-app, for `app.route(prefix, …)`. It speaks web-standard
 * `Request`/`Response`, so it runs wherever Hono does. Everything below the prefix is svc's.
 *
 * ```ts
 * app.route("/api", createRoutes(registry));
 * ```
 */
export function createRoutes(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): Hono {
  const handle = createBridgeHandler(source, options);
  const routes = new hono.Hono();
  // Not an async handler: a warm bundle is answered in the same tick, with no promise made.
  routes.all("*", (c): Response | Promise<Response> => {
    const url = belowPattern(pathOf(c.req.url), c.req.routePath);
    const response = handle(fromWebRequest(c.req.raw, url));
    return response instanceof Promise ? response.then(toWebResponse) : toWebResponse(response);
  });
  return routes;
}
