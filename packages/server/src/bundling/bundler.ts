import { createHash } from "node:crypto";
import { readdirSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileSafeName, formatImportTable, RESERVED_LINE, SHARED_MODULES } from "@svc/protocol";
import { parse as lexModule } from "es-module-lexer/minimal/js";
import * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { BundleError, type BundleErrorLocation } from "../errors.ts";
import { isInside, toPosix } from "../util/paths.ts";
import type { Resolution } from "./bundleInputs.ts";
import {
  ASSETS_DIR,
  ComponentFiles,
  componentFilesPlugin,
  explainMessage,
  type Insertion,
  resolveAssetUrls,
  STYLESHEET_END,
  shiftMappings,
  splitStylesheets,
  stylesheetFileName,
  URL_EXTENSIONS,
  usesCssModules,
  withoutEndMarks,
} from "./componentFiles.ts";
import { detectDependencies, loadParser } from "./dependencies.ts";
import { stylesheetImports } from "./stylesheetImports.ts";

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

/** A file a bundle refers to, served next to it: a stylesheet or an asset. */
export interface BundleFile {
  /**
   * Path relative to the bundle's directory, as the bundle names it: `card-3f2a9c0b1d4e.css`,
   * `assets/logo-24WHYHIF.png`. Content-addressed: the name changes whenever the bytes do.
   */
  path: string;
  bytes: Uint8Array;
}

/** One finished bundle. */
export interface BundleOutput {
  /** The exact bytes served. */
  code: Uint8Array;
  /** First 12 hex characters of the SHA-256 of `code`. */
  hash: string;
  /** Absolute paths of every file esbuild read to produce it. */
  inputs: string[];
  /**
   * How each import resolved (importer, specifier as written, file), so the dev cache can tell
   * when a resolution would come out differently. Optional for bundlers of your own: without
   * it only `inputs` are re-checked.
   */
  resolutions?: Resolution[];
  /**
   * The component's stylesheets in cascade order, one per CSS file it imports; the bundle
   * imports each (`import "./card-3f2a9c0b1d4e.css";`). Default: none.
   */
  stylesheets?: BundleFile[];
  /** Files the bundle or its stylesheets refer to by URL (below `assets/`). Default: none. */
  assets?: BundleFile[];
  /**
   * The components the bundle asks for by a literal name, sorted (`dependencies.ts`); found
   * in the same build's inputs, so an edit that adds one shows in the next build. Browser
   * builds only; optional for bundlers of your own (none are then preloaded).
   */
  dependencies?: string[];
}

/** Turns a component into a bundle. The default is esbuild, in-process; tests inject others. */
export interface Bundler {
  bundle(component: Component, options?: BundleOptions): Promise<BundleOutput>;
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
 * plugin is there anyway (it marks where each CSS file ends).
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
      (options.cssModules ?? true) || minify
        ? [componentFilesPlugin(files, { components, workingDir })]
        : [],
    logLevel: "silent",
  };
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

/** esbuild's output for one component, turned into the bytes svc serves. */
export interface FinishedOutput {
  code: Uint8Array;
  hash: string;
}

export interface FinishOutputOptions {
  /** Files the bundle imports for their effect (its stylesheets), as `./…` paths. */
  imports?: readonly string[];
  /** Assets the code imports (`assets/logo-24WHYHIF.png`): see `resolveAssetUrls`. */
  assets?: readonly string[];
  /** A server bundle (CommonJS): no stylesheet imports, asset URLs from the render worker. */
  server?: boolean;
  /** The file a source of the map stands for (made-up modules), else undefined. */
  realPath?: (source: string, outputDir: string) => string | undefined;
}

/**
 * Puts a browser bundle's reserved empty first line before the code, appends the imports of
 * the component's stylesheets, the import table and the source map inline (sources rewritten
 * to `component://<name>/<path relative to the component>`), and hashes the result. Works on
 * esbuild's bytes: the code is never decoded, and of the map only its `sources` array (and
 * `mappings`, for asset URLs) is. The imports go after the code (import declarations take
 * effect wherever they stand), so the map only moves down the one reserved line.
 */
