import { createHash } from "node:crypto";
import { dirname, isAbsolute, relative, resolve } from "node:path";
import { fileSafeName, SHARED_MODULES } from "@svc/protocol";
import * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { BundleError, type BundleErrorLocation } from "../errors.ts";
import { isInside, toPosix } from "../util/paths.ts";
import type { Resolution } from "./bundleInputs.ts";
import { detectDependencies, loadParser } from "./dependencies.ts";

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
  /** Value of `process.env.NODE_ENV` in the bundle. Default: "development". */
  mode?: "development" | "production";
  /**
   * Who runs the bundle: `"browser"` (an ES module for pages, ES2020) or `"server"` (a
   * CommonJS module for Node, which svc evaluates to render the component to HTML). Both
   * leave the shared modules external and read the same files. Default: "browser".
   */
  target?: "browser" | "server";
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

/**
 * The one place esbuild options are made: the dev server (one entry) and `svc build` (all
 * entries in one pass) both call this, so the same sources and options give the same bytes.
 */
export function createEsbuildOptions(
  components: readonly Component[],
  options: BundleOptions = {},
): esbuild.BuildOptions & { write: false; metafile: true } {
  const workingDir = workingDirOf(components);
  const mode = options.mode ?? "development";
  const server = options.target === "server";
  return {
    absWorkingDir: workingDir,
    entryPoints: Object.fromEntries(components.map((c) => [fileSafeName(c.name), c.entry])),
    outdir: workingDir,
    bundle: true,
    write: false,
    metafile: true,
    format: server ? "cjs" : "esm",
    platform: server ? "node" : "browser",
    target: server ? "node22" : "es2020",
    jsx: "automatic",
    external: [...EXTERNALS],
    minify: options.minify ?? false,
    sourcemap: (options.sourcemap ?? true) ? "external" : false,
    sourcesContent: true,
    charset: "utf8",
    legalComments: "none",
    define: { "process.env.NODE_ENV": JSON.stringify(mode) },
    logLevel: "silent",
  };
}

/** esbuild's output for one component, turned into the bytes svc serves. */
export interface FinishedOutput {
  code: Uint8Array;
  hash: string;
}

/**
 * Appends the component's source map inline (sources rewritten to
 * `component://<name>/<path relative to the component>`) and hashes the result. Works on
 * esbuild's bytes: the code is never decoded, and of the map only its `sources` array is.
 */
export function finishOutput(
  component: Component,
  js: esbuild.OutputFile,
  map: esbuild.OutputFile | undefined,
): FinishedOutput {
  // Copied either way: esbuild's output files may be views into one buffer of the whole build.
  let code: Buffer;
  if (map === undefined) {
    code = Buffer.from(js.contents);
  } else {
    const rewritten = rewriteSourceMap(component, map.contents, dirname(js.path));
    const comment = `//# sourceMappingURL=data:application/json;base64,${rewritten.toString("base64")}\n`;
    code = Buffer.concat([js.contents, Buffer.from(comment)]);
  }
  return { code, hash: contentHash(code) };
}

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

/**
 * The map with its `sources` rewritten to `component://` URLs. Only the `sources` array is
 * parsed and replaced (the sources' content, usually most of the map, is copied as bytes);
 * a map of any other shape is parsed whole.
 */
function rewriteSourceMap(component: Component, bytes: Uint8Array, outputDir: string): Buffer {
  const map = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const toUrl = (source: string) => {
    const inside = relative(component.dir, resolve(outputDir, source)).split("\\").join("/");
    return `component://${component.name}/${inside}`;
  };
  const start = MAP_HEAD.length - 1; // the `[`
  const end = map.indexOf(SOURCES_END, start) + 1; // just after the `]`
  if (map.subarray(0, MAP_HEAD.length).equals(MAP_HEAD) && end > start) {
    const sources = JSON.parse(map.toString("utf8", start, end)) as string[];
    return Buffer.concat([
      map.subarray(0, start),
      Buffer.from(JSON.stringify(sources.map(toUrl))),
      map.subarray(end),
    ]);
  }
  const whole = JSON.parse(map.toString("utf8")) as { sources: string[]; sourceRoot?: string };
  whole.sources = whole.sources.map(toUrl);
  delete whole.sourceRoot;
  return Buffer.from(JSON.stringify(whole));
}

/** Converts esbuild's messages into locations relative to the component directory. */
export function toBundleErrorLocations(
  component: Component,
  workingDir: string,
  messages: readonly esbuild.Message[],
): BundleErrorLocation[] {
  return messages.map((m) => {
    if (!m.location) return { text: m.text };
    const absolute = isAbsolute(m.location.file)
      ? m.location.file
      : resolve(workingDir, m.location.file);
    return {
      file: relative(component.dir, absolute).split("\\").join("/"),
      line: m.location.line,
      column: m.location.column,
      text: m.text,
      lineText: m.location.lineText,
    };
  });
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
    const buildOptions = createEsbuildOptions([component], options);
    const workingDir = buildOptions.absWorkingDir as string;
    if (options.target !== "server") void loadParser();
    let result: esbuild.BuildResult<{ write: false; metafile: true }>;
    try {
      result = await runEsbuild(buildOptions);
    } catch (error) {
      const failure = error as esbuild.BuildFailure;
      if (Array.isArray(failure.errors) && failure.errors.length > 0) {
        throw new BundleError(
          component.name,
          toBundleErrorLocations(component, workingDir, failure.errors),
          { cause: error },
        );
      }
      throw new BundleError(component.name, [{ text: String(failure.message ?? error) }], {
        cause: error,
      });
    }
    const js = result.outputFiles.find((f) => f.path.endsWith(".js"));
    if (js === undefined) {
      throw new BundleError(component.name, [{ text: "esbuild produced no JavaScript output" }]);
    }
    const map = result.outputFiles.find((f) => f.path.endsWith(".js.map"));
    const { inputs, resolutions } = readMetafile(result.metafile, workingDir);
    checkInsideRoot(component, inputs, resolutions);
    const { code, hash } = finishOutput(component, js, map);
    if (options.target === "server") return { code, hash, inputs, resolutions };
    const dependencies = await detectDependencies(inputs, component.name);
    return { code, hash, inputs, resolutions, dependencies };
  },
};

/**
 * The files esbuild read and how each import resolved, as absolute paths. Inputs that are no
 * file (`data:` URLs, modules the `browser` field disables) are left out.
 */
export function readMetafile(
  metafile: esbuild.Metafile,
  workingDir: string,
): { inputs: string[]; resolutions: Resolution[] } {
  const inputs: string[] = [];
  const resolutions: Resolution[] = [];
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    if (!isFileInput(input)) continue;
    const importer = resolve(workingDir, input);
    inputs.push(importer);
    for (const record of imports) {
      if (record.original === undefined) continue;
      const external = record.external === true || !isFileInput(record.path);
      resolutions.push({
        importer,
        specifier: record.original,
        path: external ? undefined : resolve(workingDir, record.path),
      });
    }
  }
  return { inputs, resolutions };
}

function isFileInput(path: string): boolean {
  return !/^[a-z-]+:/i.test(path) && !path.startsWith("(");
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
