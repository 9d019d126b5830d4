import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import {
  bundlePath,
  type ComponentName,
  DEV_LOADER_PATH,
  ESM_LOADER_PATH,
  EVENTS_PATH,
  HEALTH_PATH,
  ISLANDS_PATH,
  ISLANDS_SCRIPT_PATH,
  LIST_PATH,
  LOADER_EXTRAS_PATH,
  LOADER_PATH,
  MAX_NAME_LENGTH,
  parseBundleQuery,
  parseComponentName,
  STATIC_PATH,
  VENDOR_PATH,
} from "@svc/protocol";
import { ASSET_NAME, STYLESHEET_NAME, STYLESHEET_TYPE } from "../bundling/componentFiles.ts";
import { withoutStylesheetImports } from "../bundling/stylesheetImports.ts";
import {
  completeVendorModules,
  VENDOR_DIR,
  vendorLinks,
  vendorModules,
} from "../bundling/vendorModules.ts";
import {
  HostNotAllowedError,
  InvalidComponentNameError,
  isSvcError,
  MethodNotAllowedError,
  NotFoundError,
  OverloadedError,
  toErrorResponse,
} from "../errors.ts";
import type { BundleResult, Handlers, Preload, StylesheetResult } from "../service/handlerTypes.ts";
import {
  errorKindOf,
  instruments,
  inTrace,
  type Span,
  SpanKind,
  SpanStatusCode,
  startSpan,
  withSpan,
} from "../telemetry.ts";
import {
  devLoaderScriptPath,
  islandsScriptPath,
  loaderExtrasPath,
  loaderScriptPath,
} from "../util/loaderFiles.ts";
import { turnEnd } from "../util/loopTurn.ts";
import { EventStreams, type LiveSource } from "./eventStream.ts";
import { isHostAllowed } from "./hostCheck.ts";
import { batchResponse, islandResponse } from "./islandRoutes.ts";
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";

export { MAX_BODY_BYTES } from "./islandRoutes.ts";
export type { RequestBody, SvcRequest, SvcResponse } from "./svcRequest.ts";

export interface CorsOptions {
  /** Origins allowed to make cross-origin GET requests (exact match, or "*"). */
  origins: readonly string[];
}

export interface RequestHandlerOptions {
  /** Cross-origin access to the API. Default: none (same-origin only). */
  cors?: CorsOptions;
  /**
   * File served at `<mount>/loader.js` (read once, then kept in memory). Default: the
   * standalone script of `@svc/loader` ({@link loaderScriptPath}).
   */
  loaderScript?: string;
  /** File served at `<mount>/loader.dev.js`. Default: `@svc/loader`'s development build. */
  devLoaderScript?: string;
  /**
   * File served at `<mount>/loader.extras.js`, which the loader fetches for islands and live
   * reload. Default: `@svc/loader`'s ({@link loaderExtrasPath}).
   */
  loaderExtras?: string;
  /**
   * File served at `<mount>/islands.js`, the start of a page of islands, which fetches
   * `loader.js` when a first island hydrates. Default: `@svc/loader`'s ({@link islandsScriptPath}).
   */
  islandsScript?: string;
  /**
   * `Host` names answered besides IP addresses and `localhost` (DNS-rebinding protection, see
   * `isHostAllowed`); `true` answers any. Default: `true` — a bridge lives in your app, which
   * decides; `svc serve` passes its `--allowed-host` list.
   */
  allowedHosts?: true | readonly string[];
  /**
   * Clients of the live-reload stream served at once; past it `GET /events` answers 503
   * `Overloaded` with `Retry-After` (svc's clients retry by themselves). Each stream is ended
   * after about 5 minutes and its client reconnects, so none holds its place for good.
   * Default: 256.
   */
  maxEventClients?: number;
}

/**
 * Answers one request. A warm bundle is answered synchronously (no promise, no microtask:
 * the hot path of every transport); everything else as a native `Promise`, which never
 * rejects (errors are answered). `await` works on both.
 */
export type RequestHandler = (request: SvcRequest) => SvcResponse | Promise<SvcResponse>;

