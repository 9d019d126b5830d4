import { resolve } from "node:path";
import { resolveBuildDir } from "@svc/server";
import { DEFAULT_BUILD_DIR, DEFAULT_DATA_DIR } from "./paths.ts";

export interface StoreConfig {
  /** Directory of the SQLite database and the uploaded images (created when missing). */
  dataDir: string;
  /**
   * Production: components come from a `svc build` directory as static files (served under
   * `/static/svc/`, the loader reads its manifest) and the bundle API is off (static mode).
   * Development: bundles are built on request, rebuilt when a source file changes.
   */
  production: boolean;
  /** The `svc build` output served in production. */
  buildDir?: string;
  /** Key that signs CSRF tokens. Default: random per process (forms expire on restart). */
  secret?: string;
}

export interface ResolveStoreConfigOptions {
  production?: boolean;
  /** Default: `STORE_DATA_DIR`, else `examples/data`. */
  dataDir?: string;
  /** Environment to read `SVC_BUILD_DIR`, `STORE_DATA_DIR` and `STORE_SECRET` from. */
  env?: Readonly<Record<string, string | undefined>>;
}

/**
 * The store's settings from options and the environment. In production the build directory
 * follows svc's convention (`resolveBuildDir`): `SVC_BUILD_DIR` when set, else
 * `examples/store/dist/svc` when it holds a `manifest.json`.
 * @throws Error with the command to run when production has no build to serve.
 */
export function resolveStoreConfig(options: ResolveStoreConfigOptions = {}): StoreConfig {
  const env = options.env ?? process.env;
  const production = options.production ?? false;
  const dataDir = resolve(options.dataDir ?? (env.STORE_DATA_DIR || DEFAULT_DATA_DIR));
  const secret = env.STORE_SECRET || undefined;
  if (!production) return { dataDir, production, secret };
  const buildDir = resolveBuildDir(DEFAULT_BUILD_DIR, env);
  if (buildDir === undefined) {
    throw new Error(
      env.SVC_BUILD_DIR === ""
        ? "Production mode serves a svc build, but SVC_BUILD_DIR is set to the empty string (pre-built bundles off). Unset it or point it at a build."
        : `Production mode needs a svc build: run \`npx svc build --output ${DEFAULT_BUILD_DIR} --components-dir examples/store/components --prefix store\` (or set SVC_BUILD_DIR to a build directory).`,
    );
  }
  return { dataDir, production, buildDir, secret };
}
