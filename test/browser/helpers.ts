/**
 * Shared parts of the browser tests: real Chromium through playwright-core, a real
 * `node:http` server mounting the svc API, the loader built from source, component fixtures
 * written to a temporary directory.
 */
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { dirname, extname, join, normalize, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import {
  ComponentRegistry,
  createNodeHandler,
  type NodeHandlerOptions,
  silentLogger,
} from "@svc/server";
import * as esbuild from "esbuild";
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  type CDPSession,
  chromium,
  type Page,
} from "playwright-core";
import { afterAll, afterEach, beforeAll, beforeEach, expect } from "vitest";
import { type BuiltLoader, buildLoader } from "../../packages/loader/build.ts";
import { encodePng } from "../png.ts";

export const CHROMIUM_PATH = process.env.SVC_CHROMIUM ?? "/usr/bin/chromium";

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
    ],
  });
}

let loaderBuild: Promise<BuiltLoader> | undefined;

/** Builds `@svc/loader` from source (once per test process). */
export function buildLoaderOnce(): Promise<BuiltLoader> {
  loaderBuild ??= buildLoader();
  return loaderBuild;
}

/**
 * What a browser test starts from, made at once: Chromium, a directory for the components and
 * one for a build (`<prefix>` and `<prefix>build-`), and the loader built from source.
 */
export async function browserTestBase(prefix: string) {
  const [browser, dir, buildDir, loader] = await Promise.all([
    launchBrowser(),
    makeTempDir(prefix),
    makeTempDir(`${prefix}build-`),
    buildLoaderOnce(),
  ]);
  return { browser, dir, buildDir, loader };
}

/** Writes `files` (path → contents) below `dir`. */
export async function writeFiles(dir: string, files: Record<string, string>): Promise<void> {
  for (const [path, contents] of Object.entries(files)) {
    const file = join(dir, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, contents);
  }
}

export async function makeTempDir(prefix = "svc-browser-"): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

export interface TestPage {
  body: string;
  headers?: Record<string, string>;
  contentType?: string;
}

export interface TestServerOptions {
  /** Components for the API mounted at `/api`. Default: no API. */
  registry?: ComponentRegistry;
  handlerOptions?: NodeHandlerOptions;
  /** Directory served at `/static/svc/` (e.g. `svc build` output). */
  staticDir?: string;
  /** File served at `/svc/loader.js`. Default: the built production loader. */
  loaderFile?: string;
  /** Extra files by URL path, e.g. a test app bundle. */
  pages?: Record<string, TestPage>;
}

export interface TestServer {
  readonly url: string;
  /** Every request path (with query) the server received, in order. */
  readonly requests: string[];
  setPage(path: string, page: TestPage | string): void;
  /** Requests whose path starts with `prefix` (query included in the match). */
  requestsTo(prefix: string): string[];
  /** Returns a function that lists the requests received after this call. */
  since(): () => string[];
  close(): Promise<void>;
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".html": "text/html; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
  ".svg": "image/svg+xml",
  ".ttf": "font/ttf",
  ".woff2": "font/woff2",
};

