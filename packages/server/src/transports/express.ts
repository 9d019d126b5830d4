import type { RequestHandler as ExpressMiddleware } from "express";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import { type BridgeOptions, createFrameworkHandler } from "./bridgeHandler.ts";
import { answerNode } from "./internal/node.ts";

/**
 * The svc endpoints as Express middleware (Express 4.21+ and 5), live reload included in
 * development. Everything below the mount path is svc's: mount it on a prefix of its own, or
 * after the app's routes that share it.
 *
 * ```ts
 * app.use("/api", svcExpress(registry));
 * ```
 */
export function svcExpress(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): ExpressMiddleware {
  const handle = createFrameworkHandler("svcExpress", "express", "express", source, options);
  // Express has already cut the mount path from `req.url`, leaving the raw rest.
  return (req, res) => {
    answerNode(handle, req, res, req.url);
  };
}

/** @deprecated Renamed {@link svcExpress}; this alias goes in the next minor version. */
export const createRouter = svcExpress;
