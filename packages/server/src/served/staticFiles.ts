import { readFile, realpath } from "node:fs/promises";
import { join, resolve } from "node:path";
import { LOADER_EXTRAS_FILE, MANIFEST_FILE, STYLESHEET_FILE, VENDOR_FILE } from "@svc/protocol";
import { LRUCache } from "lru-cache";
import { ASSET_NAME, ASSETS_DIR, fileTypeOf } from "../bundling/componentFiles.ts";
import { etagOfBytes } from "../util/contentHash.ts";
import { isInside } from "../util/paths.ts";

/** A file of a build directory, ready to send. */
export interface StaticFile {
  body: Uint8Array;
  contentType: string;
  /** `public, max-age=31536000, immutable` for bundles; `no-cache` for `manifest.json`. */
  cacheControl: string;
  /** A strong, quoted ETag. */
  etag: string;
  /** Further headers the file is sent with (SVG: a sandboxing Content-Security-Policy). */
  headers?: Record<string, string>;
}

/**
 * Sent with SVG files svc serves: opened on its own, an SVG is a document that could run
 * script on the origin serving it; this keeps it a picture.
 */
export const SVG_POLICY = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/** `Cache-Control` of hashed bundle files: their names change whenever their bytes do. */
export const IMMUTABLE_CACHE_CONTROL = "public, max-age=31536000, immutable";
/** `Cache-Control` of `manifest.json`: revalidated on every use, so a new build shows at once. */
export const MANIFEST_CACHE_CONTROL = "no-cache";

/**
 * Whether a build directory serves `path`: its manifest, the loader's `loader.extras.js`, the
 * vendor files it fetches on demand (`vendor/<stem>.<hash>.js`), its bundles, their stylesheets and
 * assets (`bundles/<name>-<hash>.css`, `bundles/assets/<name>-<hash>.<ext>`), and the
 * precompressed siblings of each. Anything else — dot files, `..`, other directories,
 * leftovers — is not served, whatever is on disk.
 */
export function isServablePath(path: string): boolean {
  if (isUnhashed(path)) return true;
  const plain = path.replace(/\.(?:gz|br)$/, "");
  if (BUNDLE_PATH.test(path)) return true;
  if (path.startsWith(VENDOR_PREFIX) && VENDOR_FILE.test(path.slice(VENDOR_PREFIX.length))) {
    return true;
  }
  if (plain.startsWith("bundles/") && STYLESHEET_FILE.test(plain.slice(8))) return true;
  const assets = `bundles/${ASSETS_DIR}/`;
  return plain.startsWith(assets) && ASSET_NAME.test(plain.slice(assets.length));
}

const BUNDLE_PATH = /^bundles\/[A-Za-z0-9_][A-Za-z0-9_.-]*\.js(?:\.gz|\.br)?$/;
/** Where the vendor files `loader.js` fetches on demand are: `vendor/<stem>.<hash>.js`. */
const VENDOR_PREFIX = "vendor/";

const CONTENT_TYPES: Record<string, string> = {
  ".json": "application/json; charset=utf-8",
  ".js": "application/javascript; charset=utf-8",
  ".gz": "application/gzip",
  ".br": "application/x-brotli",
};

export interface StaticFilesOptions {
  /** Upper bound on the bytes of bundle files kept in memory (LRU). Default: 64 MiB. */
  cacheMaxBytes?: number;
  /**
   * The bytes to serve as `manifest.json`, asked on every request. The handler set passes
   * those of the manifest its pre-built bundles use (`PrebuiltBundles.manifestBytes`), so a
   * manifest refused at run time is never served. Default: the file, read afresh each time.
   */
  manifest?: () => Uint8Array;
}

/** Reads files of a build directory for serving; see {@link createStaticFiles}. */
export interface StaticFiles {
  /** The build directory (absolute). */
  readonly dir: string;
  /**
   * The file at `path` (decoded, relative to the build directory), or undefined when it is
   * not a servable build file or does not exist.
   */
  get(path: string): Promise<StaticFile | undefined>;
}

/**
 * Serves the files of a `svc build` output directory: `manifest.json` (re-read on every
 * request, or as `options.manifest` gives it; `no-cache`) and `bundles/*` (immutable: read once, kept in memory, cached for a
 * year by clients). Never reads outside the directory, symbolic links included. Bridges and
 * servers mount it under a static prefix (`svc serve` uses `/static/svc/`).
 */
export function createStaticFiles(buildDir: string, options: StaticFilesOptions = {}): StaticFiles {
  const dir = resolve(buildDir);
  const cache = new LRUCache<string, StaticFile>({
    maxSize: options.cacheMaxBytes ?? 64 * 1024 * 1024,
    sizeCalculation: (file) => Math.max(1, file.body.byteLength),
  });

  const accepted = options.manifest;
  /** The answer for each manifest `accepted` has given, so its ETag is hashed once. */
  const manifests = new WeakMap<Uint8Array, StaticFile>();

  return {
    dir,
    async get(path) {
      if (!isServablePath(path)) return undefined;
      if (path === MANIFEST_FILE && accepted !== undefined) {
        const body = accepted();
        let file = manifests.get(body);
        if (file === undefined) {
          file = staticFile(path, body);
          manifests.set(body, file);
        }
        return file;
      }
      const hit = cache.get(path);
      if (hit !== undefined) return hit;
      const body = await readFileInside(dir, path);
      if (body === undefined) return undefined;
      const file = staticFile(path, body);
      // A bundle's name carries the hash of its bytes, so a cached copy can never go stale;
      // the manifest (and the loader's extras) change in place, so they are read afresh.
      if (!isUnhashed(path)) cache.set(path, file);
      return file;
    },
  };
}

/** The files a build rewrites in place (no hash in their names): revalidated, never kept. */
function isUnhashed(path: string): boolean {
  return path === MANIFEST_FILE || path === LOADER_EXTRAS_FILE;
}

function staticFile(path: string, body: Uint8Array): StaticFile {
  const extension = extensionOf(path);
  const file: StaticFile = {
    body,
    contentType:
      CONTENT_TYPES[extension] ??
      (path === MANIFEST_FILE ? undefined : fileTypeOf(path)) ??
      "application/octet-stream",
    cacheControl: isUnhashed(path) ? MANIFEST_CACHE_CONTROL : IMMUTABLE_CACHE_CONTROL,
    etag: etagOfBytes(body),
  };
  if (extension === ".svg") file.headers = { "content-security-policy": SVG_POLICY };
  return file;
}

/**
 * The bytes of `dir/path`, or undefined when missing or when it resolves outside `dir`
 * (through `..` or a symbolic link anywhere on the way).
 */
export async function readFileInside(dir: string, path: string): Promise<Uint8Array | undefined> {
  try {
    const [root, real] = await Promise.all([realpath(dir), realpath(join(dir, path))]);
    if (real === root || !isInside(real, root)) return undefined;
    return await readFile(real);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "ENOTDIR" || code === "EISDIR") return undefined;
    throw error;
  }
}

function extensionOf(path: string): string {
  const dot = path.lastIndexOf(".");
  return dot === -1 ? "" : path.slice(dot);
}
