import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { ComponentRegistry } from "./componentRegistry.ts";
import { createHandlers, type HandlerOptions, type Handlers } from "./handlers.ts";
import { loaderScriptPath } from "./loaderScript.ts";
import { consoleLogger, type Logger } from "./logger.ts";
import { belowPrefix } from "./mount.ts";
import { answerNode } from "./node.ts";
import { createRequestHandler } from "./requestHandler.ts";

/** The origin a Vite dev server uses; `svc serve` lets it call the API by default. */
export const DEFAULT_DEV_ORIGIN = "http://localhost:5173";

export interface DevServerOptions extends HandlerOptions {
  /** Components to serve; or pass `registry`. */
  componentsDir?: string;
  registry?: ComponentRegistry;
  /** Default: "0.0.0.0" (all interfaces). */
  host?: string;
  /** Default: 8000; 0 picks a free port. */
  port?: number;
  /** Origins allowed cross-origin GET access. Default: ["http://localhost:5173"]. */
  corsOrigins?: readonly string[];
  /** Log one line per request (method, path, status, ms). Default: true. */
  logRequests?: boolean;
  logger?: Logger;
}

export interface DevServer {
  /** e.g. `http://127.0.0.1:8000` (a loopback address when listening on all interfaces). */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  readonly handlers: Handlers;
  close(): Promise<void>;
}

/** Where `svc serve` exposes the files of its build directory (`--build-dir`). */
export const STATIC_PREFIX = "/static/svc/";

/**
 * Starts the development server: the API under `/api`, the loader at `/svc/loader.js`, an
 * index at `/`, and — with `buildDir` — the build's files under `/static/svc/`.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const logger = options.logger ?? consoleLogger;
  const registry =
    options.registry ?? new ComponentRegistry(options.componentsDir ?? "./components", { logger });
  const handlers = createHandlers(registry, { ...options, logger });
  const api = createRequestHandler(handlers, {
    cors: { origins: options.corsOrigins ?? [DEFAULT_DEV_ORIGIN] },
  });
  const logRequests = options.logRequests ?? true;

  const server = createServer((req, res) => {
    const started = performance.now();
    if (logRequests) {
      res.once("finish", () => {
        const ms = (performance.now() - started).toFixed(1);
        logger.info(`${req.method} ${req.url} ${res.statusCode} ${ms}ms`);
      });
    }
    const url = req.url ?? "/";
    const below = belowPrefix(url, "/api");
    if (below !== undefined) {
      void answerNode(api, req, res, below);
    } else if (url.startsWith(STATIC_PREFIX)) {
      // The core's `/static/` route: the same headers, 304s and errors as every bridge.
      void answerNode(api, req, res, `/static/${url.slice(STATIC_PREFIX.length)}`);
    } else if (url === "/svc/loader.js" || url.startsWith("/svc/loader.js?")) {
      void serveLoader(req, res);
    } else if (url === "/" || url.startsWith("/?")) {
      sendText(res, 200, "text/html; charset=utf-8", indexPage(handlers));
    } else {
      sendText(
        res,
        404,
        "application/json; charset=utf-8",
        JSON.stringify({ error: "NotFound", message: `Nothing at ${url.slice(0, 80)}.` }),
      );
    }
  });
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 8000, options.host ?? "0.0.0.0", () => {
      server.off("error", reject);
      resolve();
    });
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
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

async function serveLoader(req: IncomingMessage, res: ServerResponse): Promise<void> {
  if (loaderScriptPath === undefined) {
    sendText(res, 404, "text/plain; charset=utf-8", "The @svc/loader package is not installed.");
    return;
  }
  try {
    const [info, body] = await Promise.all([stat(loaderScriptPath), readFile(loaderScriptPath)]);
    const etag = `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;
    if (req.headers["if-none-match"] === etag) {
      res.writeHead(304, { etag, "cache-control": "no-cache" });
      res.end();
      return;
    }
    res.writeHead(200, {
      "content-type": "application/javascript; charset=utf-8",
      "cache-control": "no-cache",
      "content-length": body.byteLength,
      etag,
    });
    res.end(req.method === "HEAD" ? undefined : body);
  } catch {
    sendText(
      res,
      404,
      "text/plain; charset=utf-8",
      "The loader script has not been built: run `npm run build`.",
    );
  }
}

function sendText(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

function indexPage(handlers: Handlers): string {
  handlers.registry.refresh();
  const rows = handlers.registry
    .list()
    .map(
      (c) =>
        `<li><code>${c.name}</code> — <a href="/api/bundles/${c.name}.js">bundle</a> · <a href="/api/bundles/${c.name}/metadata">metadata</a></li>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:48rem;margin:2rem auto;padding:0 1rem}</style></head>
<body><h1>svc</h1><p>${handlers.registry.size} components. Endpoints: <a href="/api/bundles">/api/bundles</a>.</p>
<ul>${rows}</ul></body></html>`;
}
