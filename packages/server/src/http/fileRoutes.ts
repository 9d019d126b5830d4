/** The loader scripts and the import map's vendor modules, and the build's static files. */
import { readFile } from "node:fs/promises";
import { etagOf, STATIC_PATH, VENDOR_FILE, VENDOR_PATH } from "@svc/protocol";
import { completeVendorModules, VENDOR_DIR, vendorModules } from "../bundling/vendorModules.ts";
import { NotFoundError } from "../errors.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { etagOfBytes } from "../util/contentHash.ts";
import { CACHE, conditional, JS_TYPE } from "./headers.ts";
import { truncate } from "./paths.ts";
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";
export async function staticResponse(
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

export interface LoadedFile {
  body: Uint8Array;
  etag: string;
}

/**
 * A loader script, read on first use and kept (it only changes when svc is upgraded). A
 * failed read is not kept, so building `@svc/loader` later needs no restart.
 */
export function createLoaderFile(path: string | undefined): () => Promise<LoadedFile> {
  let loaded: Promise<LoadedFile> | undefined;
  async function read(): Promise<LoadedFile> {
    if (path === undefined) throw new LoaderMissingError();
    let body: Uint8Array;
    try {
      body = new Uint8Array(await readFile(path));
    } catch (error) {
      throw new LoaderMissingError({ cause: error });
    }
    const etag = etagOfBytes(body);
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

export class LoaderMissingError extends NotFoundError {
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
export function decodeStaticPath(raw: string): string | undefined {
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

/** `loader.esm.js`, for import-map pages, whose map names every vendor module. */
export function esmLoaderResponse(request: SvcRequest): Promise<SvcResponse> {
  // For import-map pages, whose map names every vendor module.
  return completeVendorModules().then(({ loader }) => {
    if (loader === undefined) throw new LoaderMissingError();
    return conditional(request, {
      status: 200,
      headers: {
        "content-type": JS_TYPE,
        "cache-control": CACHE.revalidate,
        etag: etagOf(loader.hash),
      },
      body: loader.body,
    });
  });
}

/**
 * A module of the import map: content-hashed names, so each URL is one version for good. A
 * name no build could have written is answered without building anything.
 */
export function vendorResponse(request: SvcRequest, name: string): Promise<SvcResponse> {
  // The import map's modules: content-hashed names, so each URL is one version for good.
  // A name no build could have written is answered without building anything.
  if (!VENDOR_FILE.test(name)) {
    throw new NotFoundError(`No vendor module at ${truncate(`${VENDOR_PATH}${name}`)}.`);
  }
  return vendorModules().then(({ modules }) => {
    const file = [...modules.values()].find((m) => m.file === `${VENDOR_DIR}/${name}`);
    if (file === undefined) {
      throw new NotFoundError(`No vendor module at ${truncate(`${VENDOR_PATH}${name}`)}.`);
    }
    return conditional(request, {
      status: 200,
      headers: {
        "content-type": JS_TYPE,
        "cache-control": CACHE.immutable,
        etag: etagOf(file.hash),
      },
      body: file.body,
    });
  });
}
