import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import { type ComponentName, parseComponentName } from "../components/names.ts";
import {
  InvalidComponentNameError,
  isSvcError,
  MethodNotAllowedError,
  NotFoundError,
  toErrorResponse,
} from "../errors.ts";
import {
  type BundleResult,
  type HandlerOptions,
  type Handlers,
  resolveHandlers,
} from "./handlers.ts";
import { loaderScriptPath } from "./loaderScript.ts";

/** A request as the core sees it; every transport builds one. */
export interface SvcRequest {
  method: string;
  /** Raw (still percent-encoded) path below the mount point, with or without the query. */
  url: string;
  /** Reads a request header (case-insensitive name); undefined when absent. */
  header(name: string): string | undefined;
}

/** A response as the core decides it; every transport writes it back verbatim. */
export interface SvcResponse {
  status: number;
  headers: Record<string, string>;
  body: Uint8Array | string | null;
}

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
}

/** What every framework bridge accepts: the handler-set options plus the HTTP ones. */
export interface BridgeOptions extends HandlerOptions, RequestHandlerOptions {}

/**
 * Answers one request. A warm bundle is answered synchronously (no promise, no microtask:
 * the hot path of every transport); everything else as a native `Promise`, which never
 * rejects (errors are answered). `await` works on both.
 */
export type RequestHandler = (request: SvcRequest) => SvcResponse | Promise<SvcResponse>;

const JS_TYPE = "application/javascript; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
const IMMUTABLE = "public, max-age=31536000, immutable";

type Route =
  | { kind: "list" }
  | { kind: "bundle"; name: string }
  | { kind: "metadata"; name: string }
  | { kind: "loader" }
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
    if (rest.endsWith(".js")) return { kind: "bundle", name: rest.slice(0, -3) };
    return undefined;
  }
  if (path === "/loader.js") return { kind: "loader" };
  if (path.startsWith("/static/")) return { kind: "static", path: path.slice("/static/".length) };
  return undefined;
}

/**
 * A request handler for a bridge: builds the handler set once (unless given one) and the
 * request handler once; the bridge then only translates requests and responses.
 */
export function createBridgeHandler(
  source: ComponentRegistry | Handlers,
  options: BridgeOptions = {},
): RequestHandler {
  return createRequestHandler(resolveHandlers(source, options), options);
}

/**
 * Routes the GET endpoints to the handler set and decides every status and header. Paths
 * are relative to wherever the transport mounts it (`/bundles`, `/bundles/x.js`, …).
 */
export function createRequestHandler(
  handlers: Handlers,
  options: RequestHandlerOptions = {},
): RequestHandler {
  const allowed = new Set(options.cors?.origins ?? []);
  const loader = createLoaderFile(options.loaderScript ?? loaderScriptPath);

  function fail(error: unknown): SvcResponse {
    const { status, body } = toErrorResponse(error);
    if (!isSvcError(error)) handlers.logger.error("svc: unexpected error", error);
    const headers: Record<string, string> = { "cache-control": "no-store" };
    if (error instanceof MethodNotAllowedError) headers.allow = error.allow;
    return json(status, body, headers);
  }

  function finish(request: SvcRequest, response: SvcResponse): SvcResponse {
    if (allowed.size > 0)
      Object.assign(response.headers, corsFor(allowed, request.header("origin")));
    // Bundles and JSON must never be sniffed into another type (e.g. HTML) by a browser.
    response.headers["x-content-type-options"] = "nosniff";
    if (request.method === "HEAD") response.body = null;
    return response;
  }

  return function handle(request) {
    let result: SvcResponse | Promise<SvcResponse>;
    try {
      result = respond(handlers, loader, request, allowed);
    } catch (error) {
      result = fail(error);
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (response) => finish(request, response),
        (error: unknown) => finish(request, fail(error)),
      );
    }
    return finish(request, result);
  };
}

/**
 * The answer for a request outside the mount prefix, for transports that are the whole server
 * (the node and fetch handlers without `next`): the same 404 body as every other.
 */