const JS_TYPE = "application/javascript; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
const IMMUTABLE = "public, max-age=31536000, immutable";
const ALLOW = "GET, HEAD, OPTIONS";

type Route =
  | { kind: "list" }
  | { kind: "health" }
  | { kind: "islands" }
  | { kind: "bundle"; name: string }
  | { kind: "stylesheet"; name: string }
  | { kind: "file"; path: string }
  | { kind: "metadata"; name: string }
  | { kind: "island"; name: string }
  | { kind: "loader"; file: "production" | "development" | "extras" | "islands" }
  | { kind: "esmLoader" }
  | { kind: "vendor"; file: string }
  | { kind: "events" }
  | { kind: "static"; path: string };

/**
 * The one place a path below the mount point is mapped to an endpoint (names and paths still
 * percent-encoded). Everything below the mount belongs to svc: other paths answer 404
 * `NotFound` from every transport alike.
 */
function routeOf(path: string): Route | undefined {
  if (path === "/bundles" || path === "/bundles/") return { kind: "list" };
  if (path.startsWith("/bundles/")) {
    const rest = path.slice("/bundles/".length);
    if (rest.endsWith("/metadata")) return { kind: "metadata", name: rest.slice(0, -9) };
    if (rest.endsWith("/html")) return { kind: "island", name: rest.slice(0, -5) };
    if (rest.endsWith(".js")) return { kind: "bundle", name: rest.slice(0, -3) };
    if (rest.startsWith("assets/")) return { kind: "file", path: rest };
    // A stylesheet of a bundle is `<stem>-<12 hex>.css`, a shape no valid name takes.
    if (rest.endsWith(".css")) {
      return STYLESHEET_NAME.test(rest)
        ? { kind: "file", path: rest }
        : { kind: "stylesheet", name: rest.slice(0, -4) };
    }
    return undefined;
  }
  if (path === LOADER_PATH) return { kind: "loader", file: "production" };
  if (path === DEV_LOADER_PATH) return { kind: "loader", file: "development" };
  if (path === LOADER_EXTRAS_PATH) return { kind: "loader", file: "extras" };
  if (path === ISLANDS_SCRIPT_PATH) return { kind: "loader", file: "islands" };
  if (path === ESM_LOADER_PATH) return { kind: "esmLoader" };
  if (path.startsWith(VENDOR_PATH)) return { kind: "vendor", file: path.slice(VENDOR_PATH.length) };
  if (path === EVENTS_PATH) return { kind: "events" };
  if (path === HEALTH_PATH) return { kind: "health" };
  if (path === ISLANDS_PATH) return { kind: "islands" };
  if (path.startsWith(STATIC_PATH)) return { kind: "static", path: path.slice(STATIC_PATH.length) };
  return undefined;
}

/**
 * Routes the endpoints to the handler set and decides every status and header. Paths are
 * relative to wherever the transport mounts it (`/bundles`, `/bundles/x.js`, `/events`, …).
 * `events`: the live-reload stream to serve at `/events` (none: 204 No Content, as in production).
 */
