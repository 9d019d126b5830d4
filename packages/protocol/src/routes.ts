/**
 * The paths of the HTTP API below its mount prefix, built here and nowhere else: the server
 * routes them, the browser requests them.
 */

/** The listing. */
export const LIST_PATH = "/bundles";
/** The standalone loader (minified) and its development build. */
export const LOADER_PATH = "/loader.js";
export const DEV_LOADER_PATH = "/loader.dev.js";
/** The ES-module loader: bundles imported by URL through an import map (no `blob:`). */
export const ESM_LOADER_PATH = "/loader.esm.js";
/** The import map's modules (`/vendor/<name>.<hash>.js`), built from the server's packages. */
export const VENDOR_PATH = "/vendor/";
/** The files of a build directory. */
export const STATIC_PATH = "/static/";

/** A component's bundle, with the content hash as cache-buster when known. */
export function bundlePath(name: string, hash?: string): string {
  return `/bundles/${name}.js${hash ? `?${hash}` : ""}`;
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