export function outsidePrefix(url: string): SvcResponse {
  const { status, body } = toErrorResponse(
    new NotFoundError(`No svc endpoint at ${truncate(stripQuery(url))}.`),
  );
  return json(status, body, { "cache-control": "no-store", "x-content-type-options": "nosniff" });
}

/** Whether an answer is still to come (any thenable: a handler set may bring its own). */
function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T>).then === "function";
}

/** The response to `request`: synchronously for a warm bundle, else a promise. */
function respond(
  handlers: Handlers,
  loader: () => Promise<LoadedFile>,
  request: SvcRequest,
  allowed: ReadonlySet<string>,
): SvcResponse | Promise<SvcResponse> {
  const path = stripQuery(request.url);
  if (request.method === "OPTIONS") {
    const cors = corsFor(allowed, request.header("origin"));
    return {
      status: 204,
      headers: {
        allow: "GET, HEAD, OPTIONS",
        ...(cors["access-control-allow-origin"] === undefined
          ? {}
          : {
              "access-control-allow-methods": "GET, HEAD",
              "access-control-allow-headers":
                request.header("access-control-request-headers") ?? "*",
              "access-control-max-age": "600",
            }),
      },
      body: null,
    };
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    throw new MethodNotAllowedError(request.method, "GET, HEAD, OPTIONS");
  }

  const route = routeOf(path);
  switch (route?.kind) {
    case "bundle": {
      const name = decodeName(route.name);
      const ready = handlers.peekBundle?.(name);
      if (ready !== undefined) return bundleResponse(request, ready);
      return handlers.getBundle(name).then((bundle) => bundleResponse(request, bundle));
    }
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
      return loader().then((file) =>
        conditional(request, {
          status: 200,
          headers: { "content-type": JS_TYPE, "cache-control": "no-cache", etag: file.etag },
          body: file.body,
        }),
      );
    case "static":
      return staticResponse(handlers, request, route.path);
    default:
      throw new NotFoundError(`No svc endpoint at ${truncate(path)}.`);
  }
}

function bundleResponse(request: SvcRequest, bundle: BundleResult): SvcResponse {
  return conditional(request, {
    status: 200,
    headers: { "content-type": JS_TYPE, "cache-control": IMMUTABLE, etag: `"${bundle.hash}"` },
    body: bundle.code,
  });
}

async function staticResponse(
  handlers: Handlers,
  request: SvcRequest,
  raw: string,
): Promise<SvcResponse> {
  const relative = decodeStaticPath(raw);
  const file = relative === undefined ? undefined : await handlers.getStaticFile?.(relative);
  if (file === undefined) {
    throw new NotFoundError(`No static file at ${truncate(`/static/${raw}`)}.`);
  }
  return conditional(request, {
    status: 200,
    headers: {
      "content-type": file.contentType,
      "cache-control": file.cacheControl,
      etag: file.etag,
    },
    body: file.body,
  });
}

interface LoadedFile {
  body: Uint8Array;
  etag: string;
}

/**
 * The loader script, read on first use and kept (it only changes when svc is upgraded). A
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
  if (!raw.includes("%")) return parseComponentName(raw);
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new InvalidComponentNameError(raw, "its percent-encoding does not decode");
  }
  return parseComponentName(decoded);
}

function json(status: number, value: unknown, headers: Record<string, string> = {}): SvcResponse {
  return {
    status,
    headers: { "content-type": JSON_TYPE, ...headers },
    body: JSON.stringify(value),
  };
}

/** Adds an ETag (when missing) and answers 304 when the client already has this version. */
function conditional(request: SvcRequest, response: SvcResponse): SvcResponse {
  const etag =
    response.headers.etag ??
    `"${createHash("sha1")
      .update(response.body ?? "")
      .digest("base64url")
      .slice(0, 16)}"`;
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
  if (allowed.has("*")) return { "access-control-allow-origin": "*" };
  if (origin === undefined || !allowed.has(origin)) return { vary: "Origin" };
  return { "access-control-allow-origin": origin, vary: "Origin" };
}

function stripQuery(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

function truncate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}