export function createRequestHandler(
  handlers: Handlers,
  options: RequestHandlerOptions & { events?: LiveSource } = {},
): RequestHandler {
  const allowed = new Set(options.cors?.origins ?? []);
  const hosts = options.allowedHosts ?? true;
  const loaders = {
    production: createLoaderFile(options.loaderScript ?? loaderScriptPath),
    development: createLoaderFile(options.devLoaderScript ?? devLoaderScriptPath),
    extras: createLoaderFile(options.loaderExtras ?? loaderExtrasPath),
    islands: createLoaderFile(options.islandsScript ?? islandsScriptPath),
  };
  const events =
    options.events === undefined
      ? undefined
      : new EventStreams(options.events, {
          maxClients: options.maxEventClients,
          logger: handlers.logger,
        });
  const context: Context = { handlers, loaders, allowed, events };

  function fail(request: SvcRequest, error: unknown): SvcResponse {
    // A client that went away mid-request (a body cut off) is no fault of the server's.
    if (!isSvcError(error) && request.signal?.aborted !== true) {
      handlers.logger.error("svc: unexpected error", error);
    }
    const response = errorResponse(error);
    instruments().errors.add(1, { "error.type": errorKindOf(error) });
    return response;
  }

  function finish(request: SvcRequest, response: SvcResponse, span: Span): SvcResponse {
    if (span.isRecording()) {
      span.setAttribute("http.response.status_code", response.status);
      if (response.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
    }
    span.end();
    if (allowed.size > 0) {
      Object.assign(response.headers, corsFor(allowed, request.header("origin")));
    }
    // Nothing svc sends may be sniffed into another type (e.g. HTML) by a browser.
    response.headers["x-content-type-options"] = "nosniff";
    if (request.method === "HEAD" && response.body !== null) {
      if (response.body instanceof ReadableStream) void response.body.cancel();
      response.body = null;
    }
    return response;
  }

  return function handle(request) {
    const path = stripQuery(request.url);
    const route = routeOf(path);
    const span = requestSpan(request, path, route);
    let result: SvcResponse | Promise<SvcResponse>;
    try {
      if (hosts !== true && !isHostAllowed(request.header("host"), hosts)) {
        throw new HostNotAllowedError(request.header("host") ?? "");
      }
      result = withSpan(span, () => respond(context, request, path, route));
    } catch (error) {
      result = fail(request, error);
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (response) => finish(request, response, span),
        (error: unknown) => finish(request, fail(request, error), span),
      );
    }
    return finish(request, result, span);
  };
}

/**
 * The answer to an error: its status and JSON body from the one table, `no-store`, and the
 * `Allow` header for a 405.
 */
export function errorResponse(error: unknown): SvcResponse {
  const { status, body } = toErrorResponse(error);
  const headers: Record<string, string> = {
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  };
  if (error instanceof MethodNotAllowedError) headers.allow = error.allow;
  if (error instanceof OverloadedError) headers["retry-after"] = String(error.retryAfter);
  return json(status, body, headers);
}

/**
 * The answer for a request outside the mount prefix, for transports that are the whole server
 * (the node and fetch handlers without `next`): the same 404 body as every other.
 */
export function outsidePrefix(url: string): SvcResponse {
  return errorResponse(new NotFoundError(`No svc endpoint at ${truncate(stripQuery(url))}.`));
}

/** Whether an answer is still to come (any thenable: a handler set may bring its own). */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T>).then === "function";
}

interface Context {
  handlers: Handlers;
  loaders: Record<"production" | "development" | "extras" | "islands", () => Promise<LoadedFile>>;
  allowed: ReadonlySet<string>;
  events: EventStreams | undefined;
}

/** When a client refused an event stream may try again, in seconds. */
const EVENTS_RETRY_AFTER = 10;

const FROM_SOCKET = { readFromSocket: true } as const;

/**
 * The span of one request (OpenTelemetry; a no-op until the app registers an SDK), named by
 * its route's template (`GET /bundles/{name}.js`), a child of the app's own span if any.
 */
function requestSpan(request: SvcRequest, path: string, route: Route | undefined): Span {
  const template = routeTemplate(route, path);
  const attributes: Record<string, string> = {
    "http.request.method": request.method,
    "http.route": template,
    "url.path": path,
  };
  if (route !== undefined && "name" in route) attributes["svc.component"] = route.name;
  return startSpan(
    `${request.method} ${template}`,
    attributes,
    inTrace() ? SpanKind.INTERNAL : SpanKind.SERVER,
  );
}

/** A route's path with its variable parts named (`/bundles/{name}.js`): what spans are named by. */
function routeTemplate(route: Route | undefined, path: string): string {
  switch (route?.kind) {
    case undefined:
      return "(unknown)";
    case "list":
      return LIST_PATH;
    case "bundle":
      return "/bundles/{name}.js";
    case "stylesheet":
      return "/bundles/{name}.css";
    case "file":
      return "/bundles/{file}";
    case "metadata":
      return "/bundles/{name}/metadata";
    case "island":
      return "/bundles/{name}/html";
    case "vendor":
      return `${VENDOR_PATH}{file}`;
    case "static":
      return `${STATIC_PATH}{path}`;
    default:
      return path;
  }
}

