import type { Context, Middleware } from "koa";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import {
  type BridgeOptions,
  createBridgeHandler,
  type SvcResponse,
} from "../http/requestHandler.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";
import { toBuffer, toSvcRequest } from "./node.ts";
import { importPeer } from "./peer.ts";

await importPeer("koa", "@svc/server/koa", "koa");

export interface KoaMiddlewareOptions extends BridgeOptions {
  /** Where the endpoints are mounted, e.g. "/api". Default: "" (wherever the app is). */
  prefix?: string;
}

/**
 * The svc endpoints as Koa middleware (Koa 2.15+ and 3). Requests outside `prefix` go on to
 * the next middleware; everything below it is svc's.
 *
 * ```ts
 * app.use(createMiddleware(registry, { prefix: "/api" }));
 * ```
 */
export function createMiddleware(
  source: ComponentRegistry | Handlers,
  options: KoaMiddlewareOptions = {},
): Middleware {
  const handle = createBridgeHandler(source, options);
  const prefix = resolvePrefix(options.prefix);
  // Not an async function: a warm bundle is answered in the same tick, with no promise made.
  return function svc(ctx, next) {
    const url = belowPrefix(ctx.url, prefix);
    if (url === undefined) return next();
    const response = handle(toSvcRequest(ctx.req, url));
    if (response instanceof Promise) return response.then((ready) => answer(ctx, ready));
    answer(ctx, response);
  };
}

function answer(ctx: Context, { status, headers, body }: SvcResponse): void {
  ctx.status = status;
  ctx.set(headers);
  // Koa sends no body for HEAD, 204 and 304 on its own; assigning null would turn a 200 into 204.
  if (body !== null) {
    ctx.body = typeof body === "string" ? body : toBuffer(body);
  }
}