export function finishOutput(
  component: Component,
  js: esbuild.OutputFile,
  map: esbuild.OutputFile | undefined,
  options: FinishOutputOptions = {},
): FinishedOutput {
  // Copied either way: esbuild's output files may be views into one buffer of the whole build.
  const resolved = resolveAssetUrls(
    Buffer.from(js.contents),
    options.assets ?? [],
    options.server === true,
  );
  const browser = options.server !== true;
  // A browser bundle's first line is the one its rewrite fills (see `RESERVED_LINE`): its map
  // starts one line down.
  const parts: Uint8Array[] = browser ? [RESERVED, resolved.code] : [resolved.code];
  // A server bundle is CommonJS: its stylesheets are the browser bundle's, linked by the island.
  const imports = browser ? (options.imports ?? []) : [];
  if (imports.length > 0) {
    parts.push(Buffer.from(stylesheetImports(imports)));
  }
  if (browser) parts.push(Buffer.from(importTableOf(component, Buffer.concat(parts))));
  if (map !== undefined) {
    const rewritten = rewriteSourceMap(
      component,
      map.contents,
      dirname(js.path),
      options.realPath,
      resolved.insertions,
      browser ? 1 : 0,
    );
    parts.push(
      Buffer.from(
        `//# sourceMappingURL=data:application/json;base64,${rewritten.toString("base64")}\n`,
      ),
    );
  }
  const code = Buffer.concat(parts);
  return { code, hash: contentHash(code) };
}

/**
 * The import table line of a browser bundle whose code (with its stylesheet imports) is
 * `code`: where each import statement stands, so the page rewrites imports without a lexer.
 */
function importTableOf(component: Component, code: Uint8Array): string {
  const text = Buffer.from(code.buffer, code.byteOffset, code.byteLength).toString();
  try {
    const [imports, exports] = lexModule(text);
    return formatImportTable(text, imports, exports);
  } catch (error) {
    throw new BundleError(component.name, [
      { text: `esbuild's output could not be lexed: ${(error as Error).message}` },
    ]);
  }
}

/** One component's share of an esbuild run, as svc serves it. */
export interface FinishedComponent extends FinishedOutput {
  stylesheets: BundleFile[];
  assets: BundleFile[];
  /** Whether its output holds a CSS module (see `readableNames` of {@link createEsbuildOptions}). */
  cssModules: boolean;
}

/**
 * Finds `component`'s output in an esbuild run made with {@link createEsbuildOptions}: its
 * JavaScript (finished by {@link finishOutput}), its CSS cut into one stylesheet per source
 * file, and the assets either refers to.
 */
export function finishComponent(
  component: Component,
  result: esbuild.BuildResult<{ write: false; metafile: true }>,
  options: SvcEsbuildOptions,
): FinishedComponent {
  const files = componentFilesOf(options);
  const { absWorkingDir: workingDir, outdir } = options;
  const outputs = new Map(result.outputFiles.map((file) => [file.path, file]));
  const base = join(outdir, fileSafeName(component.name));
  const js = outputs.get(`${base}.js`);
  if (js === undefined) {
    throw new BundleError(component.name, [
      {
        text: `esbuild produced no JavaScript output (expected ${fileSafeName(component.name)}.js)`,
      },
    ]);
  }
  const map = options.sourcemap === false ? undefined : outputs.get(`${base}.js.map`);
  const key = (path: string) => toPosix(relative(workingDir, path));
  const meta = result.metafile.outputs[key(js.path)];
  const cssKey = meta?.cssBundle;
  const css = cssKey === undefined ? undefined : outputs.get(resolve(workingDir, cssKey));

  const stylesheets: BundleFile[] = [];
  const cssMeta = cssKey === undefined ? undefined : result.metafile.outputs[cssKey];
  if (css !== undefined) {
    const inputs = Object.keys(cssMeta?.inputs ?? {});
    for (const part of splitStylesheets(css.text, files, inputs, workingDir)) {
      const bytes = Buffer.from(part.text);
      stylesheets.push({ path: stylesheetFileName(part.stem, bytes), bytes });
    }
  }
  const assetKeys = new Set<string>();
  for (const record of [...(meta?.imports ?? []), ...(cssMeta?.imports ?? [])]) {
    if (record.kind === "file-loader" || record.kind === "url-token") assetKeys.add(record.path);
  }
  const assets: BundleFile[] = [];
  for (const assetKey of [...assetKeys].sort()) {
    const file = outputs.get(resolve(workingDir, assetKey));
    if (file === undefined) continue;
    assets.push({ path: toPosix(relative(outdir, file.path)), bytes: Buffer.from(file.contents) });
  }
  const imported = (meta?.imports ?? []).filter((record) => record.kind === "file-loader");
  const finished = finishOutput(component, js, map, {
    imports: stylesheets.map((sheet) => `./${sheet.path}`),
    server: options.format === "cjs",
    assets: imported.map((record) => toPosix(relative(outdir, resolve(workingDir, record.path)))),
    realPath: (source, outputDir) => files.realPath(source, outputDir),
  });
  return {
    ...finished,
    stylesheets,
    assets,
    cssModules: usesCssModules(Object.keys(meta?.inputs ?? {})),
  };
}

