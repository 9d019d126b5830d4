import type { ComponentRegistry } from "../components/componentRegistry.ts";
import { createLiveReload, type LiveReload, type LiveReloadOptions } from "../dev/liveReload.ts";
import { createIslands, type SvcIslands } from "../http/islands.ts";
import {
  createRequestHandler,
  type RequestHandler,
  type RequestHandlerOptions,
} from "../http/requestHandler.ts";
import type { HandlerOptions } from "../service/handlerOptions.ts";
import { resolveHandlers } from "../service/handlers.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { checkPeer } from "../util/peer.ts";

/** What every transport accepts: the handler-set options, the HTTP ones, and live reload. */
export interface BridgeOptions extends HandlerOptions, RequestHandlerOptions {
  /**
   * Live reload: `GET {prefix}/events` tells pages (`<SvcProvider live>`, the loader's
   * `data-svc-live`, the playground) which components changed. `true`, its options, or a live
   * reload of your own (`createLiveReload(handlers)`); `false` turns it off. Default: on in
   * development — off in static mode and when `NODE_ENV` is `production`. It watches the
   * sources only while a page listens.
   */
  live?: boolean | LiveReloadOptions | LiveReload;
}

/** What every bridge gives for a graceful shutdown (see {@link BridgeHandler.close}). */
export interface SvcClosable {
  /**
   * Shuts svc down gracefully: event streams end with a last `closing` event, island renders
   * in flight finish (at most `graceMs`, default 10 s) while new ones fail with `Overloaded`,
   * `GET {prefix}/health` answers 503, and the render workers stop. Call it when your server
   * stops (after `server.close()`, say, on SIGTERM); bundles are answered meanwhile.
   */
  close(graceMs?: number): Promise<void>;
}

/** A request handler with its handler set, its islands and its live reload, when it has one. */
export interface BridgeHandler extends RequestHandler, SvcClosable {
  readonly handlers: Handlers;
  readonly islands: SvcIslands;
  readonly live: LiveReload | undefined;
}

/**
 * The request handler every transport wraps: builds the handler set once (unless given one),
 * its live reload (in development), and the request handler; the transport then only
 * translates requests and responses.
 */
export function createBridgeHandler(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): BridgeHandler {
  const liveOn = wantsLive(options);
  // React Fast Refresh's transform only where pages can follow live reload: without it no
  // page gets a new version to refresh, and the transform would only slow each build.
  const handlers = resolveHandlers(source, {
    ...options,
    bundleOptions: { refresh: liveOn, ...options.bundleOptions },
  });
  const live = liveOn ? resolveLive(handlers, options) : undefined;
  const handle = createRequestHandler(handlers, { ...options, events: live });
  const close = async (graceMs?: number) => {
    live?.close();
    await handlers.close?.(graceMs);
  };
  return Object.assign(handle, { handlers, islands: createIslands(handlers), live, close });
}

/**
 * A framework bridge's request handler: checks that the framework (`peer`, installed with
 * `install`) is there — the one-line "install …" error otherwise — and that there is
 * something to serve (`bridge` names the call in that error), then makes the handler.
 */
export function createFrameworkHandler(
  bridge: string,
  peer: string,
  install: string,
  source: ComponentRegistry | Handlers | undefined,
  options: BridgeOptions,
): BridgeHandler {
  checkPeer(peer, `@svc/server/${peer.startsWith("@nestjs/") ? "nest" : peer}`, install);
  if (source === undefined) {
    throw new TypeError(`${bridge} needs a \`registry\` (or \`handlers\`) option`);
  }
  return createBridgeHandler(source, options);
}

/** Whether the bridge has live reload: asked for, or by default in development. */
function wantsLive({ live, staticMode }: BridgeOptions): boolean {
  if (live !== undefined) return live !== false;
  return staticMode !== true && process.env.NODE_ENV !== "production";
}

function resolveLive(handlers: Handlers, { live }: BridgeOptions): LiveReload {
  if (typeof live === "object" && "check" in live) return live;
  return createLiveReload(handlers, typeof live === "object" ? live : {});
}
