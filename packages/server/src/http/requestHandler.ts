import { parseRoute, type Route, routeTemplate } from "@svc/protocol";
import { createRefreshRuntimeFile } from "../bundling/refreshRuntime.ts";
import { vendorLinks } from "../bundling/vendorModules.ts";
import {
  HostNotAllowedError,
  isSvcError,
  MethodNotAllowedError,
  NotFoundError,
  OverloadedError,
  toErrorResponse,
} from "../errors.ts";
import type { Handlers } from "../service/handlerTypes.ts";
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
  loaderLivePath,
  loaderScriptPath,
} from "../util/loaderFiles.ts";
import { turnEnd } from "../util/loopTurn.ts";
import { andThen } from "../util/maybePromise.ts";
import {
  bundleFileResponse,
  bundleResponse,
  noStylesheets,
  stylesheetResponse,
} from "./bundleRoutes.ts";
import { type CorsOptions, corsFor, preflight } from "./cors.ts";
import { EventStreams, eventsResponse, type LiveSource } from "./eventStream.ts";
import {
  createLoaderFile,
  esmLoaderResponse,
  type LoadedFile,
  staticResponse,
  vendorResponse,
} from "./fileRoutes.ts";
import { CACHE, conditional, JS_TYPE, json } from "./headers.ts";
import { isHostAllowed } from "./hostCheck.ts";
import { batchResponse, islandResponse } from "./islandRoutes.ts";
import { decodeName, isThenable, stripQuery, truncate } from "./paths.ts";
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";

export type { CorsOptions } from "./cors.ts";
export { MAX_BODY_BYTES } from "./islandRoutes.ts";
export type { RequestBody, SvcRequest, SvcResponse } from "./svcRequest.ts";

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
   * File served at `<mount>/loader.extras.js`, which the loader fetches for islands. Default:
   * `@svc/loader`'s ({@link loaderExtrasPath}).
   */
  loaderExtras?: string;
  /**
   * File served at `<mount>/loader.live.js`, which the loader fetches for live reload (and its
   * error overlay). Default: `@svc/loader`'s ({@link loaderLivePath}).
   */
  loaderLive?: string;
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

const ALLOW = "GET, HEAD, OPTIONS";

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
    live: createLoaderFile(options.loaderLive ?? loaderLivePath),
    islands: createLoaderFile(options.islandsScript ?? islandsScriptPath),
    // Development: React's Fast Refresh runtime for the page (see `refreshRuntime.ts`).
    refresh: createRefreshRuntimeFile(),
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
    const route = parseRoute(path);
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
    "cache-control": CACHE.never,
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

interface Context {
  handlers: Handlers;
  loaders: Record<
    "production" | "development" | "extras" | "live" | "islands" | "refresh",
    () => Promise<LoadedFile>
  >;
  allowed: ReadonlySet<string>;
  events: EventStreams | undefined;
}

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
        return andThen(vendor, (links) => bundleResponse(request, bundle, links, started));
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
        .then((list) =>
          conditional(request, json(200, list, { "cache-control": CACHE.revalidate })),
        );
    case "metadata":
      return handlers
        .getMetadata(decodeName(route.name))
        .then((metadata) =>
          conditional(request, json(200, metadata, { "cache-control": CACHE.revalidate })),
        );
    case "loader":
      return context.loaders[route.file]().then((file) =>
        conditional(request, {
          status: 200,
          headers: { "content-type": JS_TYPE, "cache-control": CACHE.revalidate, etag: file.etag },
          body: file.body,
        }),
      );
    case "esmLoader":
      return esmLoaderResponse(request);
    case "vendor":
      return vendorResponse(request, route.file);
    case "events":
      return eventsResponse(context.events, request);
    case "static":
      return staticResponse(handlers, request, route.path);
    case "health":
      return healthResponse(handlers);
    default:
      throw new NotFoundError(`No svc endpoint at ${truncate(path)}.`);
  }
}

function healthResponse(handlers: Handlers): SvcResponse {
  const health = handlers.health?.() ?? { ready: true };
  const { ready, reason, render } = health;
  const body = ready
    ? { status: "ready", ...(render === undefined ? {} : { render }) }
    : { status: "unavailable", reason, ...(render === undefined ? {} : { render }) };
  const headers: Record<string, string> = { "cache-control": CACHE.never };
  if (!ready) headers["retry-after"] = "1";
  return json(ready ? 200 : 503, body, headers);
}

/**
 * A bundle: `immutable` only for the URL that names this very version (`?<its hash>`), so no
 * browser can pin old code; any other URL (no query, an older hash) revalidates by ETag.
 * `&url` asks for the form imported by URL: without its stylesheet imports.
 */