/** The response to `request`: synchronously for a warm bundle asked in process, else a promise. */
function respond(
  context: Context,
  request: SvcRequest,
  path: string,
  route: Route | undefined,
): SvcResponse | Promise<SvcResponse> {
  const { handlers } = context;
  if (route?.kind === "island") {
    if (request.method === "OPTIONS") return preflight(context.allowed, request, "POST");
    if (request.method !== "POST") throw new MethodNotAllowedError(request.method, "POST");
    return islandResponse(handlers, request, decodeName(route.name));
  }
  if (route?.kind === "islands") {
    if (request.method === "OPTIONS") return preflight(context.allowed, request, "POST");
    if (request.method !== "POST") throw new MethodNotAllowedError(request.method, "POST");
    return batchResponse(handlers, request);
  }
  if (request.method === "OPTIONS") return preflight(context.allowed, request, "GET, HEAD");
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new MethodNotAllowedError(request.method, ALLOW);
  }

  switch (route?.kind) {
    case "bundle": {
      const name = decodeName(route.name);
      const started = performance.now();
      const ready = handlers.peekBundle?.(name);
      const readyVendor = ready === undefined ? undefined : vendorLinks(ready.code);
      if (ready !== undefined && !(readyVendor instanceof Promise)) {
        // Read from a socket, it is sent with the rest of its turn's answers once the poll
        // phase has read them all, as a bundle its watches vouch for is: that costs the server
        // less per request than a write in the middle of reading (the memory rows of
        // `npm run bench -- bridges`, docs/PERFORMANCE.md).
        if (request.readFromSocket === true) {
          return turnEnd().then(() => bundleResponse(request, ready, readyVendor, started));
        }
        return bundleResponse(request, ready, readyVendor, started);
      }
      const options = request.readFromSocket === true ? FROM_SOCKET : undefined;
      // No async function: a warm bundle's links are known, and each await is a microtask.
      return handlers.getBundle(name, options).then((bundle) => {
        const vendor = vendorLinks(bundle.code);
        return vendor instanceof Promise
          ? vendor.then((links) => bundleResponse(request, bundle, links, started))
          : bundleResponse(request, bundle, vendor, started);
      });
    }
    case "stylesheet": {
      const name = decodeName(route.name);
      if (handlers.getStylesheet === undefined) throw noStylesheets(path);
      return handlers.getStylesheet(name).then((sheet) => stylesheetResponse(request, sheet));
    }
    case "file":
      return bundleFileResponse(handlers, request, route.path);
    case "list":
      return handlers
        .listBundles()
        .then((list) => conditional(request, json(200, list, { "cache-control": "no-cache" })));
    case "metadata":
      return handlers
        .getMetadata(decodeName(route.name))
        .then((metadata) =>
          conditional(request, json(200, metadata, { "cache-control": "no-cache" })),
        );
    case "loader":
      return context.loaders[route.file]().then((file) =>
        conditional(request, {
          status: 200,
          headers: { "content-type": JS_TYPE, "cache-control": "no-cache", etag: file.etag },
          body: file.body,
        }),
      );
    case "esmLoader":
      // For import-map pages, whose map names every vendor module.
      return completeVendorModules().then(({ loader }) => {
        if (loader === undefined) throw new LoaderMissingError();
        return conditional(request, {
          status: 200,
          headers: {
            "content-type": JS_TYPE,
            "cache-control": "no-cache",
            etag: `"${loader.hash}"`,
          },
          body: loader.body,
        });
      });
    case "vendor":
      // The import map's modules: content-hashed names, so each URL is one version for good.
      // A name no build could have written is answered without building anything.
      if (!/^[a-z0-9-]+\.[0-9a-f]{12}\.js$/.test(route.file)) {
        throw new NotFoundError(`No vendor module at ${truncate(`${VENDOR_PATH}${route.file}`)}.`);
      }
      return vendorModules().then(({ modules }) => {
        const file = [...modules.values()].find((m) => m.file === `${VENDOR_DIR}/${route.file}`);
        if (file === undefined) {
          throw new NotFoundError(
            `No vendor module at ${truncate(`${VENDOR_PATH}${route.file}`)}.`,
          );
        }
        return conditional(request, {
          status: 200,
          headers: { "content-type": JS_TYPE, "cache-control": IMMUTABLE, etag: `"${file.hash}"` },
          body: file.body,
        });
      });
    case "events": {
      // Live reload is off here (production, static mode, `live: false`): 204 is what tells an
      // `EventSource` to stop reconnecting (HTML's server-sent events), so a page left with
      // `data-svc-live` or `<SvcProvider live>` stops at once, with nothing in its console.
      if (context.events === undefined) {
        return { status: 204, headers: { "cache-control": "no-store" }, body: null };
      }
      // A `HEAD` (what a client that lost the stream asks: is one served here?) subscribes
      // to nothing, so it starts no watching and takes no place.
      const body = request.method === "HEAD" ? null : context.events.open(request.signal);
      if (body === undefined) {
        throw new OverloadedError(
          `${context.events.max} clients follow the live-reload stream already`,
          EVENTS_RETRY_AFTER,
        );
      }
      return {
        status: 200,
        headers: {
          "content-type": "text/event-stream; charset=utf-8",
          "cache-control": "no-cache, no-transform",
          "x-accel-buffering": "no",
        },
        body,
      };
    }
    case "static":
      return staticResponse(handlers, request, route.path);
    case "health":
      return healthResponse(handlers);
    default:
      throw new NotFoundError(`No svc endpoint at ${truncate(path)}.`);
  }
}

