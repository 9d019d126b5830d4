import { fileURLToPath } from "node:url";

/**
 * Absolute path of the standalone loader script (`@svc/loader`), which every transport serves
 * at `{prefix}/loader.js`. Undefined when `@svc/loader` is not installed.
 */
export const loaderScriptPath: string | undefined = resolveLoader("loader.js");

/**
 * The loader's development build (readable, React's warnings, props checked against
 * `schema.json`), served at `{prefix}/loader.dev.js`.
 */
export const devLoaderScriptPath: string | undefined = resolveLoader("loader.dev.js");

/**
 * What the standalone loader fetches for a page with an island or live reload (island
 * hydration strategies, the live-reload client), served at `{prefix}/loader.extras.js` and
 * written by `svc build` beside `manifest.json`.
 */
export const loaderExtrasPath: string | undefined = resolveLoader("loader.extras.js");

function resolveLoader(file: string): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve(`@svc/loader/${file}`));
  } catch {
    return undefined;
  }
}
