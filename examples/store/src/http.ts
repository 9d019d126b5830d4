import { createHash } from "node:crypto";
import type { IncomingMessage, Server } from "node:http";
import type { AddressInfo } from "node:net";
import { Readable } from "node:stream";

/**
 * A request as the store reads it: Node's `IncomingMessage` (Express, Fastify's `request.raw`,
 * Koa's `ctx.req`, NestJS on Express) or a web `Request` (Hono). The store only reads its
 * headers and, for form posts, its body.
 */
export type IncomingRequest = IncomingMessage | Request;

/** An answer of the store; each app writes it with its framework's own response API. */
export interface StoreResponse {
  status: number;
  headers: Record<string, string>;
  /** Null for no body (redirects, 304). */
  body: string | Uint8Array | null;
}

/** Upper bound on a form post's body; bigger posts are refused before they are parsed. */
export const MAX_FORM_BYTES = 16 * 1024 * 1024;

/** A form body larger than {@link MAX_FORM_BYTES}. */
export class FormTooLargeError extends Error {
  override name = "FormTooLargeError";
}

/** A body that is not a readable form (wrong content type, broken multipart). */
export class FormUnreadableError extends Error {
  override name = "FormUnreadableError";
}

export function headerOf(request: IncomingRequest, name: string): string | undefined {
  if (request instanceof Request) return request.headers.get(name) ?? undefined;
  const value = request.headers[name.toLowerCase()];
  return Array.isArray(value) ? value.join(", ") : value;
}

/**
 * The request's form (multipart or URL-encoded), parsed by the platform's own
 * `Response.formData()`. The body is counted while it streams in and cut off past `maxBytes`.
 * @throws FormTooLargeError, FormUnreadableError
 */
export async function readForm(
  request: IncomingRequest,
  maxBytes = MAX_FORM_BYTES,
): Promise<FormData> {
  const type = headerOf(request, "content-type") ?? "";
  if (Number(headerOf(request, "content-length") ?? 0) > maxBytes) throw new FormTooLargeError();
  const source =
    request instanceof Request
      ? request.body
      : (Readable.toWeb(request) as ReadableStream<Uint8Array>);
  let total = 0;
  let tooLarge = false;
  const limited = source?.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        total += chunk.byteLength;
        if (total > maxBytes) {
          tooLarge = true;
          controller.error(new FormTooLargeError());
        } else controller.enqueue(chunk);
      },
    }),
  );
  try {
    return await new Response(limited ?? null, { headers: { "content-type": type } }).formData();
  } catch (error) {
    if (tooLarge) throw new FormTooLargeError();
    throw new FormUnreadableError((error as Error).message, { cause: error });
  }
}

/** Headers every page carries: a CSP strict enough that injected markup could not run. */
const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "cache-control": "no-store",
  // blob: lets the svc loader import bundles. Components' CSS is applied as constructable
  // stylesheets (fetched under connect-src), so styles need nothing inline either.
  "content-security-policy":
    "default-src 'self'; script-src 'self' blob:; style-src 'self'; " +
    "img-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'none'; " +
    "form-action 'self'; frame-ancestors 'none'",
  "x-content-type-options": "nosniff",
  "referrer-policy": "same-origin",
};

export function htmlResponse(
  status: number,
  body: string,
  headers: Record<string, string> = {},
): StoreResponse {
  return { status, headers: { ...PAGE_HEADERS, ...headers }, body };
}

export function jsonResponse(status: number, value: unknown): StoreResponse {
  return {
    status,
    headers: {
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    },
    body: JSON.stringify(value),
  };
}

/** 303: after a successful post, the browser GETs `location`. */
export function seeOther(location: string): StoreResponse {
  return { status: 303, headers: { location, "cache-control": "no-store" }, body: null };
}

/** A file answer with an ETag; `304` when the browser already has these bytes. */
export function fileResponse(
  request: IncomingRequest,
  body: Uint8Array,
  headers: Record<string, string>,
  etag = `"${createHash("sha256").update(body).digest("base64url").slice(0, 22)}"`,
): StoreResponse {
  const all = { ...headers, etag, "x-content-type-options": "nosniff" };
  const ifNoneMatch = headerOf(request, "if-none-match");
  if (ifNoneMatch?.split(",").some((tag) => tag.trim() === etag)) {
    return { status: 304, headers: all, body: null };
  }
  return { status: 200, headers: all, body };
}

/** The answer as a web `Response` (Hono and other fetch-style frameworks). */
export function toWebResponse({ status, headers, body }: StoreResponse): Response {
  return new Response(body as BodyInit | null, { status, headers });
}

/** A started example app, as `examples/run.ts` and the tests use it. */
export interface RunningApp {
  readonly url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Default 3000; 0 picks a free port. */
  port?: number;
  /** Default "127.0.0.1". */
  host?: string;
  /** No framework logging (tests). Default false. */
  quiet?: boolean;
}

/** Waits for a `node:http` server to listen and wraps it as a {@link RunningApp}. */
export async function runningApp(server: Server): Promise<RunningApp> {
  if (!server.listening) {
    await new Promise<void>((resolve, reject) => {
      server.once("listening", resolve);
      server.once("error", reject);
    });
  }
  const { address, port } = server.address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return {
    url: `http://${host}:${port}`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.close((error) => (error ? reject(error) : resolve()));
        server.closeAllConnections();
      }),
  };
}
