/**
 * What every answer's headers are made of, written once: content types, the cache-control
 * table, JSON bodies, and conditional answers (ETag, 304).
 */
import { etagOfBytes } from "../util/contentHash.ts";
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";

export const JS_TYPE = "application/javascript; charset=utf-8";
export const JSON_TYPE = "application/json; charset=utf-8";
export const HTML_TYPE = "text/html; charset=utf-8";

/**
 * Cache-Control, by what an answer is: `immutable` for a URL that names its content (a hash in
 * the URL), `revalidate` for what may change (asked again with its ETag), `never` for what
 * must not be kept (errors, renders, health).
 */
export const CACHE = {
  immutable: "public, max-age=31536000, immutable",
  revalidate: "no-cache",
  never: "no-store",
} as const;

export function json(
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
export function conditional(
  request: SvcRequest,
  response: SvcResponse & { body: Uint8Array | string },
): SvcResponse {
  const etag = response.headers.etag ?? etagOfBytes(response.body);
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