/** A browser bundle's empty first line (`RESERVED_LINE`). */
const RESERVED = Buffer.from(RESERVED_LINE);

/** SHA-256 of `bytes`, lowercase hex, first 12 characters. */
export function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 12);
}

/** How esbuild's source maps begin, up to the `sources` array's opening bracket. */
const MAP_HEAD = Buffer.from('{\n  "version": 3,\n  "sources": [');
/**
 * What ends the `sources` array: a JSON string cannot hold a raw line break, so the first
 * `],` followed by one is the array's end whatever the file names contain.
 */
const SOURCES_END = Buffer.from('],\n  "');
const MAPPINGS_KEY = Buffer.from('\n  "mappings": "');

/**
 * The map with its `sources` rewritten to `component://` URLs. Only the `sources` array is
 * parsed and replaced (the sources' content, usually most of the map, is copied as bytes);
 * a map of any other shape is parsed whole.
 */
function rewriteSourceMap(
  component: Component,
  bytes: Uint8Array,
  outputDir: string,
  realPath: FinishOutputOptions["realPath"],
  insertions: readonly Insertion[] = [],
  linesBefore = 0,
): Buffer {
  const down = ";".repeat(linesBefore);
  let map = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  // A CSS module's text (in the map of the JavaScript it becomes) without svc's end mark.
  if (map.includes(STYLESHEET_END)) map = Buffer.from(withoutEndMarks(map.toString("utf8")));
  const toUrl = (source: string) => {
    // esbuild's own modules (`<define:import.meta.env>`) are no file: named as they are.
    if (source.startsWith("<")) return `component://${component.name}/${source}`;
    const file = realPath?.(source, outputDir) ?? resolve(outputDir, source);
    const inside = relative(component.dir, file).split("\\").join("/");
    return `component://${component.name}/${inside}`;
  };
  const start = MAP_HEAD.length - 1; // the `[`
  const end = map.indexOf(SOURCES_END, start) + 1; // just after the `]`
  // `mappings` (base64 characters, `,` and `;` only) between its key and the next quote.
  const mappingsStart = map.lastIndexOf(MAPPINGS_KEY) + MAPPINGS_KEY.length;
  const mappingsEnd = map.indexOf(34, mappingsStart); // `"`
  if (
    map.subarray(0, MAP_HEAD.length).equals(MAP_HEAD) &&
    end > start &&
    mappingsStart > end + MAPPINGS_KEY.length &&
    mappingsEnd !== -1
  ) {
    const sources = JSON.parse(map.toString("utf8", start, end)) as string[];
    const mappings =
      insertions.length === 0
        ? map.subarray(mappingsStart, mappingsEnd)
        : Buffer.from(
            shiftMappings(map.toString("latin1", mappingsStart, mappingsEnd), insertions),
          );
    return Buffer.concat([
      map.subarray(0, start),
      Buffer.from(JSON.stringify(sources.map(toUrl))),
      map.subarray(end, mappingsStart),
      Buffer.from(down),
      mappings,
      map.subarray(mappingsEnd),
    ]);
  }
  const whole = JSON.parse(map.toString("utf8")) as {
    sources: string[];
    sourceRoot?: string;
    mappings: string;
  };
  whole.sources = whole.sources.map(toUrl);
  whole.mappings = down + shiftMappings(whole.mappings, insertions);
  delete whole.sourceRoot;
  return Buffer.from(JSON.stringify(whole));
}

