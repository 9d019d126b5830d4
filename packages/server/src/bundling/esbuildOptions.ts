/**
 * The one place esbuild options are made, for the dev server (one entry) and `svc build` (all
 * entries in one pass): the same sources and options give the same bytes either way.
 */
import { dirname, isAbsolute, relative } from "node:path";
import { fileSafeName, SHARED_MODULES } from "@svc/protocol";
import type * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import {
  ASSETS_DIR,
  ComponentFiles,
  componentFilesPlugin,
  URL_EXTENSIONS,
} from "./componentFiles.ts";
import { refreshPlugin } from "./refreshTransform.ts";
import { stylePlugin, usesPostcss } from "./stylePlugins.ts";

/**
 * Modules every bundle leaves as bare imports: the page provides them once, through
 * `window.__MODULES__`, so all components share one React (`SHARED_MODULES` of the protocol).
 */
export const EXTERNALS = SHARED_MODULES;

export interface BundleOptions {
  /** Minify the output. Default: false (dev server); `svc build` turns it on. */
  minify?: boolean;
  /** Append an inline source map with `component://<name>/<file>` sources. Default: true. */
  sourcemap?: boolean;
  /**
   * Value of `process.env.NODE_ENV` and `import.meta.env.MODE` in the bundle (see
   * {@link envDefines}). Default: "development".
   */
  mode?: "development" | "production";
  /**
   * Register components with React's Fast Refresh runtime (`refreshTransform.ts`): what the
   * handler set asks for its live bundles in development. Only a development build of one
   * component takes it; `svc build` never does. Default: false.
   */
  refresh?: boolean;
}

/**
 * The prefix of the environment variables a bundle may read, as `import.meta.env.SVC_PUBLIC_…`:
 * bundles run in browsers, so nothing else of the server's environment reaches them.
 */
export const PUBLIC_ENV_PREFIX = "SVC_PUBLIC_";

/**
 * What a bundle reads of its environment, as esbuild `define`s (Vite's rules): `import.meta.env`
 * is `{ MODE, DEV, PROD, SVC_PUBLIC_… }`, each key replaced on its own and the whole object
 * wherever it is used otherwise, so `import.meta.env.SECRET` is `undefined`, never a value of
 * `env`. `process.env.NODE_ENV` is the mode too (React reads it); any other `process.env` is
 * left as written. Read from `env` when a bundle is built: the dev server's cached bundles keep
 * the values they were built with, so a changed variable needs a restart of `svc serve`.
 */
export function envDefines(
  mode: "development" | "production",
  env: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const values: Record<string, string | boolean> = {
    MODE: mode,
    DEV: mode === "development",
    PROD: mode === "production",
  };
  // Sorted: the same variables give the same bytes, whatever order the environment lists them.
  for (const name of Object.keys(env).sort()) {
    const value = env[name];
    if (name.length > PUBLIC_ENV_PREFIX.length && name.startsWith(PUBLIC_ENV_PREFIX)) {
      if (value !== undefined) values[name] = value;
    }
  }
  const define: Record<string, string> = {
    "process.env.NODE_ENV": JSON.stringify(mode),
    "import.meta.env": JSON.stringify(values),
  };
  for (const [key, value] of Object.entries(values)) {
    // A name esbuild can match as `import.meta.env.<name>`; others only through the object.
    if (/^[A-Za-z_$][\w$]*$/.test(key)) define[`import.meta.env.${key}`] = JSON.stringify(value);
  }
  return define;
}

/**
 * The directory bundles are built relative to: esbuild prints paths (comments, metafile)
 * relative to it, so keeping it the component's source root keeps every output free of
 * absolute paths and identical wherever the sources live.
 */
export function workingDirOf(components: readonly Component[]): string {
  const roots = [...new Set(components.map((c) => c.source.dir))];
  return roots.reduce((common, root) => commonAncestor(common, root), roots[0] ?? process.cwd());
}

/** esbuild options as {@link createEsbuildOptions} makes them. */
export type SvcEsbuildOptions = esbuild.BuildOptions & {
  absWorkingDir: string;
  outdir: string;
  write: false;
  metafile: true;
};

const filesOfOptions = new WeakMap<object, ComponentFiles>();

/** What every esbuild run for the browser shares: one ES module for ES2020, kept in memory. */
export const BROWSER_BUILD = {
  bundle: true,
  write: false,
  metafile: true,
  format: "esm",
  platform: "browser",
  target: "es2020",
} as const satisfies esbuild.BuildOptions;

/**
 * The one place esbuild options are made: the dev server (one entry) and `svc build` (all
 * entries in one pass) both call this, so the same sources and options give the same bytes.
 * `readableNames` keeps identifiers when minifying: the second pass for components with CSS
 * modules, whose minified class names (`a`, `b`) would be unique only within one build.
 * `cssModules: false` leaves out the plugin that gives CSS modules their class names (the
 * plugin costs every build a little), for components known to import none; minified, the
 * plugin is there anyway (it marks where each CSS file ends), and so it is in a project with a
 * PostCSS config. Sass and PostCSS come with it (`stylePlugins.ts`).
 */
export function createEsbuildOptions(
  components: readonly Component[],
  options: BundleOptions & { readableNames?: boolean; cssModules?: boolean } = {},
): SvcEsbuildOptions {
  const workingDir = workingDirOf(components);
  const mode = options.mode ?? "development";
  const minify = options.minify ?? false;
  const files = new ComponentFiles();
  const built: SvcEsbuildOptions = {
    absWorkingDir: workingDir,
    entryPoints: Object.fromEntries(components.map((c) => [fileSafeName(c.name), c.entry])),
    outdir: workingDir,
    ...BROWSER_BUILD,
    jsx: "automatic",
    external: [...EXTERNALS],
    minifyWhitespace: minify,
    minifySyntax: minify,
    minifyIdentifiers: minify && options.readableNames !== true,
    sourcemap: (options.sourcemap ?? true) ? "external" : false,
    sourcesContent: true,
    charset: "utf8",
    legalComments: "none",
    define: envDefines(mode),
    // Imported files are files of their own, never data: URLs (a CSP needs no data: source).
    loader: Object.fromEntries(URL_EXTENSIONS.map((extension) => [extension, "file" as const])),
    assetNames: `${ASSETS_DIR}/[name]-[hash]`,
    plugins:
      (options.cssModules ?? true) || minify || usesPostcss(components)
        ? [
            stylePlugin(files, { components, workingDir, mode }),
            componentFilesPlugin(files, { components, workingDir }),
          ]
        : [],
    logLevel: "silent",
  };
  const [only] = components;
  if (options.refresh === true && mode === "development" && components.length === 1 && only) {
    built.plugins = [
      ...(built.plugins ?? []),
      refreshPlugin({ componentName: only.name, workingDir }),
    ];
  }
  filesOfOptions.set(built, files);
  return built;
}

/** What the plugin of a {@link createEsbuildOptions} run saw (its stylesheets, made-up modules). */
export function componentFilesOf(options: SvcEsbuildOptions): ComponentFiles {
  const files = filesOfOptions.get(options);
  if (files === undefined)
    throw new Error("svc: these esbuild options were not made by createEsbuildOptions");
  return files;
}

function commonAncestor(a: string, b: string): string {
  let current = a;
  while (relative(current, b).startsWith("..") || isAbsolute(relative(current, b))) {
    const parent = dirname(current);
    if (parent === current) return current;
    current = parent;
  }
  return current;
}
