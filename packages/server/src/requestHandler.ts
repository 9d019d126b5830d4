import { createHash } from "node:crypto";
import { InvalidComponentNameError, SvcError, toErrorResponse } from "./errors.ts";
import type { Handlers } from "./handlers.ts";
import { MAX_NAME_LENGTH } from "./names.ts";

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
}

export type RequestHandler = (request: SvcRequest) => Promise<SvcResponse>;

const JS_TYPE = "application/javascript; charset=utf-8";
const JSON_TYPE = "application/json; charset=utf-8";
const IMMUTABLE = "public, max-age=31536000, immutable";

/**
 * Routes the three GET endpoints to the handler set and decides every status and header.
 * Paths are relative to wherever the transport mounts it (`/bundles`, `/bundles/x.js`, …).
 */
export function createRequestHandler(
  handlers: Handlers,
  options: RequestHandlerOptions = {},
): RequestHandler {
  const allowed = new Set(options.cors?.origins ?? []);

  return async function handle(request) {
    const corsHeaders = corsFor(allowed, request.header("origin"));
    let response: SvcResponse;
    try {
      response = await route(handlers, request, corsHeaders);
    } catch (error) {
      const { status, body } = toErrorResponse(error);
      if (!(error instanceof SvcError)) handlers.logger.error("svc: unexpected error", error);
      response = json(status, body, { "cache-control": "no-store" });
    }
    Object.assign(response.headers, corsHeaders);
    if (request.method === "HEAD") response.body = null;
    return response;
  };
}

async function route(
  handlers: Handlers,
  request: SvcRequest,
  corsHeaders: Record<string, string>,
): Promise<SvcResponse> {
  const path = stripQuery(request.url);
  if (request.method === "OPTIONS") {
    return {
      status: 204,
      headers: {
        allow: "GET, HEAD, OPTIONS",
        ...(corsHeaders["access-control-allow-origin"] === undefined
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
    return json(
      405,
      { error: "MethodNotAllowed", message: `${request.method} is not allowed; use GET.` },
      { allow: "GET, HEAD, OPTIONS" },
    );
  }

  if (path === "/bundles" || path === "/bundles/") {
    const list = await handlers.listBundles();
    return conditional(request, json(200, list, { "cache-control": "no-cache" }));
  }
  if (path.startsWith("/bundles/")) {
    const rest = path.slice("/bundles/".length);
    if (rest.endsWith("/metadata")) {
      const name = decodeName(rest.slice(0, -"/metadata".length));
      const metadata = await handlers.getMetadata(name);
      return conditional(request, json(200, metadata, { "cache-control": "no-cache" }));
    }
    if (rest.endsWith(".js")) {
      const bundle = await handlers.getBundle(decodeName(rest.slice(0, -".js".length)));
      return conditional(request, {
        status: 200,
        headers: {
          "content-type": JS_TYPE,
          "cache-control": IMMUTABLE,
          etag: `"${bundle.hash}"`,
        },
        body: bundle.code,
      });
    }
  }
  return json(404, { error: "NotFound", message: `No svc endpoint at ${truncate(path)}.` });
}

/** Percent-decodes a name taken from the path; anything undecodable is an invalid name. */
function decodeName(raw: string): string {
  if (raw.length > MAX_NAME_LENGTH * 3) throw new InvalidComponentNameError(raw);
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new InvalidComponentNameError(raw);
  }
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