/** A plain `node:http` server: test pages, the loader, static files, and the svc API. */
export async function startTestServer(options: TestServerOptions = {}): Promise<TestServer> {
  const requests: string[] = [];
  const pages = new Map(Object.entries(options.pages ?? {}));
  const api =
    options.registry === undefined
      ? undefined
      : createNodeHandler(options.registry, { prefix: "/api", ...options.handlerOptions });
  const loaderFile = options.loaderFile ?? (await buildLoaderOnce()).production;

  const send = (res: ServerResponse, status: number, body: string | Buffer, headers = {}) => {
    res.writeHead(status, { "cache-control": "no-store", ...headers });
    res.end(body);
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? "/";
    requests.push(url);
    const path = url.split("?")[0] ?? "/";
    const page = pages.get(path);
    if (page !== undefined) {
      send(res, 200, page.body, {
        "content-type": page.contentType ?? TYPES[extname(path)] ?? TYPES[".html"],
        ...page.headers,
      });
      return;
    }
    if (path === "/svc/loader.js") {
      send(res, 200, await readFile(loaderFile), { "content-type": TYPES[".js"] });
      return;
    }
    if (options.staticDir !== undefined && path.startsWith("/static/svc/")) {
      const root = normalize(options.staticDir);
      const file = normalize(join(root, decodeURIComponent(path.slice("/static/svc/".length))));
      if (!file.startsWith(root + sep)) return send(res, 403, "forbidden");
      try {
        const body = await readFile(file);
        // As a CDN would: hashed files are immutable.
        send(res, 200, body, {
          "content-type": TYPES[extname(file)] ?? "application/octet-stream",
        });
      } catch {
        send(res, 404, "not found", { "content-type": "text/plain" });
      }
      return;
    }
    if (api !== undefined) {
      api(req, res, () => send(res, 404, "not found", { "content-type": "text/plain" }));
      return;
    }
    send(res, 404, "not found", { "content-type": "text/plain" });
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, String(error)));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setPage(path, page) {
      pages.set(path, typeof page === "string" ? { body: page } : page);
    },
    requestsTo(prefix) {
      return requests.filter((r) => r.startsWith(prefix));
    },
    since() {
      const before = requests.length;
      return () => requests.slice(before);
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Options of `svc serve` (`startDevServer`) in tests: an ephemeral loopback port, no logs. */
export const QUIET_DEV_SERVER = {
  host: "127.0.0.1",
  port: 0,
  logger: silentLogger,
  logRequests: false,
};

/** A registry over a fresh directory of fixture components. */
export async function fixtureRegistry(
  files: Record<string, string>,
): Promise<{ dir: string; registry: ComponentRegistry }> {
  const dir = await makeTempDir("svc-components-");
  await writeFiles(dir, files);
  return { dir, registry: new ComponentRegistry(dir) };
}

/**
 * An HTML document that ends with the loader script: `loaderSrc` (default `/svc/loader.js`)
 * with the attributes in `loader`, a module script with `module`; `loader: false` leaves the
 * script out.
 */
export function html(
  body: string,
  options: { head?: string; loader?: string | false; loaderSrc?: string; module?: boolean } = {},
) {
  const src = options.loaderSrc ?? "/svc/loader.js";
  const type = options.module === true ? ' type="module"' : "";
  const loader =
    options.loader === false ? "" : `<script${type} src="${src}"${options.loader ?? ""}></script>`;
  return `<!doctype html><html><head><meta charset="utf-8">${options.head ?? ""}</head><body>${body}${loader}</body></html>`;
}

/** A widget container as a server would write it (props escaped for the attribute). */
export function widget(name: string, props: unknown = {}, attributes = ""): string {
  const json = JSON.stringify(props).replaceAll("&", "&amp;").replaceAll("'", "&#39;");
  return `<div data-svc-component="${name}" data-svc-props='${json}'${attributes}><span class="placeholder">Loading ${name}…</span></div>`;
}

/** A fresh page in a fresh context (empty HTTP cache), recording page errors. */
export async function openPage(
  browser: Browser,
  options?: BrowserContextOptions,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await browser.newContext(options);
  const page = await context.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  return { context, page, errors };
}

/** Cold bundling on a busy machine takes a while: poll generously. */
export function poll<T>(
  fn: () => T | Promise<T>,
  timeout = 20_000,
): ReturnType<typeof expect.poll<T | Promise<T>>> {
  return expect.poll(fn, { timeout });
}

/**
 * Records the CSP violations of `page` from before its first script: the
 * `securitypolicyviolation` events and Chromium's console reports.
 */
export async function watchCsp(page: Page): Promise<string[]> {
  const reports: string[] = [];
  page.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) reports.push(message.text());
  });
  await page.exposeFunction("__svcCspViolation", (text: string) => reports.push(text));
  await page.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __svcCspViolation(text: string): void })
        .__svcCspViolation;
      report(`${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  return reports;
}

/** A page of a {@link browserSuite}, closed after the test. */
export interface SuitePage {
  context: BrowserContext;
  page: Page;
  /** Uncaught errors of the page. */
  errors: string[];
  /** The text of every console message. */
  consoleLines: string[];
  /** CSP violations (see {@link watchCsp}). */
  violations: string[];
}

/** What the tests of a describe (or a file) share: Chromium, servers, temporary directories. */
export interface BrowserSuite {
  /** Chromium, ready in every test. */
  readonly browser: Browser;
  /** Runs `close` after the suite's tests; the last added runs first. */
  after(close: () => unknown): void;
  /** A fresh temporary directory, removed after the suite. */
  tempDir(prefix?: string): Promise<string>;
  /** A registry over a fresh directory of `files`, removed after the suite. */
  fixtures(files: Record<string, string>): Promise<{ dir: string; registry: ComponentRegistry }>;
  /** A test server, closed after the suite. */
  server(options?: TestServerOptions): Promise<TestServer>;
  /** A fresh page in a fresh context, recording errors, console and CSP violations. */
  newPage(options?: BrowserContextOptions): Promise<SuitePage>;
  /** {@link BrowserSuite.newPage}, at `url`. */
  open(url: string, options?: BrowserContextOptions): Promise<SuitePage>;
}

/**
 * Sets up, in the enclosing describe (or file), Chromium for its tests (launched while the
 * suite's own `beforeAll` runs), and closes what the suite made: each test's pages after it,
 * servers and directories after the suite.
 */
export function browserSuite(): BrowserSuite {
  let launching: Promise<Browser> | undefined;
  let browser: Browser | undefined;
  const closers: (() => unknown)[] = [];
  const contexts: BrowserContext[] = [];
  beforeAll(() => {
    launching = launchBrowser();
    launching.catch(() => {}); // reported by the first test that needs it
  });
  beforeEach(async () => {
    browser = await launching;
  });
  afterEach(async () => {
    await Promise.all(contexts.splice(0).map((context) => context.close()));
  });
  afterAll(async () => {
    for (const close of closers.splice(0).reverse()) await close();
    await (await launching?.catch(() => undefined))?.close();
  });
  const suite: BrowserSuite = {
    get browser() {
      if (browser === undefined) throw new Error("Chromium is ready in tests only");
      return browser;
    },
    after(close) {
      closers.push(close);
    },
    async tempDir(prefix) {
      const dir = await makeTempDir(prefix);
      closers.push(() => removeDir(dir));
      return dir;
    },
    async fixtures(files) {
      const fixtures = await fixtureRegistry(files);
      closers.push(() => removeDir(fixtures.dir));
      return fixtures;
    },
    async server(options) {
      const server = await startTestServer(options);
      closers.push(() => server.close());
      return server;
    },
    async newPage(options) {
      const { context, page, errors } = await openPage(suite.browser, options);
      contexts.push(context);
      const consoleLines: string[] = [];
      page.on("console", (message) => consoleLines.push(message.text()));
      return { context, page, errors, consoleLines, violations: await watchCsp(page) };
    },
    async open(url, options) {
      const opened = await suite.newPage(options);
      await opened.page.goto(url);
      return opened;
    },
  };
  return suite;
}

/**
 * Adds `latencyMs` to every request of `page` (CDP `Network.emulateNetworkConditions`, no
 * bandwidth limit) and returns the CDP session, for more emulation.
 */
export async function withLatency(
  context: BrowserContext,
  page: Page,
  latencyMs: number,
): Promise<CDPSession> {
  const cdp = await context.newCDPSession(page);
  await cdp.send("Network.enable");
  await cdp.send("Network.emulateNetworkConditions", {
    offline: false,
    latency: latencyMs,
    downloadThroughput: -1,
    uploadThroughput: -1,
  });
  return cdp;
}

/** A real PNG of `size`×`size` pixels of noise (incompressible). */
export function noisePng(size: number): Buffer {
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y++) {
    // Filter byte 0, then pixels: the bytes of a hash chain, which no compressor shrinks.
    rows.push(Buffer.concat([Buffer.alloc(1), pixels(size * 3, y)]));
  }
  return encodePng(size, size, rows);
}

function pixels(length: number, seed: number): Buffer {
  const parts: Buffer[] = [];
  let block = createHash("sha256").update(String(seed)).digest();
  for (let n = 0; n < length; n += block.length) {
    parts.push(block);
    block = createHash("sha256").update(block).digest();
  }
  return Buffer.concat(parts).subarray(0, length);
}

const SVC_CLI = fileURLToPath(new URL("../../packages/server/src/cli/svc.ts", import.meta.url));

/** `svc build` as a user runs it, the command line from source: `componentsDir` → `out`. */
export async function svcBuild(componentsDir: string, out: string): Promise<void> {
  await promisify(execFile)(process.execPath, [
    "--conditions=source",
    SVC_CLI,
    "build",
    ...["--output", out, "--components-dir", componentsDir],
  ]);
}

/**
 * The test pages of a React app bundled by {@link bundleApp}: `/app.html`, a page that mounts
 * it on `#root` (with `headers`, a CSP say), and `/app.js`, the bundle.
 */
export function appPages(
  app: string,
  headers?: Record<string, string>,
): Record<"/app.html" | "/app.js", TestPage> {
  const html =
    '<!doctype html><html><body><div id="root"></div><script type="module" src="/app.js"></script></body></html>';
  return {
    "/app.html": headers === undefined ? { body: html } : { body: html, headers },
    "/app.js": { body: app },
  };
}

/**
 * A React app of the tests' fixtures (`entry`), bundled for the browser from source as the
 * app's own build would bundle it: one ES module, React included.
 */
export async function bundleApp(
  entry: URL,
  mode: "development" | "production" = "development",
): Promise<string> {
  const result = await esbuild.build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    conditions: ["source"],
    define: { "process.env.NODE_ENV": JSON.stringify(mode) },
    logLevel: "silent",
  });
  return result.outputFiles[0]?.text ?? "";
}
