/**
 * Builds the standalone loader:
 * - `dist/loader.js`: minified, `NODE_ENV` "production" (what pages and `svc serve` use);
 * - `dist/loader.dev.js`: readable, `NODE_ENV` "development" (React's dev warnings and
 *   svc's props validation against `schema.json`).
 *
 * Run with `node build.ts` (Node 24 runs TypeScript directly), or import `buildLoader`.
 */
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

export interface BuildLoaderOptions {
  /** Output directory. Default: `packages/loader/dist`. */
  outdir?: string;
}

export interface BuiltLoader {
  /** Absolute paths of `loader.js` and `loader.dev.js`. */
  production: string;
  development: string;
}

// A second copy of the script on a page must change nothing, so the whole bundle (React
// included) only runs when no loader ran before.
const banner = '"use strict";(function(){if(typeof window==="undefined"||window.svc)return;';
const footer = "})();";

export async function buildLoader(options: BuildLoaderOptions = {}): Promise<BuiltLoader> {
  const outdir = options.outdir ?? `${here}dist`;
  const production = `${outdir}/loader.js`;
  const development = `${outdir}/loader.dev.js`;
  const common: esbuild.BuildOptions = {
    entryPoints: [`${here}src/loader.tsx`],
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    jsx: "automatic",
    // Workspace packages are read from their TypeScript sources: no prior build needed.
    conditions: ["source"],
    banner: { js: banner },
    footer: { js: footer },
    legalComments: "none",
    logLevel: "warning",
  };
  await Promise.all([
    esbuild.build({
      ...common,
      outfile: production,
      minify: true,
      define: { "process.env.NODE_ENV": '"production"' },
    }),
    esbuild.build({
      ...common,
      outfile: development,
      minify: false,
      define: { "process.env.NODE_ENV": '"development"' },
    }),
  ]);
  return { production, development };
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildLoader();
  console.log(`built ${built.production} and ${built.development}`);
}
