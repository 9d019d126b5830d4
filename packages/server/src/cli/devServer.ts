import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { resolve as resolvePath } from "node:path";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import type { LiveReload, LiveReloadOptions } from "../dev/liveReload.ts";
import { type TypesWatcher, watchTypes } from "../dev/typesWatcher.ts";
import { HostNotAllowedError, NotFoundError, OverloadedError } from "../errors.ts";
import { isHostAllowed } from "../http/hostCheck.ts";
import { errorResponse, type SvcResponse } from "../http/requestHandler.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import type { HandlerOptions } from "../service/handlerOptions.ts";
import { createHandlers } from "../service/handlers.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { createBridgeHandler } from "../transports/bridgeHandler.ts";
import { answerNode, writeNodeResponse } from "../transports/internal/node.ts";
import { belowPrefix } from "../transports/mount.ts";
import { AddressLimit } from "./addressLimit.ts";
import { DEFAULT_DEV_ORIGIN, type RequestLog } from "./config.ts";
import { PLAYGROUND_PREFIX, playgroundResponse } from "./playground.ts";

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

/** When a client refused for its address's many connections may try again, in seconds. */
const ADDRESS_RETRY_AFTER = 5;

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
  const log = options.log ?? (options.logRequests === false ? "off" : "text");
  /** Shutting down: answers close their connection. */
  let closing = false;
  /** Answers not yet written, which then close their connection too. */
  const unanswered = new Set<ServerResponse>();
  // In static mode the playground loads components as a page would: through the manifest.
  const playground =
    options.staticMode === true && options.buildDir !== undefined
      ? { manifestUrl: `${STATIC_PREFIX}manifest.json` }
      : {};

  const headersTimeout = options.headersTimeoutMs ?? 10_000;
  // Node insists that the whole request may take at least as long as its headers.
  const requestTimeout = Math.max(options.requestTimeoutMs ?? 10_000, headersTimeout);
  const server = createServer(
    {
      headersTimeout,
      requestTimeout,
      // How often the timeouts above are enforced (Node's default: every 30 s); a client is
      // cut off at most a quarter of its timeout late.
      connectionsCheckingInterval: Math.min(1_000, headersTimeout / 4),
      keepAliveTimeout: 5_000,
    },
    (req, res) => {
      const started = performance.now();
      if (log !== "off") res.once("finish", () => logRequest(logger, log, req, res, started));
      if (closing) res.setHeader("connection", "close");
      else {
        unanswered.add(res);
        res.once("close", () => unanswered.delete(res));
      }
      res.once("finish", () => {
        // Its connection is idle now: closed at once, not after the keep-alive timeout.
        if (closing) setImmediate(() => server.closeIdleConnections());
      });
      if (limit?.refuses(req.socket)) {
        writeNodeResponse(res, tooManyFromAddress(limit.max));
        return;
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
  server.maxConnections = options.maxConnections ?? 4096;
  server.once("drop", () =>
    logger.warn(
      `svc: ${server.maxConnections} connections are open; new ones are closed unanswered until some end (maxConnections)`,
    ),
  );
  if (limit !== undefined) server.on("connection", (socket: Socket) => limit.count(socket));

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
    close: async (graceMs = 10_000) => {
      closing = true;
      for (const res of unanswered) if (!res.headersSent) res.setHeader("connection", "close");
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Event streams end with their last event; idle keep-alive connections close now.
      api.live?.close();
      types?.close();
      server.closeIdleConnections();
      const deadline = new Promise<void>((resolve) => setTimeout(resolve, graceMs).unref());
      await Promise.race([handlers.close?.(graceMs), deadline]);
      await Promise.race([closed, deadline]);
      server.closeAllConnections();
      await closed;
    },
  };
}

/** One request in the log, as `log` says. */
function logRequest(
  logger: Logger,
  log: RequestLog,
  req: IncomingMessage,
  res: ServerResponse,
  started: number,
): void {
  const ms = performance.now() - started;
  if (log === "text") {
    logger.info(`${req.method} ${req.url} ${res.statusCode} ${ms.toFixed(1)}ms`);
    return;
  }
  const length = res.getHeader("content-length");
  logger.info(
    JSON.stringify({
      time: new Date().toISOString(),
      method: req.method,
      path: req.url,
      status: res.statusCode,
      ms: Math.round(ms * 10) / 10,
      bytes: length === undefined ? undefined : Number(length),
      remote: req.socket.remoteAddress,
    }),
  );
}

/** The answer on a connection past its address's limit, which then closes. */
function tooManyFromAddress(max: number): SvcResponse {
  const response = errorResponse(
    new OverloadedError(
      `This server takes at most ${max} connections from one address`,
      ADDRESS_RETRY_AFTER,
    ),
  );
  response.headers.connection = "close";
  return response;
}

/**
 * The core path of `svc serve`'s own paths: `/svc/…` is the API too (`/svc/loader.js`, and
 * everything a loader served from there asks of its own directory), and `/static/svc/…` the
 * build's files.
 */
function aliasOf(url: string): string | undefined {
  if (url.startsWith(STATIC_PREFIX)) return `/static/${url.slice(STATIC_PREFIX.length)}`;
  // The playground's own files are not the API's.
  if (url.startsWith(PLAYGROUND_PREFIX)) return undefined;
  return belowPrefix(url, "/svc");
}
