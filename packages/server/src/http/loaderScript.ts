import { fileURLToPath } from "node:url";

/**
 * Absolute path of the standalone loader script (`@svc/loader`), for bridges and servers
 * to serve, e.g. at `/svc/loader.js`. Undefined when `@svc/loader` is not installed.
 */
export const loaderScriptPath: string | undefined = resolveLoader();

function resolveLoader(): string | undefined {
  try {
    return fileURLToPath(import.meta.resolve("@svc/loader/loader.js"));
  } catch {
    return undefined;
  }
}