/**
 * Converts esbuild's messages into locations relative to the component directory (with what
 * svc supports, for a kind of file it cannot bundle).
 */
export function toBundleErrorLocations(
  component: Component,
  workingDir: string,
  messages: readonly esbuild.Message[],
  files?: ComponentFiles,
): BundleErrorLocation[] {
  return messages.map((m) => {
    const text = explainMessage(m.text);
    if (!m.location) return { text };
    const absolute = messageFile(m.location.file, workingDir, files);
    return {
      file: relative(component.dir, absolute).split("\\").join("/"),
      line: m.location.line,
      column: m.location.column,
      text,
      lineText: m.location.lineText,
    };
  });
}

/** The absolute path of the file an esbuild message is located in. */
export function messageFile(file: string, workingDir: string, files?: ComponentFiles): string {
  if (isAbsolute(file)) return file;
  return files?.realPath(file, workingDir) ?? resolve(workingDir, file);
}

/**
 * `esbuild.build`, restarting esbuild's service when it has died (killed, out of memory):
 * once its child process is gone every call fails until the service is stopped and started
 * again, so one dead service would otherwise fail every later request.
 */
export async function runEsbuild<T extends esbuild.BuildOptions>(
  options: esbuild.SameShape<esbuild.BuildOptions, T>,
): Promise<esbuild.BuildResult<T>> {
  try {
    return await esbuild.build(options);
  } catch (error) {
    if (!isDeadService(error)) throw error;
    await esbuild.stop();
    return await esbuild.build(options);
  }
}

function isDeadService(error: unknown): boolean {
  const message = error instanceof Error ? error.message : "";
  return (
    message.includes("The service is no longer running") ||
    message.includes("The service was stopped")
  );
}

/** The default bundler: esbuild's JavaScript API, in-process (one long-lived service). */
export const esbuildBundler: Bundler = {
  async bundle(component, options = {}) {
    // Without the CSS-module plugin unless the component may need it (esbuild is slower with
    // any plugin); if its output shows a CSS module after all, built again with it.
    const guess = options.minify === true || mayUseCssModules(component);
    void loadParser();
    let run = await bundleOnce(component, { ...options, cssModules: guess });
    if (!guess && run.finished.cssModules) {
      run = await bundleOnce(component, { ...options, cssModules: true });
    }
    // Minified, a CSS module's class names would be esbuild's shortest (`a`, `b`), unique only
    // within this build: built again keeping identifiers, they are the readable ones.
    if (run.finished.cssModules && options.minify === true) {
      run = await bundleOnce(component, { ...options, readableNames: true });
    }
    const { finished, inputs, resolutions } = run;
    return {
      code: finished.code,
      hash: finished.hash,
      inputs,
      resolutions,
      stylesheets: finished.stylesheets,
      assets: finished.assets,
      // From the final run's inputs: the module graph of the bundle that is served.
      dependencies: await detectDependencies(inputs, component.name, finished.code),
    };
  },
};

/** What {@link mayUseCssModules} found per component directory, by the directory's mtime. */
const cssModulesSeen = new Map<string, { mtimeMs: number; found: boolean }>();

/**
 * Whether `component`'s directory holds a CSS module: the guess that decides whether its first
 * build takes the CSS-module plugin along. Read once per change of the directory; a wrong
 * guess costs a second build (the output shows the CSS module), never a wrong bundle.
 */