function preflight(
  allowed: ReadonlySet<string>,
  request: SvcRequest,
  methods: string,
): SvcResponse {
  const cors = corsFor(allowed, request.header("origin"));
  return {
    status: 204,
    headers: {
      allow: `${methods}, OPTIONS`,
      ...(cors["access-control-allow-origin"] === undefined
        ? {}
        : {
            "access-control-allow-methods": methods,
            "access-control-allow-headers": request.header("access-control-request-headers") ?? "*",
            "access-control-max-age": "600",
          }),
    },
    body: null,
  };
}

/**
 * Readiness: 200 with `{ "status": "ready" }` once the handler set can answer everything (its
 * render workers up); 503 with `Retry-After` and the reason while they start, or once it
 * shuts down — so a load balancer sends it nothing then. Never cached.
 */
function healthResponse(handlers: Handlers): SvcResponse {
  const health = handlers.health?.() ?? { ready: true };
  const { ready, reason, render } = health;
  const body = ready
    ? { status: "ready", ...(render === undefined ? {} : { render }) }
    : { status: "unavailable", reason, ...(render === undefined ? {} : { render }) };
  const headers: Record<string, string> = { "cache-control": "no-store" };
  if (!ready) headers["retry-after"] = "1";
  return json(ready ? 200 : 503, body, headers);
}

/**
 * A bundle: `immutable` only for the URL that names this very version (`?<its hash>`), so no
 * browser can pin old code; any other URL (no query, an older hash) revalidates by ETag.
 * `&url` asks for the form imported by URL: without its stylesheet imports.
 */
function bundleResponse(
  request: SvcRequest,
  bundle: BundleResult,
  /** The vendor files `loader.js` fetches alongside (`vendorLinks`). */
  vendor: string | undefined,
  /** When the request began (`performance.now()`), for `Server-Timing`. */
  started: number,
): SvcResponse {
  const { version, variant } = parseBundleQuery(queryOf(request.url));
  const headers: Record<string, string> = {
    "content-type": JS_TYPE,
    "cache-control": version === bundle.hash ? IMMUTABLE : "no-cache",
    etag: variant === undefined ? `"${bundle.hash}"` : `"${bundle.hash}-${variant}"`,
    // What the answer cost, as browsers' dev tools show it: from the cache, or built for it.
    "server-timing": `cache;desc=${bundle.built === true ? "miss" : "hit"}, bundle;dur=${(performance.now() - started).toFixed(1)}`,
  };
  instruments().bundleRequests.add(1, { "svc.cache": bundle.built === true ? "miss" : "hit" });
  const links = [
    bundle.preload !== undefined && bundle.preload.length > 0 ? preloadLinks(bundle.preload) : "",
    vendor ?? "",
  ].filter((link) => link !== "");
  if (links.length > 0) headers.link = links.join(", ");
  const body = variant === undefined ? bundle.code : urlVariantOf(bundle);
  return conditional(request, { status: 200, headers, body });
}

