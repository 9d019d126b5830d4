/**
 * esbuild's output for a component, turned into the bytes svc serves: the reserved first line,
 * the stylesheet imports, the import table and the inline source map with `component://`
 * sources, hashed; its CSS cut into one stylesheet per source file, and its assets.
 */
import { dirname, join, relative, resolve } from "node:path";
import { fileSafeName, RESERVED_LINE } from "@svc/protocol";
import { parse as lexModule } from "es-module-lexer/minimal/js";
import type * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import { contentHash } from "../util/contentHash.ts";
import { toPosix } from "../util/paths.ts";
import {
  type Insertion,
  resolveAssetUrls,
  STYLESHEET_END,
  shiftMappings,
  splitStylesheets,
  stylesheetFileName,
  usesCssModules,
  withoutEndMarks,
} from "./componentFiles.ts";
import { componentFilesOf, type SvcEsbuildOptions } from "./esbuildOptions.ts";
import { importTableLine } from "./importClauses.ts";
import { stylesheetImports } from "./stylesheetImports.ts";

/** A file a bundle refers to, served next to it: a stylesheet or an asset. */
export interface BundleFile {
  /**
   * Path relative to the bundle's directory, as the bundle names it: `card-3f2a9c0b1d4e.css`,
   * `assets/logo-24WHYHIF.png`. Content-addressed: the name changes whenever the bytes do.
   */
  path: string;
  bytes: Uint8Array;
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
    return importTableLine(text, imports, exports);
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
