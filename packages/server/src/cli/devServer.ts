import { readFile, stat } from "node:fs/promises";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { createLiveReload, type LiveReload } from "../dev/liveReload.ts";
import { createHandlers, type HandlerOptions, type Handlers } from "../http/handlers.ts";
import { loaderScriptPath } from "../http/loaderScript.ts";
import { createRequestHandler } from "../http/requestHandler.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { belowPrefix } from "../transports/mount.ts";
import { answerNode } from "../transports/node.ts";
import { DEFAULT_DEV_ORIGIN } from "./config.ts";

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
  /**
   * Live reload: watch the sources and announce changed components on `GET /api/events`
   * (server-sent events, see docs/PLAYGROUND.md). Default: true.
   */
  live?: boolean;
  logger?: Logger;
}

export interface DevServer {
  /** e.g. `http://127.0.0.1:8000` (a loopback address when listening on all interfaces). */
  readonly url: string;
  readonly port: number;
  readonly server: Server;
  /** The handler set the API is served with. */
  readonly handlers: Handlers;
  /** The live-reload core (undefined with `live: false`). */
  readonly live: LiveReload | undefined;
  close(): Promise<void>;
}

/** Where `svc serve` exposes the files of its build directory (`--build-dir`). */
export const STATIC_PREFIX = "/static/svc/";

/** Where the playground's hashed assets are served from. */
const PLAYGROUND_PREFIX = "/svc/playground/";

/** The built playground (`node playground/build.ts`), from `src/` and from `dist/` alike. */
const playgroundDir = fileURLToPath(new URL("../../dist/playground/", import.meta.url));

/**
 * The playground page's policy: scripts from this origin and the `blob:` URLs components are
 * imported from, nothing inline, no eval. It proves the loader needs no more.
 */
const PLAYGROUND_CSP = "script-src 'self' blob:; object-src 'none'; base-uri 'none'";

const devLoaderPath = resolveDevLoader();

/**
 * Starts the development server: the playground at `/`, the API under `/api` with the
 * live-reload stream at `/api/events`, the loader at `/svc/loader.js` (and
 * `/svc/loader.dev.js`), and — with `buildDir` — the build's files under `/static/svc/`.
 */
export async function startDevServer(options: DevServerOptions = {}): Promise<DevServer> {
  const logger = options.logger ?? consoleLogger;
  const registry =
    options.registry ?? new ComponentRegistry(options.componentsDir ?? "./components", { logger });
  const inner = createHandlers(registry, { ...options, logger });
  // Served through the live-reload wrapper, which notes what clients have loaded.
  const live = options.live === false ? undefined : createLiveReload(inner);
  const handlers = live?.handlers ?? inner;
  const corsOrigins = options.corsOrigins ?? [DEFAULT_DEV_ORIGIN];
  const api = createRequestHandler(handlers, { cors: { origins: corsOrigins } });
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
    if (live !== undefined && req.method === "GET" && /^\/events(\?|$)/.test(below ?? "")) {
      // EventSource from another origin (a Vite app) needs the same CORS answer as the API.
      const origin = req.headers.origin;
      if (corsOrigins.includes("*")) res.setHeader("access-control-allow-origin", "*");
      else if (origin !== undefined && corsOrigins.includes(origin)) {
        res.setHeader("access-control-allow-origin", origin);
        res.setHeader("vary", "Origin");
      }
      live.serveEvents(req, res);
    } else if (below !== undefined) {
      answerNode(api, req, res, below);
    } else if (url.startsWith(STATIC_PREFIX)) {
      // The core's `/static/` route: the same headers, 304s and errors as every bridge.
      answerNode(api, req, res, `/static/${url.slice(STATIC_PREFIX.length)}`);
    } else if (url === "/svc/loader.js" || url.startsWith("/svc/loader.js?")) {
      void serveLoader(req, res, loaderScriptPath);
    } else if (url === "/svc/loader.dev.js" || url.startsWith("/svc/loader.dev.js?")) {
      void serveLoader(req, res, devLoaderPath);
    } else if (url.startsWith(PLAYGROUND_PREFIX)) {
      void servePlaygroundAsset(req, res, url.slice(PLAYGROUND_PREFIX.length));
    } else if (url === "/" || url.startsWith("/?")) {
      void servePlayground(req, res, handlers);
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
    live,
    close: () =>
      new Promise<void>((resolve) => {
        live?.close();
        server.close(() => resolve());
        // Event streams never end by themselves.
        server.closeAllConnections();
      }),
  };
}

function resolveDevLoader(): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve("@svc/loader/loader.dev.js"));
  } catch {
    return undefined;
  }
}

async function serveLoader(
  req: IncomingMessage,
  res: ServerResponse,
  path: string | undefined,
): Promise<void> {
  if (path === undefined) {
    sendText(res, 404, "text/plain; charset=utf-8", "The @svc/loader package is not installed.");
    return;
  }
  try {
    const [info, body] = await Promise.all([stat(path), readFile(path)]);
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

/** The playground page, read on each request so a rebuild shows without a restart. */
async function servePlayground(
  req: IncomingMessage,
  res: ServerResponse,
  handlers: Handlers,
): Promise<void> {
  let body: Buffer;
  try {
    body = await readFile(join(playgroundDir, "index.html"));
  } catch {
    sendText(res, 200, "text/html; charset=utf-8", indexPage(handlers));
    return;
  }
  res.writeHead(200, {
    "content-type": "text/html; charset=utf-8",
    "content-length": body.byteLength,
    "cache-control": "no-cache",
    "content-security-policy": PLAYGROUND_CSP,
    "x-content-type-options": "nosniff",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

const ASSET_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

/** The playground's hashed files: immutable, so cached for good. */
async function servePlaygroundAsset(
  req: IncomingMessage,
  res: ServerResponse,
  file: string,
): Promise<void> {
  const name = file.split("?")[0] ?? "";
  const type = ASSET_TYPES[extname(name)];
  let body: Buffer | undefined;
  if (type !== undefined && /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)) {
    body = await readFile(join(playgroundDir, name)).catch(() => undefined);
  }
  if (body === undefined) {
    sendText(
      res,
      404,
      "application/json; charset=utf-8",
      JSON.stringify({ error: "NotFound", message: `No playground file ${name.slice(0, 80)}.` }),
    );
    return;
  }
  res.writeHead(200, {
    "content-type": type as string,
    "content-length": body.byteLength,
    "cache-control": "public, max-age=31536000, immutable",
    "x-content-type-options": "nosniff",
  });
  res.end(req.method === "HEAD" ? undefined : body);
}

function sendText(res: ServerResponse, status: number, type: string, body: string): void {
  res.writeHead(status, { "content-type": type, "content-length": Buffer.byteLength(body) });
  res.end(body);
}

/** Shown at `/` when the playground has not been built. */
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
<body><h1>svc</h1><p>The playground has not been built: run <code>npm run build -w @svc/server</code>.</p>
<p>${handlers.registry.size} components. Endpoints: <a href="/api/bundles">/api/bundles</a>.</p>
<ul>${rows}</ul></body></html>`;
}
