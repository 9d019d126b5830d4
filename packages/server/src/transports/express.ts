import type { RequestHandler as ExpressMiddleware } from "express";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import { type BridgeOptions, createBridgeHandler } from "../http/requestHandler.ts";
import { answerNode } from "./node.ts";
import { importPeer } from "./peer.ts";

export type { BridgeOptions } from "../http/requestHandler.ts";

await importPeer("express", "@svc/server/express", "express");

/**
 * The svc endpoints as an Express router (Express 4.21+ and 5). Everything below the mount
 * path is svc's: mount it on a prefix of its own, or after the app's routes that share it.
 *
 * ```ts
 * app.use("/api", createRouter(registry));
 * ```
 */
export function createRouter(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): ExpressMiddleware {
  const handle = createBridgeHandler(source, options);
  // Express has already cut the mount path from `req.url`, leaving the raw rest.
  return (req, res) => {
    answerNode(handle, req, res, req.url);
  };
}
