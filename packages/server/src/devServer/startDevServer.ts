import { createServer, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { resolve as resolvePath } from "node:path";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { DEFAULT_DEV_ORIGIN, type RequestLog } from "../config/svcConfig.ts";
import type { LiveReload, LiveReloadOptions } from "../dev/liveReload.ts";
import { type TypesWatcher, watchTypes } from "../dev/typesWatcher.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import type { HandlerOptions } from "../service/handlerOptions.ts";
import { createHandlers } from "../service/handlers.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { createBridgeHandler } from "../transports/bridgeHandler.ts";
import { writeNodeResponse } from "../transports/internal/node.ts";
import { AddressLimit, tooManyFromAddress } from "./addressLimit.ts";
import { DevRoutes, STATIC_PREFIX } from "./devRoutes.ts";
import { GracefulClose } from "./gracefulClose.ts";
import { logRequest } from "./requestLog.ts";

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
  /**
   * The request log: `"text"`, a line per request (`GET /api/bundles 200 1.2ms`); `"json"`, a
   * JSON object per line, for a log pipeline (`time`, `method`, `path`, `status`, `ms`,
   * `bytes`, `remote`); `"off"`. Default: `"text"`.
   */
  log?: RequestLog;
  /** `false` is `log: "off"` (kept for older callers). */
  logRequests?: boolean;
  /**
   * Live reload: `GET /api/events` tells pages which components changed (server-sent events,
   * see docs/PLAYGROUND.md). `true` or its options. Default: true (off in static mode).
   */
  live?: boolean | LiveReloadOptions;
  /**
   * How long a client may take to send a request's headers, in ms: slow-header floods are cut
   * off (408). Default: 10 000.
   */
  headersTimeoutMs?: number;
  /**
   * How long a client may take to send a whole request, body included, in ms (at least
   * `headersTimeoutMs`): slow-body floods are cut off (408). Default: 10 000.
   */
  requestTimeoutMs?: number;
  /**
   * Connections open at once, from all clients; past it Node closes new connections unanswered,
   * so file descriptors never run out. The bounds below keep any one client far from it.
   * Default: 4096.
   */
  maxConnections?: number;
  /**
   * Connections open at once from one remote address; past it a connection's request is
   * answered 503 `Overloaded` with `Retry-After` and the connection closed (within 2 s if it
   * sends none), so one client cannot take the server's connections. `Infinity`: no limit.
   * Default: 64.
   */
  maxConnectionsPerAddress?: number;
  /**
   * Clients of the live-reload stream at once; past it `GET /api/events` answers 503
   * `Overloaded` with `Retry-After`. Streams end after about 5 minutes (clients reconnect).
   * Default: 256.
   */
  maxEventClients?: number;
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
  /**
   * Shuts down gracefully: stops listening, ends event streams with a final `closing` event,
   * lets requests and renders in flight finish (at most `graceMs`, default 10 s; keep-alive
   * connections are closed once their answer is out), stops the render workers.
   */
  close(graceMs?: number): Promise<void>;
}

/**
 * `svc serve`: the node transport of the one request handler mounted at `/api` (bundles,
 * metadata, the live-reload stream at `/api/events`, the loaders, the build's files), the
 * same answers under the friendlier paths `/svc/loader.js`, `/svc/loader.dev.js`,
 * `/svc/islands.js` and `/static/svc/…`, and the playground at `/` — nothing else of its own.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const logger = options.logger ?? consoleLogger;
  const perAddress = options.maxConnectionsPerAddress ?? 64;
  const limit = perAddress === Number.POSITIVE_INFINITY ? undefined : new AddressLimit(perAddress);
  const registry =
    options.registry ?? new ComponentRegistry(options.componentsDir ?? "./components", { logger });
  const handlers = createHandlers(registry, { ...options, logger });
  const allowedHosts = options.allowedHosts ?? [];
  const api = createBridgeHandler(handlers, {
    cors: { origins: options.corsOrigins ?? [DEFAULT_DEV_ORIGIN] },
    allowedHosts,
    live: options.staticMode === true ? false : (options.live ?? true),
    maxEventClients: options.maxEventClients,
  });
  // In static mode the playground loads components as a page would: through the manifest.
  const playground =
    options.staticMode === true && options.buildDir !== undefined
      ? { manifestUrl: `${STATIC_PREFIX}manifest.json` }
      : {};
  const routes = new DevRoutes(api, handlers, allowedHosts, playground);
  const log = options.log ?? (options.logRequests === false ? "off" : "text");

  const server = createDevHttpServer(options, logger, limit);
  const shutdown = new GracefulClose(server);
  server.on("request", (req, res: ServerResponse) => {
    const started = performance.now();
    if (log !== "off") res.once("finish", () => logRequest(logger, log, req, res, started));
    shutdown.track(res);
    if (limit?.refuses(req.socket)) writeNodeResponse(res, tooManyFromAddress(limit.max));
    else routes.answer(req, res);
  });
  await listen(server, options.port ?? 8000, options.host ?? "0.0.0.0");
  const types =
    options.types === undefined
      ? undefined
      : watchTypes(registry, {
          file: resolvePath(options.types),
          logger,
          watch: options.live !== false,
        });
  const port = (server.address() as AddressInfo).port;
  return {
    url: localUrl(options.host, port),
    port,
    server,
    handlers,
    live: api.live,
    types,
    close: (graceMs = 10_000) =>
      shutdown.close(graceMs, {
        stop: () => {
          api.live?.close();
          types?.close();
        },
        finish: (ms) => handlers.close?.(ms),
      }),
  };
}

/**
 * The HTTP server, its request listener not yet added: slow clients cut off, connections
 * bounded in all and (with `limit`) per address.
 */
function createDevHttpServer(
  options: DevServerOptions,
  logger: Logger,
  limit: AddressLimit | undefined,
): Server {
  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  // Node insists that the whole request may take at least as long as its headers.
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 10_000, headersTimeout);
  const server = createServer({
    headersTimeout,
    requestTimeout,
    // How often the timeouts above are enforced (Node's default: every 30 s); a client is
    // cut off at most a quarter of its timeout late.
    connectionsCheckingInterval: Math.min(1_000, headersTimeout / 4),
    keepAliveTimeout: 5_000,
  });
  server.maxConnections = options.maxConnections ?? 4096;
  server.once("drop", () =>
    logger.warn(
      `svc: ${server.maxConnections} connections are open; new ones are closed unanswered until some end (maxConnections)`,
    ),
  );
  if (limit !== undefined) server.on("connection", (socket: Socket) => limit.count(socket));
  return server;
}

function listen(server: Server, port: number, host: string): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
}

/** The server's URL: a loopback address when it listens on all interfaces. */
function localUrl(host: string | undefined, port: number): string {
  const shown = host === undefined || host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  return `http://${shown.includes(":") ? `[${shown}]` : shown}:${port}`;
}
