import { createRequire } from "node:module";

const require = createRequire(import.meta.url);

/**
 * A bridge's framework, an optional peer dependency of `@svc/server`, loaded synchronously on
 * first use (no top-level `await`, so every bridge loads from ESM and CommonJS alike). When it
 * is not installed, this fails with one line that says what to install, instead of a
 * resolution error pointing into svc's own files.
 */
export function requirePeer<T>(specifier: string, bridge: string, install: string): T {
  try {
    return require(specifier) as T;
  } catch (error) {
    throw missingPeer(error, specifier, bridge, install);
  }
}

/** Like {@link requirePeer}, for a bridge that needs only to know the framework is there. */
export function checkPeer(specifier: string, bridge: string, install: string): void {
  try {
    require.resolve(specifier);
  } catch (error) {
    throw missingPeer(error, specifier, bridge, install);
  }
}

function missingPeer(error: unknown, specifier: string, bridge: string, install: string): unknown {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  const missing =
    (code === "ERR_MODULE_NOT_FOUND" || code === "MODULE_NOT_FOUND") &&
    typeof message === "string" &&
    message.includes(`'${specifier}'`);
  if (!missing) return error;
  return new Error(
    `${bridge} needs ${specifier}, which is not installed: run \`npm install ${install}\``,
    { cause: error },
  );
}
