import { fileURLToPath } from "node:url";
import { ISLANDS_SCRIPT_FILE, LOADER_EXTRAS_FILE, LOADER_LIVE_FILE } from "@svc/protocol";

/**
 * Absolute path of the standalone loader script (`@svc/loader`), which every transport serves
 * at `{prefix}/loader.js`. Undefined when `@svc/loader` is not installed.
 */
export const loaderScriptPath: string | undefined = loaderFile("loader.js");

/**
 * The loader's development build (readable, React's warnings, props checked against
 * `schema.json`), served at `{prefix}/loader.dev.js`.
 */
export const devLoaderScriptPath: string | undefined = loaderFile("loader.dev.js");

/**
 * What the standalone loader fetches for a page with an island (island hydration), served at
 * `{prefix}/loader.extras.js` and written by `svc build` beside `manifest.json`.
 */
export const loaderExtrasPath: string | undefined = loaderFile(LOADER_EXTRAS_FILE);

/**
 * What the standalone loader fetches for a page that follows live reload (the live-reload
 * client, the error overlay), served at `{prefix}/loader.live.js`.
 */
export const loaderLivePath: string | undefined = loaderFile(LOADER_LIVE_FILE);

/**
 * The islands start (`@svc/loader`'s `islands.js`, no React): it fetches `loader.js` from
 * beside itself when a page's first island hydrates. Served at `{prefix}/islands.js`.
 */
export const islandsScriptPath: string | undefined = loaderFile(ISLANDS_SCRIPT_FILE);

/** Absolute path of `file` of the installed `@svc/loader`, or undefined when it is not there. */
export function loaderFile(file: string): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve(`@svc/loader/${file}`));
  } catch {
    return undefined;
  }
}
