/**
 * Builds the standalone loader:
 * - `dist/loader.js`: minified, `NODE_ENV` "production" (what pages and `svc serve` use);
 * - `dist/loader.dev.js`: readable, `NODE_ENV` "development" (React's dev warnings and
 *   svc's props validation against `schema.json`);
 * - `dist/loader.esm.js`: the same loader as a minified ES module that imports React,
 *   `@svc/react`, TanStack Query and goober by bare name (the page's import map resolves them)
 *   and each bundle by its own URL: no `blob:`, no import rewriting;
 * - `dist/loader.extras.js`: a minified ES module importing nothing, which `loader.js` and
 *   `loader.dev.js` fetch only for a page with an island (island hydration strategies; see
 *   `src/extras.ts`). `loader.esm.js` bundles it;
 * - `dist/loader.live.js`: the same for a page that follows live reload (the live-reload
 *   client and the error overlay, development only; `src/live.ts`). `loader.esm.js` bundles it;
 * - `dist/islands.js`: a minified classic script without React, for pages of server-rendered
 *   islands: it fetches `loader.js` when the first island's strategy fires (`src/islands.ts`).
 *
 * Run with `node build.ts` (Node 24 runs TypeScript directly), or import `buildLoader`.
 */
import { readFileSync } from "node:fs";
import { mkdir, rename, writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import {
  IMPORT_MAP_MODULES,
  ISLANDS_SCRIPT_FILE,
  LOADER_EXTRAS_FILE,
  LOADER_LIVE_FILE,
} from "@svc/protocol";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));
const { version } = JSON.parse(readFileSync(`${here}package.json`, "utf8")) as { version: string };

export interface BuildLoaderOptions {
  /** Output directory. Default: `packages/loader/dist`. */
  outdir?: string;
}

export interface BuiltLoader {
  /** Absolute paths of `loader.js` and `loader.dev.js`. */
  production: string;
  development: string;
  /** Absolute path of `loader.esm.js`: the ES-module loader for import-map pages (no `blob:`). */
  esm: string;
  /** Absolute path of `loader.extras.js`: what `loader.js` fetches for islands. */
  extras: string;
  /** Absolute path of `loader.live.js`: what `loader.js` fetches for live reload. */
  live: string;
  /** Absolute path of `islands.js`: fetches `loader.js` when a first island hydrates. */
  islands: string;
}

// A second copy of the script on a page must change nothing, so the whole bundle (React
// included) only runs when no loader ran before.
const banner = '"use strict";(function(){if(typeof window==="undefined"||window.svc)return;';
const footer = "})();";

export async function buildLoader(options: BuildLoaderOptions = {}): Promise<BuiltLoader> {
  const outdir = options.outdir ?? `${here}dist`;
  const production = `${outdir}/loader.js`;
  const development = `${outdir}/loader.dev.js`;
  const moduleLoader = `${outdir}/loader.esm.js`;
  const extrasFile = `${outdir}/${LOADER_EXTRAS_FILE}`;
  const liveFile = `${outdir}/${LOADER_LIVE_FILE}`;
  const islandsFile = `${outdir}/${ISLANDS_SCRIPT_FILE}`;
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
    // The loader's `window.svc.version` is its package's.
    define: {
      __SVC_LOADER_VERSION__: JSON.stringify(version),
      __SVC_MODULE_LOADING__: '"blob"',
    },
    footer: { js: footer },
    legalComments: "none",
    logLevel: "warning",
    // Class fields as constructor assignments (TypeScript's own pre-ES2022 semantics) rather
    // than one `defineProperty` helper call per field: no svc class has a setter a field could
    // shadow, so nothing changes but the bytes (−0.1 kB gzip).
    tsconfigRaw: {
      compilerOptions: { useDefineForClassFields: false, verbatimModuleSyntax: true },
    },
  };
  const [prod, dev] = await Promise.all([
    esbuild.build({
      ...common,
      write: false,
      minify: true,
      define: { ...common.define, "process.env.NODE_ENV": '"production"' },
      plugins: [withoutPropsValidation, withoutUrlLoading, extrasOnDemand],
    }),
    esbuild.build({
      ...common,
      write: false,
      minify: false,
      define: { ...common.define, "process.env.NODE_ENV": '"development"' },
      plugins: [withoutUrlLoading, extrasOnDemand],
    }),
  ]);
  // The two ES modules: no script wrapper, minified, kept in memory until all are built.
  const module = {
    ...common,
    format: "esm",
    banner: {},
    footer: {},
    write: false,
    minify: true,
  } as const;
  const esm = await esbuild.build({
    ...module,
    define: {
      ...common.define,
      __SVC_MODULE_LOADING__: '"url"',
      "process.env.NODE_ENV": '"production"',
    },
    // React, @svc/react, TanStack Query, goober: the page's, through its import map.
    plugins: [importMapExternals],
  });
  const part = (entry: string) =>
    esbuild.build({
      ...module,
      entryPoints: [`${here}src/${entry}`],
      define: {
        __SVC_LOADER_VERSION__: JSON.stringify(version),
        "process.env.NODE_ENV": '"production"',
      },
    });
  const [extras, live] = await Promise.all([part("extras.ts"), part("live.ts")]);
  // A classic script without React: it stays out of the way of a loader already on the page.
  const islands = await esbuild.build({
    ...common,
    entryPoints: [`${here}src/islands.ts`],
    write: false,
    minify: true,
    define: { "process.env.NODE_ENV": '"production"' },
  });
  await mkdir(outdir, { recursive: true });
  await Promise.all([
    writeAtomically(production, prod),
    writeAtomically(development, dev),
    writeAtomically(moduleLoader, esm),
    writeAtomically(extrasFile, extras),
    writeAtomically(liveFile, live),
    writeAtomically(islandsFile, islands),
  ]);
  return {
    production,
    development,
    esm: moduleLoader,
    extras: extrasFile,
    live: liveFile,
    islands: islandsFile,
  };
}