function mayUseCssModules(component: Component): boolean {
  const mtimeMs = statSync(component.dir, { throwIfNoEntry: false })?.mtimeMs;
  if (mtimeMs === undefined) return true;
  const seen = cssModulesSeen.get(component.dir);
  if (seen?.mtimeMs === mtimeMs) return seen.found;
  let found = true;
  try {
    found = readdirSync(component.dir).some((entry) => entry.endsWith(".module.css"));
  } catch {
    // unreadable: take the plugin along
  }
  if (cssModulesSeen.size > 10_000) cssModulesSeen.clear();
  cssModulesSeen.set(component.dir, { mtimeMs, found });
  return found;
}

async function bundleOnce(
  component: Component,
  options: BundleOptions & { readableNames?: boolean; cssModules?: boolean },
): Promise<{ finished: FinishedComponent; inputs: string[]; resolutions: Resolution[] }> {
  const buildOptions = createEsbuildOptions([component], options);
  const workingDir = buildOptions.absWorkingDir;
  const files = componentFilesOf(buildOptions);
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await runEsbuild(buildOptions);
  } catch (error) {
    const failure = error as esbuild.BuildFailure;
    if (Array.isArray(failure.errors) && failure.errors.length > 0) {
      throw new BundleError(
        component.name,
        toBundleErrorLocations(component, workingDir, failure.errors, files),
        { cause: error },
      );
    }
    throw new BundleError(component.name, [{ text: String(failure.message ?? error) }], {
      cause: error,
    });
  }
  const { inputs, resolutions } = readMetafile(result.metafile, workingDir, files);
  checkInsideRoot(component, inputs, resolutions);
  return { finished: finishComponent(component, result, buildOptions), inputs, resolutions };
}

/**
 * The files esbuild read and how each import resolved, as absolute paths. Inputs that are no
 * file (`data:` URLs, modules the `browser` field disables) are left out.
 */
export function readMetafile(
  metafile: esbuild.Metafile,
  workingDir: string,
  files?: ComponentFiles,
): { inputs: string[]; resolutions: Resolution[] } {
  const inputs = new Set<string>(files?.reads);
  const resolutions: Resolution[] = [...(files?.resolutions ?? [])];
  const fileOf = (key: string) =>
    files?.realPath(key, workingDir) ?? (isFileInput(key) ? resolve(workingDir, key) : undefined);
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    const importer = fileOf(input);
    if (importer === undefined) continue;
    if (isFileInput(input)) inputs.add(importer);
    for (const record of imports) {
      if (record.original === undefined) continue;
      // Resolved by the plugin (made-up modules): recorded by it, with the file it found.
      if (!isFileInput(record.path) && files?.virtual.has(record.path)) continue;
      const path = record.external === true ? undefined : fileOf(record.path);
      resolutions.push({ importer, specifier: record.original, path });
    }
  }
  return { inputs: [...inputs], resolutions };
}

/**
 * Whether a metafile input is a file: not a namespaced module (`svc-…:`), nor one of esbuild's
 * own (`<define:import.meta.env>`, listed whenever that define is given; `<stdin>`).
 */
function isFileInput(path: string): boolean {
  return !/^[a-z-]+:/i.test(path) && !path.startsWith("(") && !path.startsWith("<");
}

/**
 * svc reads files only inside the project root (`source.root`: the workspace or repository
 * holding the source, see `projectRoot.ts`): a symbolic link — or a path — leading out of it
 * is refused with a `BundleError` naming the importer, so a component cannot pull in files
 * from elsewhere on the machine.
 */
export function checkInsideRoot(
  component: Component,
  inputs: readonly string[],
  resolutions: readonly Resolution[],
): void {
  const root = component.source.root;
  const outside = inputs.filter((input) => !isInside(input, root));
  if (outside.length === 0) return;
  const shown = (path: string) => toPosix(relative(component.dir, path)) || ".";
  throw new BundleError(
    component.name,
    outside.map((path) => {
      const via = resolutions.find((r) => r.path === path);
      const what =
        via === undefined
          ? shown(path)
          : `${shown(via.importer)} imports "${via.specifier}", which`;
      return {
        text: `${what} resolves to ${shown(path)}, outside the project root: svc reads files (and follows links) only inside it — move the file in, or widen the root (the registry's root option)`,
      };
    }),
  );
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
