import type { Hono } from "hono";
import type { ComponentRegistry } from "../componentRegistry.ts";
import { fromWebRequest, pathOf, toWebResponse } from "../fetch.ts";
import type { Handlers } from "../handlers.ts";
import { belowPattern } from "../mount.ts";
import { type BridgeOptions, createBridgeHandler } from "../requestHandler.ts";
import { importPeer } from "./peer.ts";

export type { BridgeOptions } from "../requestHandler.ts";

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
  routes.all("*", async (c) => {
    const url = belowPattern(pathOf(c.req.url), c.req.routePath);
    return toWebResponse(await handle(fromWebRequest(c.req.raw, url)));
  });
  return routes;
}
