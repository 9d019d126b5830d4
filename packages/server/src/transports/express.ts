// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { RequestHandler as ExpressMiddleware } from "express";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { SvcIslands } from "../http/islands.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { type BridgeOptions, createFrameworkHandler, type SvcClosable } from "./bridgeHandler.ts";
import { answerNode } from "./internal/node.ts";

/** The svc middleware, its islands, and the middleware that hands them to the app's routes. */
export interface SvcExpress extends ExpressMiddleware, SvcIslands, SvcClosable {
  /** Middleware that puts the islands in `res.locals.svc`, for the app's routes and views. */
  readonly locals: ExpressMiddleware;
}

/**
 * The svc endpoints as Express middleware (Express 4.21+ and 5), live reload included in
 * development. Everything below the mount path is svc's: mount it on a prefix of its own, or
 * after the app's routes that share it. Pages render islands with `svc.island(…)`, or with
 * `res.locals.svc.island(…)` once `svc.locals` is mounted.
 *
 * ```ts
 * const svc = svcExpress(registry);
 * app.use("/api", svc);
 * app.use(svc.locals);
 * app.get("/", async (req, res) => res.send(page(await res.locals.svc.island("card", props))));
 * ```
 */
export function svcExpress(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): SvcExpress {
  const handle = createFrameworkHandler("svcExpress", "express", "express", source, options);
  const { islands } = handle;
  // Express has already cut the mount path from `req.url`, leaving the raw rest.
  const middleware: ExpressMiddleware = (req, res) => {
    answerNode(handle, req, res, req.url);
  };
  const locals: ExpressMiddleware = (_req, res, next) => {
    res.locals.svc = islands;
    next();
  };
  return Object.assign(middleware, { island: islands.island, locals, close: handle.close });
}

/** @deprecated Renamed {@link svcExpress}; this alias goes in the next minor version. */
export const createRouter = svcExpress;