/** The `?url` form of each bundle's bytes, made once per bundle (by its bytes). */
const urlVariants = new WeakMap<Uint8Array, Uint8Array>();

function urlVariantOf(bundle: BundleResult): Uint8Array {
  let variant = urlVariants.get(bundle.code);
  if (variant === undefined) {
    const paths = (bundle.stylesheets ?? []).map((sheet) => sheet.path);
    variant = withoutStylesheetImports(bundle.code, paths);
    urlVariants.set(bundle.code, variant);
  }
  return variant;
}

/**
 * The `Link` header of a bundle that asks for other components: one `rel=modulepreload` per
 * component, relative to the bundle's own URL (`./image.js?<hash>`), so it holds under any
 * mount prefix or proxy path without knowing it.
 */
function preloadLinks(preload: readonly Preload[]): string {
  return preload
    .map(
      ({ name, hash }) => `<.${bundlePath(name, hash).slice(LIST_PATH.length)}>; rel=modulepreload`,
    )
    .join(", ");
}

/** A component's whole stylesheet: cached like its bundle (`immutable` only for `?<its hash>`). */
function stylesheetResponse(request: SvcRequest, sheet: StylesheetResult): SvcResponse {
  const cacheControl = queryOf(request.url) === sheet.hash ? IMMUTABLE : "no-cache";
  return conditional(request, {
    status: 200,
    headers: {
      "content-type": STYLESHEET_TYPE,
      "cache-control": cacheControl,
      etag: `"${sheet.hash}"`,
    },
    body: sheet.code,
  });
}

/** A stylesheet or asset of a bundle: its name is its content, so it is immutable. */
async function bundleFileResponse(
  handlers: Handlers,
  request: SvcRequest,
  raw: string,
): Promise<SvcResponse> {
  const path = decodeStaticPath(raw);
  const slash = path?.lastIndexOf("/") ?? -1;
  const name = path?.slice(slash + 1) ?? "";
  const valid =
    path !== undefined &&
    (slash === -1
      ? STYLESHEET_NAME.test(name)
      : path.slice(0, slash) === "assets" && ASSET_NAME.test(name));
  const file = valid ? await handlers.getBundleFile?.(path) : undefined;
  if (file === undefined) {
    throw new NotFoundError(
      `No stylesheet or asset at ${truncate(`/bundles/${raw}`)}: the server holds those of the bundles it built or read lately — load the component's bundle again.`,
    );
  }
  return conditional(request, {
    status: 200,
    headers: {
      "content-type": file.contentType,
      "cache-control": IMMUTABLE,
      etag: `"${createHash("sha1").update(raw).digest("base64url").slice(0, 16)}"`,
      ...file.headers,
    },
    body: file.body,
  });
}

function noStylesheets(path: string): NotFoundError {
  return new NotFoundError(
    `No svc endpoint at ${truncate(path)}: this handler set serves no stylesheets.`,
  );
}

async function staticResponse(
  handlers: Handlers,
  request: SvcRequest,
  raw: string,
): Promise<SvcResponse> {
  const relative = decodeStaticPath(raw);
  const file = relative === undefined ? undefined : await handlers.getStaticFile?.(relative);
  if (file === undefined) {
    throw new NotFoundError(`No static file at ${truncate(`${STATIC_PATH}${raw}`)}.`);
  }
  return conditional(request, {
    status: 200,
    headers: {
      "content-type": file.contentType,
      "cache-control": file.cacheControl,
      etag: file.etag,
      ...file.headers,
    },
    body: file.body,
  });
}

