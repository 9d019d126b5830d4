import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { resolve as resolvePath } from "node:path";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import type { LiveReload, LiveReloadOptions } from "../dev/liveReload.ts";
import { type TypesWatcher, watchTypes } from "../dev/typesWatcher.ts";
import { HostNotAllowedError, NotFoundError } from "../errors.ts";
import { createHandlers, type HandlerOptions, type Handlers } from "../http/handlers.ts";
import { isHostAllowed } from "../http/hostCheck.ts";
import { errorResponse } from "../http/requestHandler.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { createBridgeHandler } from "../transports/bridgeHandler.ts";
import { answerNode, writeNodeResponse } from "../transports/internal/node.ts";
import { belowPrefix } from "../transports/mount.ts";
import { DEFAULT_DEV_ORIGIN } from "./config.ts";
import { playgroundResponse } from "./playground.ts";

export interface DevServerOptions extends HandlerOptions {
  /** Components to serve; or pass `registry`. */
  componentsDir?: string;
  registry?: ComponentRegistry;
  /** Default: "0.0.0.0" (all interfaces, as the spec says; see `allowedHosts`). */
  host?: string;
  /** Default: 8000; 0 picks a free port. */
  port?: number;
  /** Origins allowed cross-origin GET access. Default: ["http://localhost:5173"]. */
  corsOrigins?: readonly string[];
  /**
   * `Host` names answered besides IP addresses and `localhost` (`.example.com` allows it and
   * its subdomains); `true` answers any — which lets a web page elsewhere read your sources
   * through DNS rebinding. Default: none.
   */
  allowedHosts?: true | readonly string[];
  /** Log one line per request (method, path, status, ms). Default: true. */
  logRequests?: boolean;
  /**
   * Live reload: `GET /api/events` tells pages which components changed (server-sent events,
   * see docs/PLAYGROUND.md). `true` or its options. Default: true (off in static mode).
   */
  live?: boolean | LiveReloadOptions;
  /**
   * How long a client may take to send a request's headers, in ms: slow-header floods are cut
   * off. Default: 10 000.
   */
  headersTimeoutMs?: number;
  /** Connections open at once; more are refused, so file descriptors never run out. Default: 512. */
  maxConnections?: number;
  /**
   * Keep this declaration file of the components' props current (what `svc types` writes):
   * written at start and, unless `live` is false, whenever a schema or the listing changes.
   * Default: none.
   */
  types?: string;
  logger?: Logger;
}

export interface DevServer {
  /** e.g. `http://127.0.0.1:8000` (a loopback address when listening on all interfaces). */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** The handler set the API is served with. */
  readonly handlers: Handlers;
  /** The live-reload core (undefined with `live: false` and in static mode). */
  readonly live: LiveReload | undefined;
  /** What keeps the `types` file current (undefined without `types`). */
  readonly types: TypesWatcher | undefined;
  close(): Promise<void>;
}

/** Where `svc serve` exposes the files of its build directory (`--build-dir`). */
export const STATIC_PREFIX = "/static/svc/";

/**
 * `svc serve`: the node transport of the one request handler mounted at `/api` (bundles,
 * metadata, the live-reload stream at `/api/events`, the loaders, the build's files), the
 * same answers under the friendlier paths `/svc/loader.js`, `/svc/loader.dev.js`,
 * `/svc/islands.js` and `/static/svc/…`, and the playground at `/` — nothing else of its own.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const logger = options.logger ?? consoleLogger;
  const registry =
    options.registry ?? new ComponentRegistry(options.componentsDir ?? "./components", { logger });
  const handlers = createHandlers(registry, { ...options, logger });
  const allowedHosts = options.allowedHosts ?? [];
  const api = createBridgeHandler(handlers, {
    cors: { origins: options.corsOrigins ?? [DEFAULT_DEV_ORIGIN] },
    allowedHosts,
    live: options.staticMode === true ? false : (options.live ?? true),
  });
  const logRequests = options.logRequests ?? true;
  // In static mode the playground loads components as a page would: through the manifest.
  const playground =
    options.staticMode === true && options.buildDir !== undefined
      ? { manifestUrl: `${STATIC_PREFIX}manifest.json` }
      : {};

  const server = createServer(
    {
      headersTimeout: options.headersTimeoutMs ?? 10_000,
      requestTimeout: 30_000,
      // How often the timeouts above are enforced (Node's default: every 30 s).
      connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs ?? 1_000),
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      const started = performance.now();
      if (logRequests) {
        res.once("finish", () => {
          const ms = (performance.now() - started).toFixed(1);
          logger.info(`${req.method} ${req.url} ${res.statusCode} ${ms}ms`);
        });
      }
      const url = req.url ?? "/";
      const below = belowPrefix(url, "/api") ?? aliasOf(url);
      if (below !== undefined) {
        answerNode(api, req, res, below);
        return;
      }
      // The playground's answers and the 404s outside the API pass the same guards.
      if (allowedHosts !== true && !isHostAllowed(req.headers.host, allowedHosts)) {
        writeNodeResponse(res, errorResponse(new HostNotAllowedError(req.headers.host ?? "")));
        return;
      }
      const path = url.split("?")[0] ?? "/";
      const answer =
        (req.method === "GET" || req.method === "HEAD") &&
        playgroundResponse(handlers, path, playground);
      if (!answer) {
        writeNodeResponse(
          res,
          errorResponse(new NotFoundError(`Nothing at ${path.slice(0, 80)}.`)),
        );
        return;
      }
      void answer.then((response) => {
        response.headers["x-content-type-options"] = "nosniff";
        if (req.method === "HEAD") response.body = null;
        writeNodeResponse(res, response);
      });
    },
  );
  server.maxConnections = options.maxConnections ?? 512;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8000, options.host ?? "0.0.0.0", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const types =
    options.types === undefined
      ? undefined
      : watchTypes(registry, {
          file: resolvePath(options.types),
          logger,
          watch: options.live !== false,
        });
  const address = server.address() as AddressInfo;
  const host =
    options.host === undefined || options.host === "0.0.0.0" || options.host === "::"
      ? "127.0.0.1"
      : options.host;
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`;

  return {
    url,
    port: address.port,
    server,
    handlers,
    live: api.live,
    types,
    close: () =>
      new Promise<void>((resolve) => {
        api.live?.close();
        types?.close();
        server.close(() => resolve());
        // Event streams never end by themselves.
        server.closeAllConnections();
      }),
  };
}

/** The core path of `svc serve`'s own paths for the loaders and the build's files. */
function aliasOf(url: string): string | undefined {
  if (url === "/svc/loader.js" || url.startsWith("/svc/loader.js?")) return url.slice(4);
  if (url === "/svc/loader.dev.js" || url.startsWith("/svc/loader.dev.js?")) return url.slice(4);
  if (url === "/svc/islands.js" || url.startsWith("/svc/islands.js?")) return url.slice(4);
  if (url.startsWith(STATIC_PREFIX)) return `/static/${url.slice(STATIC_PREFIX.length)}`;
  return undefined;
}
