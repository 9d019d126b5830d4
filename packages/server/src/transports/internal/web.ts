/**
 * The translation between web-standard `Request`/`Response` and the core's request and
 * response, shared by the fetch handler and Hono. Internal: not part of the package's API.
 */
import type { IncomingHttpHeaders } from "node:http";
import type { RequestBody, SvcRequest, SvcResponse } from "../../http/requestHandler.ts";

/**
 * Path and query of an absolute URL, as written. A `Request`'s URL has been through the
 * WHATWG URL parser already, which removes dot segments (`/a/../b`, also `%2e%2e`) and
 * re-encodes some characters, so this is what svc sees from any fetch-based runtime.
 */
export function pathOf(url: string): string {
  const start = url.indexOf("/", url.indexOf("//") + 2);
  if (start === -1) return "/";
  const hash = url.indexOf("#", start);
  return hash === -1 ? url.slice(start) : url.slice(start, hash);
}

/**
 * The core's view of a web-standard request whose path below the mount point is `url`.
 * `nodeHeaders`: the Node request's headers when the runtime has them (`@hono/node-server`
 * passes its `IncomingMessage` in `c.env.incoming`): its lazy `Request` builds a `Headers`
 * on first use, a cost per request that svc need not make it pay.
 */
export function fromWebRequest(
  request: Request,
  url: string,
  nodeHeaders?: IncomingHttpHeaders,
): SvcRequest {
  return new WebRequest(request, url, nodeHeaders);
}

/** One object per request; the signal and the headers are asked of the request on first use. */
class WebRequest implements SvcRequest {
  readonly method: string;
  readonly url: string;
  readonly #request: Request;
  readonly #nodeHeaders: IncomingHttpHeaders | undefined;

  constructor(request: Request, url: string, nodeHeaders: IncomingHttpHeaders | undefined) {
    this.method = request.method;
    this.url = url;
    this.#request = request;
    this.#nodeHeaders = nodeHeaders;
  }

  header(name: string): string | undefined {
    if (this.#nodeHeaders === undefined) return this.#request.headers.get(name) ?? undefined;
    const value = this.#nodeHeaders[name];
    return Array.isArray(value) ? value.join(", ") : value;
  }

  get signal(): AbortSignal {
    return this.#request.signal;
  }

  body(limit: number): Promise<RequestBody> {
    return readBody(this.#request, limit);
  }
}

/** The body of a web request, read up to `limit` bytes. */
async function readBody(request: Request, limit: number): Promise<RequestBody> {
  if (Number(request.headers.get("content-length")) > limit) return { tooLarge: true };
  if (request.body === null) return { bytes: new Uint8Array() };
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      void reader.cancel();
      return { tooLarge: true };
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return { bytes };
}

export function toWebResponse(response: SvcResponse): Response {
  return new Response(response.body as ConstructorParameters<typeof Response>[0], {
    status: response.status,
    headers: response.headers,
  });
}