interface LoadedFile {
  body: Uint8Array;
  etag: string;
}

/**
 * A loader script, read on first use and kept (it only changes when svc is upgraded). A
 * failed read is not kept, so building `@svc/loader` later needs no restart.
 */
function createLoaderFile(path: string | undefined): () => Promise<LoadedFile> {
  let loaded: Promise<LoadedFile> | undefined;
  async function read(): Promise<LoadedFile> {
    if (path === undefined) throw new LoaderMissingError();
    let body: Uint8Array;
    try {
      body = new Uint8Array(await readFile(path));
    } catch (error) {
      throw new LoaderMissingError({ cause: error });
    }
    const etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`;
    return { body, etag };
  }
  return () => {
    loaded ??= read().catch((error: unknown) => {
      loaded = undefined;
      throw error;
    });
    return loaded;
  };
}

class LoaderMissingError extends NotFoundError {
  constructor(options?: ErrorOptions) {
    super(
      "The svc loader script is not available: install @svc/loader and build it (npm run build).",
      options,
    );
  }
}

/**
 * The decoded path below `/static/`, or undefined for anything that could leave the build
 * directory or is not a plain relative path: empty, `.` or `..` segments (also encoded),
 * backslashes, encoded slashes, NUL bytes, undecodable escapes.
 */
function decodeStaticPath(raw: string): string | undefined {
  if (raw === "" || raw.length > 1024) return undefined;
  const segments: string[] = [];
  for (const encoded of raw.split("/")) {
    let segment: string;
    try {
      segment = decodeURIComponent(encoded);
    } catch {
      return undefined;
    }
    if (segment === "" || segment === "." || segment === ".." || /[/\\\0]/.test(segment)) {
      return undefined;
    }
    segments.push(segment);
  }
  return segments.join("/");
}

/**
 * The name in a path, percent-decoded once and checked: the one place a name from a request
 * becomes a {@link ComponentName}. Anything undecodable or malformed is an invalid name.
 */
function decodeName(raw: string): ComponentName {
  // Longer than any valid name can be, even fully percent-encoded: refused before decoding.
  if (raw.length > MAX_NAME_LENGTH * 3) throw new InvalidComponentNameError(raw);
  if (!raw.includes("%")) return parseComponentName(raw);
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new InvalidComponentNameError(raw, "its percent-encoding does not decode");
  }
  return parseComponentName(decoded);
}

function json(
  status: number,
  value: unknown,
  headers: Record<string, string> = {},
): SvcResponse & { body: string } {
  return {
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
    body: JSON.stringify(value),
  };
}

/** Adds an ETag (when missing) and answers 304 when the client already has this version. */
function conditional(
  request: SvcRequest,
  response: SvcResponse & { body: Uint8Array | string },
): SvcResponse {
  const etag =
    response.headers.etag ??
    `"${createHash("sha1").update(response.body).digest("base64url").slice(0, 16)}"`;
  response.headers.etag = etag;
  if (matchesEtag(request.header("if-none-match"), etag)) {
    const { "content-type": _type, ...headers } = response.headers;
    return { status: 304, headers, body: null };
  }
  return response;
}

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (header === undefined) return false;
  if (header.trim() === "*") return true;
  return header.split(",").some((candidate) => {
    const tag = candidate.trim();
    return (tag.startsWith("W/") ? tag.slice(2) : tag) === etag;
  });
}

function corsFor(allowed: ReadonlySet<string>, origin: string | undefined): Record<string, string> {
  if (allowed.size === 0) return {};
  // A bundle's `Link` header names what the client fetches alongside it (preloading).
  const expose = { "access-control-expose-headers": "Link" };
  if (allowed.has("*")) return { "access-control-allow-origin": "*", ...expose };
  if (origin === undefined || !allowed.has(origin)) return { vary: "Origin" };
  return { "access-control-allow-origin": origin, vary: "Origin", ...expose };
}

function queryOf(url: string): string | undefined {
  const q = url.indexOf("?");
  return q === -1 ? undefined : url.slice(q + 1);
}

function stripQuery(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

function truncate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