/**
 * A plugin that resolves the workspace module `file` (imported from a directory matching
 * `dir`) to a stub whose one export, `exported`, throws `message`: what a build leaves out
 * says where it is.
 */
function throwingStub(
  name: string,
  stub: { file: RegExp; dir: RegExp; exported: string; message: string },
): esbuild.Plugin {
  const namespace = `${name}-stub`;
  return {
    name,
    setup(build) {
      build.onResolve({ filter: stub.file }, (args) =>
        stub.dir.test(args.resolveDir) ? { path: stub.exported, namespace } : undefined,
      );
      build.onLoad({ filter: /.*/, namespace }, () => ({
        loader: "js",
        contents: `export function ${stub.exported}() {\n  throw new Error(${JSON.stringify(stub.message)});\n}\n`,
      }));
    },
  };
}

/**
 * Props validation is development-only: production `useComponent` never calls it, but the
 * loader hands bundles `@svc/react`'s whole namespace, so its `validateProps` export would
 * keep `@cfworker/json-schema` (6.7 kB gzip) in `loader.js`. The production build gets a
 * `validateProps` that says where the real one is.
 */
const withoutPropsValidation = throwingStub("svc-without-props-validation", {
  file: /[\\/]validateProps\.ts$/,
  dir: /[\\/]react[\\/]src$/,
  exported: "validateProps",
  message:
    "svc: props validation is development-only: not in loader.js (use loader.dev.js, or @svc/react from npm)",
});

/**
 * `loader.js` and `loader.dev.js` always rewrite bundles and import them from `blob:`; the
 * import-map mode (`moduleLoading: "url"`) is `loader.esm.js`'s. So the runtime's
 * `urlLoading.ts` (0.8 kB gzip) is left out of them: a client asked for it there says where
 * it is.
 */
const withoutUrlLoading = throwingStub("svc-without-url-loading", {
  file: /[\\/]urlLoading\.ts$/,
  dir: /[\\/]runtime[\\/]src$/,
  exported: "createUrlLoading",
  message:
    'svc: moduleLoading "url" is not in loader.js: use loader.esm.js with an import map, or @svc/runtime from npm',
});

/**
 * The import map's modules stay bare imports of `loader.esm.js`, by their exact names only:
 * esbuild's `external` would take `@svc/runtime/islands` for part of `@svc/runtime` too, and
 * the import map maps no such subpath (they are bundled, as in the vendor `@svc/react`).
 */
const importMapExternals: esbuild.Plugin = {
  name: "svc-import-map-externals",
  setup(build) {
    const names = new Set<string>(IMPORT_MAP_MODULES);
    build.onResolve({ filter: /^[@a-z]/ }, (args) =>
      names.has(args.path) ? { path: args.path, external: true } : undefined,
    );
  },
};

/**
 * `loader.js` and `loader.dev.js` fetch `loader.extras.js` (island hydration strategies) and
 * `loader.live.js` (live reload) when a page needs them; only `loader.esm.js` bundles
 * `src/extras.ts` and `src/live.ts`.
 * esbuild bundles a dynamic `import()` even in a branch the build makes dead, so the blob
 * builds see an empty module there.
 */
const extrasOnDemand: esbuild.Plugin = {
  name: "svc-extras-on-demand",
  setup(build) {
    build.onResolve({ filter: /^\.\/(extras|live)\.[jt]s$/ }, (args) => ({
      path: args.path,
      namespace: "svc-on-demand",
    }));
    build.onLoad({ filter: /.*/, namespace: "svc-on-demand" }, () => ({
      loader: "js",
      contents: "export {};\n",
    }));
  },
};

/**
 * Writes beside the target and renames: servers (and parallel test runs) that read the file
 * never see half of it.
 */
async function writeAtomically(file: string, result: esbuild.BuildResult<{ write: false }>) {
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error(`esbuild produced no output for ${file}`);
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, output.contents);
  await rename(temporary, file);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildLoader();
  console.log(
    `built ${built.production}, ${built.development}, ${built.esm}, ${built.extras} and ${built.islands}`,
  );
}
