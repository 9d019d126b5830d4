// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { Context, Middleware } from "koa";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { SvcIslands } from "../http/islands.ts";
import type { SvcResponse } from "../http/requestHandler.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { andThen } from "../util/maybePromise.ts";
import { type BridgeOptions, createFrameworkHandler, type SvcClosable } from "./bridgeHandler.ts";
import { toNodeBody, toSvcRequest, writeNodeResponse } from "./internal/node.ts";
import { belowPrefix, resolvePrefix } from "./mount.ts";

export interface SvcKoaOptions extends BridgeOptions {
  /** Where the endpoints are mounted, e.g. "/api". Default: "" (wherever the app is). */
  prefix?: string;
}

/** The svc middleware and its islands. */
export interface SvcKoa extends Middleware, SvcIslands, SvcClosable {}

/**
 * The svc endpoints as Koa middleware (Koa 2.15+ and 3), live reload included in development.
 * Requests outside `prefix` go on to the next middleware, with the islands in `ctx.state.svc`
 * for the app's routes and views; everything below `prefix` is svc's.
 *
 * ```ts
 * app.use(svcKoa(registry, { prefix: "/api" }));
 * router.get("/", async (ctx) => { ctx.body = page(await ctx.state.svc.island("card", props)); });
 * ```
 */
export function svcKoa(source: ComponentRegistry | Handlers, options: SvcKoaOptions = {}): SvcKoa {
  const handle = createFrameworkHandler("svcKoa", "koa", "koa", source, options);
  const { islands } = handle;
  const prefix = resolvePrefix(options.prefix);
  // Not an async function: an answer at hand is written at once, with no promise made.
  const middleware: Middleware = function svc(ctx, next) {
    const url = belowPrefix(ctx.url, prefix);
    if (url === undefined) {
      ctx.state.svc = islands;
      return next();
    }
    const response = handle(
      toSvcRequest(ctx.req, url, ctx.res, () => (ctx.request as { body?: unknown }).body),
    );
    return andThen(response, (ready) => answer(ctx, ready));
  };
  return Object.assign(middleware, { island: islands.island, close: handle.close });
}

function answer(ctx: Context, response: SvcResponse): void {
  const { status, headers, body } = response;
  ctx.status = status;
  ctx.set(headers);
  if (body instanceof ReadableStream) {
    // The live-reload stream, written here: it ends when the client goes away, which Koa's own
    // piping would report to the app (a stack trace in its log for every closed page).
    ctx.respond = false;
    writeNodeResponse(ctx.res, response);
    return;
  }
  // Koa sends no body for HEAD, 204 and 304 on its own; assigning null would turn a 200 into 204.
  if (body !== null) ctx.body = toNodeBody(body);
}

/** @deprecated Renamed {@link svcKoa}; this alias goes in the next minor version. */
export const createMiddleware = svcKoa;
/** @deprecated Renamed {@link SvcKoaOptions}. */
export type KoaMiddlewareOptions = SvcKoaOptions;
