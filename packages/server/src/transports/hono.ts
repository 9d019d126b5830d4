// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { IncomingMessage } from "node:http";
import type { Hono, MiddlewareHandler } from "hono";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { SvcIslands } from "../http/islands.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { andThen } from "../util/maybePromise.ts";
import { requirePeer } from "../util/peer.ts";
import { type BridgeOptions, createFrameworkHandler, type SvcClosable } from "./bridgeHandler.ts";
import { fromWebRequest, pathOf, toWebResponse } from "./internal/web.ts";
import { createPatternMount } from "./mount.ts";

/** The svc middleware, its islands, and the middleware that hands them to the app's routes. */
export interface SvcHono extends MiddlewareHandler, SvcIslands, SvcClosable {
  /** Middleware that sets the context variable `svc` to the islands: `c.get("svc")`. */
  readonly locals: MiddlewareHandler<{ Variables: { svc: SvcIslands } }>;
}

/**
 * The svc endpoints as Hono 4 middleware, live reload included in development. It speaks
 * web-standard `Request`/`Response`, so it runs wherever Hono does, and needs nothing of Hono
 * at run time. Mount it on a wildcard path: everything below it is svc's. Pages render islands
 * with `svc.island(…)`, or with `c.get("svc").island(…)` once `svc.locals` is mounted.
 *
 * ```ts
 * const svc = svcHono(registry);
 * const app = new Hono<{ Variables: { svc: SvcIslands } }>();
 * app.use("/api/*", svc);
 * app.use(svc.locals);
 * app.get("/", async (c) => c.html(page(await c.get("svc").island("card", props))));
 * ```
 */
export function svcHono(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): SvcHono {
  const handle = createFrameworkHandler("svcHono", "hono", "hono", source, options);
  const { islands } = handle;
  const below = createPatternMount();
  // Not an async function: an answer at hand is written at once, with no promise made.
  const middleware = (c: Parameters<MiddlewareHandler>[0]): Response | Promise<Response> => {
    const url = below(pathOf(c.req.url), c.req.routePath);
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming;
    const response = handle(fromWebRequest(c.req.raw, url, incoming?.headers));
    return andThen(response, toWebResponse);
  };
  const locals: SvcHono["locals"] = (c, next) => {
    c.set("svc", islands);
    return next();
  };
  return Object.assign(middleware as MiddlewareHandler, {
    island: islands.island,
    locals,
    close: handle.close,
  });
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
