/**
 * The paths of the HTTP API below its mount prefix, built here and nowhere else: the server
 * routes them, the browser requests them.
 */

/** The listing. */
export const LIST_PATH = "/bundles";
/** The standalone loader (minified) and its development build. */
export const LOADER_PATH = "/loader.js";
export const DEV_LOADER_PATH = "/loader.dev.js";
/**
 * What the standalone loader fetches only for a page with an island (`data-svc-ssr`) or live
 * reload (`data-svc-live`): the islands' hydration strategies and the live-reload client.
 * Served below the API prefix, and written by `svc build` beside `manifest.json` (static mode).
 */
export const LOADER_EXTRAS_FILE = "loader.extras.js";
export const LOADER_EXTRAS_PATH = `/${LOADER_EXTRAS_FILE}`;
/**
 * The islands start: a small script (no React) for a page of server-rendered islands, which
 * waits for the first island whose strategy fires (`visible`, `idle`, `media:`) and only then
 * fetches the loader (React with it) from beside itself.
 */
export const ISLANDS_SCRIPT_FILE = "islands.js";
export const ISLANDS_SCRIPT_PATH = `/${ISLANDS_SCRIPT_FILE}`;
/** The ES-module loader: bundles imported by URL through an import map (no `blob:`). */
export const ESM_LOADER_PATH = "/loader.esm.js";
/** The import map's modules (`/vendor/<name>.<hash>.js`), built from the server's packages. */
export const VENDOR_PATH = "/vendor/";
/** The files of a build directory. */
export const STATIC_PATH = "/static/";
/** Readiness, for load balancers and orchestrators: 200 when ready, 503 with the reason. */
export const HEALTH_PATH = "/health";
/** A page's islands rendered in one request (`POST`, JSON). */
export const ISLANDS_PATH = "/islands";

/**
 * The query flag that asks for a bundle as `moduleLoading: "url"` imports it: without the
 * imports of its stylesheets (`import "./card-3f2a9c0b1d4e.css"`), which a browser refuses as
 * modules; the client applies them itself. The same bytes otherwise.
 */
export const URL_VARIANT = "url";

/**
 * A component's bundle, with the content hash (or another cache-buster) when known;
 * `variant: "url"` for the form imported by URL ({@link URL_VARIANT}).
 */
export function bundlePath(name: string, hash?: string, variant?: typeof URL_VARIANT): string {
  const query = [hash, variant].filter(Boolean).join("&");
  return `/bundles/${name}.js${query === "" ? "" : `?${query}`}`;
}

/**
 * The query of a bundle URL read back: the version it names (the hash, or any other
 * cache-buster; undefined when none) and whether it asks for the {@link URL_VARIANT}.
 */
export function parseBundleQuery(query: string | undefined): {
  version: string | undefined;
  variant: typeof URL_VARIANT | undefined;
} {
  if (query === undefined || query === "") return { version: undefined, variant: undefined };
  const parts = query.split("&");
  const variant = parts.includes(URL_VARIANT) ? URL_VARIANT : undefined;
  const version = variant === undefined ? query : parts.filter((p) => p !== URL_VARIANT).join("&");
  return { version: version === "" ? undefined : version, variant };
}

/** A component's metadata. */
export function metadataPath(name: string): string {
  return `/bundles/${name}/metadata`;
}

/** A component's whole stylesheet (all its CSS, in cascade order), hash as cache-buster. */
export function stylesheetPath(name: string, hash?: string): string {
  return `/bundles/${name}.css${hash ? `?${hash}` : ""}`;
}

/**
 * Where the files a bundle refers to are served, below the mount prefix: its stylesheets
 * (`/bundles/<stem>-<hash>.css`) and assets (`/bundles/assets/<name>-<hash>.<ext>`). A bundle
 * names them relative to its own URL (`./card-3f2a9c0b1d4e.css`, `./assets/logo-24WHYHIF.png`),
 * so the same bytes work from the API and from a build directory or CDN.
 */
export const BUNDLE_FILES_PATH = "/bundles/";

/** A component rendered to HTML on the server (`POST`, JSON props as the body). */
export function islandPath(name: string): string {
  return `/bundles/${name}/html`;
}
