import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, gzipSync, constants as zlib } from "node:zlib";
import {
  fileSafeName,
  LOADER_EXTRAS_FILE,
  type ManifestFile,
  type ManifestModule,
  SvcError,
} from "@svc/protocol";
import type * as esbuild from "esbuild";
import {
  type BundleFile,
  componentFilesOf,
  contentHash,
  createEsbuildOptions,
  type FinishedComponent,
  finishComponent,
  messageFile,
  runEsbuild,
} from "../bundling/bundler.ts";
import {
  ASSET_NAME,
  ASSETS_DIR,
  explainMessage,
  STYLESHEET_NAME,
} from "../bundling/componentFiles.ts";
import { detectDependencies } from "../bundling/dependencies.ts";
import { serverBundleOf } from "../bundling/serverBundle.ts";
import { withoutStylesheetImports } from "../bundling/stylesheetImports.ts";
import {
  ESM_LOADER_FILE,
  onDemandImports,
  VENDOR_DIR,
  type VendorBuild,
  VendorModulesError,
  vendorClosure,
  vendorModules,
} from "../bundling/vendorModules.ts";
import type { Component, ComponentRegistry } from "../components/componentRegistry.ts";
import { compareCodePoints } from "../components/componentRegistry.ts";
import { type ComponentSchema, parseSchema } from "../components/metadata.ts";
import { BundleError, InvalidSchemaError } from "../errors.ts";
import { loaderExtrasPath } from "../util/loaderFiles.ts";
import { isInside, toPosix } from "../util/paths.ts";
import {
  createBuildImportMap,
  IMPORT_MAP_FILE,
  type ImportMap,
  importMapFiles,
  readImportMap,
} from "./importMapFile.ts";
import {
  emptyManifest,
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  parseManifest,
} from "./manifest.ts";

const brotliAsync = promisify(brotliCompress);

export interface BuildOptions {
  /** The components to build: every component the registry lists. */
  registry: ComponentRegistry;
  /**
   * Output directory. The new bundles are written beside those of the build in place, then
   * `manifest.json` is replaced in one step, so readers see the old build or the new one.
   */
  outDir: string;
  /** Minify the bundles. Default: true. */
  minify?: boolean;
  /** Append an inline source map to every bundle. Default: false. */
  sourcemap?: boolean;
  /** Also write `.gz` and `.br` siblings of every bundle, stylesheet and text asset. Default: false. */
  compress?: boolean;
  /**
   * Also build every component for Node (`bundles/<name>.<hash>.cjs`, the manifest entry's
   * `server`), so islands render in production without esbuild. Default: true.
   */
  ssr?: boolean;
  /**
   * How long files of a replaced build stay after the build that stopped listing them, in
   * milliseconds, so a page that read the previous `manifest.json` still finds its bundles;
   * the first build that runs this long after removes them. `0` removes them at once.
   * Default: 3 600 000 (one hour).
   */
  keepOldFilesMs?: number;
  /**
   * Also write the import map's files for pages without `blob:` in their CSP: `vendor/`
   * (React, react-dom, `@svc/react`, … as ES modules, content-hashed), `loader.esm.js` and
   * `importmap.json` (URLs relative to the directory, with integrity). Skipped, with a note,
   * when those packages are not installed beside the server. Default: false (`svc build`
   * turns it on).
   */
  importMap?: boolean;
  /** Called with a short line whenever the build moves on (bundling, writing n/total). */
  onProgress?: (message: string) => void;
  /**
   * The vendor modules: the import map's files, and those `loader.js` fetches for bundles that
   * import `@svc/react`, TanStack Query or goober. Default: built once per process from the
   * packages installed beside `@svc/server`.
   */
  vendorModules?: () => Promise<VendorBuild>;
}

/** {@link BuildOptions.keepOldFilesMs} by default: one hour, as Sprockets' `assets:clean`. */
const KEEP_OLD_FILES_MS = 60 * 60 * 1000;

/** One component of a finished build. */
export interface BuiltBundle
  extends Required<Omit<ManifestEntry, "css" | "assets" | "server" | "urlModule" | "modules">>,
    Pick<ManifestEntry, "server" | "urlModule"> {
  name: string;
  /** The vendor files `loader.js` fetches for it (see `ManifestEntry.modules`); often none. */
  modules: ManifestModule[];
  /** Its stylesheets, in cascade order (empty without CSS). */
  css: ManifestFile[];
  /** The files it imports as URLs. */
  assets: ManifestFile[];
  /** Size of the bundle after gzip (level 9), in bytes. */
  gzipSize: number;
}

export interface BuildResult {
  /** The output directory (absolute). */
  outDir: string;
  manifest: Manifest;
  /** Every bundle, sorted by component name. */
  bundles: BuiltBundle[];
  /** What `importmap.json` holds; undefined when none was written. */
  importMap?: ImportMap;
  /** Wall-clock time of the whole build, in milliseconds. */
  durationMs: number;
}

/**
 * One reason a build failed, located relative to the component it belongs to: an esbuild
 * error, a `schema.json` that is no valid schema, an entry without a default export.
 */
export interface BuildFailure {
  /** The component whose directory holds `file`; undefined for a file shared by several. */
  component?: string;
  /**
   * Path of the offending file relative to the component directory; for a file outside
   * every component, relative to the common root of the sources.
   */
  file?: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
  text: string;
}

/** At least one component cannot ship (see {@link BuildFailure}): nothing was written. */
export class BuildFailedError extends SvcError {
  override name = "BuildFailedError";
  readonly failures: readonly BuildFailure[];

  constructor(failures: readonly BuildFailure[]) {
    const components = new Set(failures.map((f) => f.component ?? "(shared file)"));
    super(
      "BuildFailed",
      `build failed: ${failures.length} error${failures.length === 1 ? "" : "s"} in ${components.size} component${components.size === 1 ? "" : "s"}; the previous output was left untouched\n${failures.map((f) => `  ${formatFailure(f)}`).join("\n")}`,
    );
    this.failures = failures;
  }
}

/** The build cannot start as asked (output directory refused, nothing to build). */
export class BuildSetupError extends SvcError {
  override name = "BuildSetupError";

  constructor(message: string) {
    super("BuildSetup", message);
  }
}

/**
 * The output could not be written (disk full, read-only or immutable directory): nothing
 * was replaced, and what the build had written so far was removed.
 */
export class BuildOutputError extends SvcError {
  override name = "BuildOutputError";
  /** The file-system error code, e.g. `ENOSPC`, `EROFS`, `EPERM`. */
  readonly code: string;

  constructor(outDir: string, cause: NodeJS.ErrnoException & { code: string }) {
    // Node's messages read "ENOSPC: no space left on device, write …": keep the middle part.
    const reason = /^[A-Z0-9_]+: ([^,]+)/.exec(cause.message)?.[1] ?? cause.message;
    super(
      "BuildOutput",
      `build failed: cannot write the build to ${outDir}: ${reason} (${cause.code}); the previous output was left untouched`,
      { cause },
    );
    this.code = cause.code;
  }
}

/** `<component>: <file>:<line>:<column>: <text>` (`<file>: <text>` for a whole file). */
export function formatFailure(failure: BuildFailure): string {
  const where =
    failure.file === undefined
      ? ""
      : failure.line === undefined
        ? `${failure.file}: `
        : `${failure.file}:${failure.line}:${failure.column ?? 0}: `;
  return `${failure.component ?? "(shared file)"}: ${where}${failure.text}`;
}

/**
 * `svc build`: bundles every component of `registry` in one esbuild pass (the same options
 * as the dev server, through `createEsbuildOptions`) and publishes it in `outDir` so that a
 * server reading the directory always sees a whole build, the old one or the new one:
 *
 * 1. each new `bundles/<file_safe_name>.<hash>.js` (and `.gz`/`.br`) is written under a
 *    temporary name and renamed, beside the files of the build in place (a file whose
 *    content-hashed name is already there with the same bytes is left alone);
 * 2. `manifest.json` is replaced by a rename: from that instant readers get the new build;
 * 3. files of older builds go once no manifest has listed them for `keepOldFilesMs`.
 *
 * A failed or killed build leaves the previous output as it was; what a killed one left
 * behind is removed by the next build.
 *
 * Nothing is written either when a component would not work in a page: every `schema.json`
 * must be a JSON Schema (`parseSchema`, then {@link schemaProblem}), and every entry must
 * have a default export (the React component).
 *
 * @throws BuildSetupError when `outDir` is refused or there is nothing to build.
 * @throws BuildFailedError listing every esbuild error, invalid schema and entry without a
 * default export, when any component has one.
 * @throws BuildOutputError when the output cannot be written (disk full, read-only).
 */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  const keepOldFilesMs = options.keepOldFilesMs ?? KEEP_OLD_FILES_MS;
  if (!(Number.isFinite(keepOldFilesMs) && keepOldFilesMs >= 0)) {
    throw new BuildSetupError(
      `keepOldFilesMs must be a number of milliseconds ≥ 0, not ${String(keepOldFilesMs)}`,
    );
  }
  const outDir = resolveOutDir(options.outDir);
  checkOutDir(outDir);
  recoverLeftovers(outDir);

  const components = options.registry.list();
  if (components.length === 0) {
    const sources = options.registry.sources.map((s) => s.dir).join(", ") || "(no sources)";
    throw new BuildSetupError(
      `no components found in ${sources} — pass --components-dir DIR, or add a directory with an index.tsx`,
    );
  }

  progress(`bundling ${components.length} component${components.length === 1 ? "" : "s"}…`);
  const bundleOptions = { minify: options.minify ?? true, sourcemap: options.sourcemap ?? false };
  let vendorBuild: Promise<VendorBuild> | undefined;
  const loadVendor = () => {
    vendorBuild ??= (options.vendorModules ?? vendorModules)();
    return vendorBuild;
  };
  // Pages may use the import map of a directory that has one: only then is its absence news.
  const hadImportMap = existsSync(join(outDir, IMPORT_MAP_FILE));
  const schemaFailures = checkSchemas(components);
  const [finished, mapVendor] = await Promise.all([
    bundleAll(components, bundleOptions).catch((error: unknown) => {
      if (!(error instanceof BuildFailedError)) throw error;
      throw new BuildFailedError(byComponent([...schemaFailures, ...error.failures]));
    }),
    options.importMap === true ? vendorForImportMap(loadVendor, progress, hadImportMap) : undefined,
  ]);
  const failures = byComponent([...schemaFailures, ...defaultExportFailures(components, finished)]);
  if (failures.length > 0) throw new BuildFailedError(failures);
  // The vendor modules `loader.js` fetches on demand (`@svc/react`, TanStack Query, goober),
  // for the bundles that import them.
  const onDemand = new Map(finished.map((bundle) => [bundle.name, onDemandImports(bundle.code)]));
  const needsVendor = [...onDemand.values()].some((imports) => imports.length > 0);
  // Those installed: a bundle whose module is missing names what to install in the page.
  const vendor = mapVendor ?? (needsVendor ? await loadVendor() : undefined);
  for (const missing of vendor?.missing ?? []) {
    const needed = [...onDemand].filter(([, imports]) =>
      imports.some((m) => m === missing.notInstalled),
    );
    if (needed.length > 0) {
      progress(
        `no vendor file for ${missing.notInstalled}, which ${needed.map(([name]) => name).join(", ")} import${needed.length === 1 ? "s" : ""}: install it beside @svc/server`,
      );
    }
  }
  // Each server bundle made from its browser bundle, as the dev server makes it: the same code.
  const servers =
    (options.ssr ?? true)
      ? await Promise.all(
          finished.map(async (bundle) => ({
            name: bundle.name,
            ...(await serverBundleOf(bundle, bundleOptions).catch((error: unknown) => {
              if (!(error instanceof BundleError)) throw error;
              throw new BuildFailedError(
                error.errors.map(({ text }) => ({ component: bundle.name, text })),
              );
            })),
          })),
        )
      : [];

  const output = new OutputWriter(outDir);
  let bundles: BuiltBundle[];
  let manifest: Manifest;
  let importMap: ImportMap | undefined;
  try {
    output.prepare(vendor === undefined ? [] : [VENDOR_DIR]);
    const vendorFiles = new Map<string, Uint8Array>();
    // Read before importmap.json is replaced: the vendor files it lists are previous ones.
    const previous = readPreviousFiles(outDir);
    bundles = await writeBundles(output, finished, options.compress ?? false, progress);
    const serverFiles = writeServerBundles(output, servers);
    manifest = emptyManifest();
    for (const bundle of bundles) {
      const { name, file, hash, integrity, size, css, assets, dependencies, urlModule } = bundle;
      bundle.server = serverFiles.get(name);
      const entry: ManifestEntry = { file, hash, integrity, size };
      if (css.length > 0) entry.css = css;
      if (urlModule !== undefined) entry.urlModule = urlModule;
      if (assets.length > 0) entry.assets = assets;
      if (dependencies.length > 0) entry.dependencies = dependencies;
      if (vendor !== undefined) {
        for (const { module, file: path, integrity, body } of vendorClosure(
          vendor,
          onDemand.get(name) ?? [],
        )) {
          bundle.modules.push({ module, file: path, integrity });
          vendorFiles.set(path, body);
        }
      }
      if (bundle.modules.length > 0) entry.modules = bundle.modules;
      if (bundle.server !== undefined) entry.server = bundle.server;
      manifest[name] = entry;
    }
    if (mapVendor !== undefined) importMap = writeImportMap(output, mapVendor, bundles);
    else for (const [path, body] of vendorFiles) output.place(path, body);
    // What `loader.js` fetches from beside the manifest for islands (static mode has no live
    // reload); without `@svc/loader` installed there is no loader to fetch it.
    const extras = readLoaderExtras();
    if (extras !== undefined) output.place(LOADER_EXTRAS_FILE, extras);
    checkOutDir(outDir); // nothing foreign may have appeared there while we worked
    // The previous build's files the new one drops start their grace period now.
    touchReplaced(outDir, previous, output.written);
    output.place(MANIFEST_FILE, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
  } catch (error) {
    output.undo();
    throw isFileSystemError(error) ? new BuildOutputError(outDir, error) : error;
  }
  const removed = removeOldFiles(outDir, output.written, keepOldFilesMs);
  if (removed > 0) {
    progress(`removed ${removed} file${removed === 1 ? "" : "s"} of older builds`);
  }
  return { outDir, manifest, bundles, importMap, durationMs: performance.now() - started };
}

/**
 * The complete vendor build (for the import map), or undefined when a package of it is not
 * installed: an app that uses neither goober nor the import map does not install goober, so
 * that is said only where an import map was written before (`expected`), as pages there may
 * use it. Elsewhere `renderImportMap` names what to install the day a page asks for one.
 */
async function vendorForImportMap(
  load: () => Promise<VendorBuild>,
  progress: (message: string) => void,
  expected: boolean,
): Promise<VendorBuild | undefined> {
  let vendor: VendorBuild;
  try {
    vendor = await load();
  } catch (error) {
    if (!(error instanceof VendorModulesError)) throw error;
    progress(`no import map written: ${error.message.replace(/^svc: /, "")}`);
    return undefined;
  }
  const missing = vendor.missing[0];
  if (missing === undefined) return vendor;
  if (expected) {
    progress(
      `no import map written (the previous build had one): ${missing.message.replace(/^svc: /, "")}`,
    );
  }
  return undefined;
}

/** The name every component's `schema.json` has. */
const SCHEMA_FILE = "schema.json";

/**
 * Every `schema.json` that cannot describe a component's props: what the server's reader
 * refuses (`parseSchema`: not JSON, not an object, a `$ref` leaving the file), and what is
 * no JSON Schema ({@link schemaProblem}), which no validator could check props against.
 */
function checkSchemas(components: readonly Component[]): BuildFailure[] {
  const failures: BuildFailure[] = [];
  for (const component of components) {
    let text: string;
    try {
      text = readFileSync(join(component.dir, SCHEMA_FILE), "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "EISDIR") continue; // no schema: allowed
      failures.push({
        component: component.name,
        file: SCHEMA_FILE,
        text: `cannot be read (${code})`,
      });
      continue;
    }
    let schema: ComponentSchema;
    try {
      schema = parseSchema(component.name, SCHEMA_FILE, text);
    } catch (error) {
      if (!(error instanceof InvalidSchemaError)) throw error;
      const problem = error.message.slice(`${SCHEMA_FILE}: `.length);
      // Node's JSON.parse says where: "… in JSON at position 41 (line 3 column 12)".
      const at = /\(line (\d+) column (\d+)\)$/.exec(problem);
      failures.push({
        component: component.name,
        file: SCHEMA_FILE,
        ...(at === null ? {} : { line: Number(at[1]), column: Number(at[2]) }),
        text: at === null ? problem : problem.slice(0, at.index).trimEnd(),
      });
      continue;
    }
    const problem = schemaProblem(schema);
    if (problem !== undefined) {
      failures.push({
        component: component.name,
        file: SCHEMA_FILE,
        text: `is not a valid JSON Schema: ${problem}`,
      });
    }
  }
  return failures;
}

/** The entries whose module has no default export: the loader renders `default`. */
function defaultExportFailures(
  components: readonly Component[],
  finished: readonly FinishedBundle[],
): BuildFailure[] {
  const exportsOf = new Map(finished.map((bundle) => [bundle.name, bundle.exports]));
  return components.flatMap((component) => {
    const exported = exportsOf.get(component.name) ?? [];
    if (exported.includes("default")) return [];
    const named = exported.length === 0 ? "nothing" : exported.join(", ");
    return [
      {
        component: component.name,
        file: toPosix(relative(component.dir, component.entry)),
        text: `has no default export (it exports ${named}): export the React component as default — \`export default function …\` or \`export { default } from "./…"\``,
      },
    ];
  });
}

/** `failures` grouped by component (in name order), each component's in the order found. */
function byComponent(failures: readonly BuildFailure[]): BuildFailure[] {
  return [...failures].sort((a, b) =>
    compareCodePoints(a.component ?? "\u{10ffff}", b.component ?? "\u{10ffff}"),
  );
}

const JSON_TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];
/** Keywords whose value is a schema. */
const SCHEMA_KEYWORDS = [
  "additionalItems",
  "additionalProperties",
  "contains",
  "else",
  "if",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
];
/** Keywords whose value is an object of schemas. */
const SCHEMA_MAP_KEYWORDS = ["$defs", "definitions", "dependentSchemas", "properties"];
/** Keywords whose value is a non-empty array of schemas. */
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const COUNT_KEYWORDS = [
  "maxContains",
  "maxItems",
  "maxLength",
  "maxProperties",
  "minContains",
  "minItems",
  "minLength",
  "minProperties",
];
const NUMBER_KEYWORDS = ["maximum", "minimum"];
const STRING_KEYWORDS = [
  "$anchor",
  "$comment",
  "$id",
  "$ref",
  "$schema",
  "description",
  "format",
  "title",
];

/**
 * What makes `schema` no JSON Schema (drafts 4 to 2020-12, as `@svc/react`'s validator reads
 * them), with where (`#/properties/price/type`), or undefined. The keywords that check values
 * must have the shape the specification gives them (a `type` that names a type, a `pattern`
 * that compiles as the validator compiles it, a count that is a whole number ≥ 0, a schema
 * where one is expected); unknown keywords are annotations, as the specification says.
 */
export function schemaProblem(schema: unknown): string | undefined {
  const stack: [unknown, string][] = [[schema, "#"]];
  while (stack.length > 0) {
    const [current, at] = stack.pop() as [unknown, string];
    if (typeof current === "boolean") continue;
    if (typeof current !== "object" || current === null || Array.isArray(current)) {
      return `${at} must be a schema (an object or a boolean), not ${describeJson(current)}`;
    }
    const problem = keywordProblem(current as Record<string, unknown>, at, (value, path) => {
      stack.push([value, path]);
    });
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The first keyword of one schema object with the wrong shape; its subschemas go to `visit`. */
function keywordProblem(
  schema: Record<string, unknown>,
  location: string,
  visit: (subschema: unknown, at: string) => void,
): string | undefined {
  for (const [key, value] of Object.entries(schema)) {
    const at = pointer(location, key);
    const wrong = (expected: string) => `${at} must be ${expected}, not ${describeJson(value)}`;
    if (key === "type") {
      const types: unknown[] = Array.isArray(value) ? value : [value];
      const bad = types.find((t) => !JSON_TYPES.includes(t as string));
      if (types.length === 0 || bad !== undefined) {
        const expected = `one of ${JSON_TYPES.join(", ")} (or an array of them)`;
        return types.length === 0
          ? wrong(expected)
          : `${at} must be ${expected}, not ${describeJson(bad)}`;
      }
    } else if (SCHEMA_KEYWORDS.includes(key)) {
      visit(value, at);
    } else if (key === "items") {
      // A schema, or (drafts 4 to 2019-09) an array of them, one per position.
      if (!Array.isArray(value)) visit(value, at);
      else for (const [i, item] of value.entries()) visit(item, `${at}/${i}`);
    } else if (SCHEMA_MAP_KEYWORDS.includes(key) || key === "patternProperties") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return wrong("an object of schemas");
      }
      for (const [name, subschema] of Object.entries(value)) {
        const path = pointer(at, name);
        if (key === "patternProperties") {
          const problem = regexProblem(name);
          if (problem !== undefined) return `${at}: ${JSON.stringify(name)} ${problem}`;
        }
        visit(subschema, path);
      }
    } else if (SCHEMA_LIST_KEYWORDS.includes(key)) {
      if (!Array.isArray(value) || value.length === 0) return wrong("a non-empty array of schemas");
      for (const [i, item] of value.entries()) visit(item, `${at}/${i}`);
    } else if (key === "required") {
      if (!Array.isArray(value) || value.some((r) => typeof r !== "string")) {
        return wrong("an array of property names");
      }
    } else if (key === "enum") {
      if (!Array.isArray(value)) return wrong("an array of the allowed values");
    } else if (key === "pattern") {
      if (typeof value !== "string") return wrong("a regular expression (a string)");
      const problem = regexProblem(value);
      if (problem !== undefined) return `${at} ${problem}`;
    } else if (COUNT_KEYWORDS.includes(key)) {
      if (!Number.isInteger(value) || (value as number) < 0) return wrong("a whole number ≥ 0");
    } else if (NUMBER_KEYWORDS.includes(key)) {
      if (typeof value !== "number") return wrong("a number");
    } else if (key === "exclusiveMaximum" || key === "exclusiveMinimum") {
      // A number since draft 6; a boolean beside maximum/minimum in draft 4.
      if (typeof value !== "number" && typeof value !== "boolean") return wrong("a number");
    } else if (key === "multipleOf") {
      if (typeof value !== "number" || !(value > 0)) return wrong("a number > 0");
    } else if (key === "uniqueItems") {
      if (typeof value !== "boolean") return wrong("true or false");
    } else if (STRING_KEYWORDS.includes(key)) {
      if (typeof value !== "string") return wrong("a string");
    } else if (key === "dependentRequired" || key === "dependencies") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return wrong("an object");
      }
      for (const [name, item] of Object.entries(value)) {
        const path = pointer(at, name);
        const names = Array.isArray(item) && item.every((r) => typeof r === "string");
        if (names) continue;
        if (key === "dependentRequired") return `${path} must be an array of property names`;
        visit(item, path); // `dependencies`: property names, or a schema
      }
    }
  }
  return undefined;
}

/** `at` and one more JSON Pointer segment. */
function pointer(at: string, key: string): string {
  return `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** Why `pattern` does not compile as the validator compiles it (`new RegExp(p, "u")`). */
function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
    return undefined;
  } catch (error) {
    return `is not a regular expression: ${(error as Error).message}`;
  }
}

/** `"nubmer"`, `an array`, `null`: a JSON value, briefly, for a message. */
function describeJson(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}

/** Writes `vendor/`, `loader.esm.js` and, last, `importmap.json`. */
function writeImportMap(
  output: OutputWriter,
  vendor: VendorBuild,
  bundles: readonly BuiltBundle[],
): ImportMap {
  for (const { file, body } of vendor.modules.values()) output.place(file, body);
  if (vendor.loader !== undefined) output.place(ESM_LOADER_FILE, vendor.loader.body);
  const map = createBuildImportMap(vendor, bundles);
  output.place(IMPORT_MAP_FILE, Buffer.from(`${JSON.stringify(map, null, 2)}\n`));
  return map;
}

/** `@svc/loader`'s `loader.extras.js` as installed, or undefined. */
function readLoaderExtras(): Uint8Array | undefined {
  if (loaderExtrasPath === undefined) return undefined;
  try {
    return new Uint8Array(readFileSync(loaderExtrasPath));
  } catch {
    return undefined;
  }
}

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return typeof code === "string" && typeof syscall === "string";
}

interface FinishedBundle extends FinishedComponent {
  name: string;
  /** What it asks for by a literal name (browser bundles; empty for server ones). */
  dependencies: string[];
  /** The names its entry exports, from esbuild's metafile (`default` for a component). */
  exports: string[];
}

/**
 * One esbuild pass over every entry point; each output mapped back to its component. A
 * component holding a CSS module is then built again on its own, exactly as the dev server
 * builds it: in one pass over many entry points esbuild may rename a module's class names
 * differently per entry point (`title2`), and minified it shortens them to names (`a`, `b`)
 * unique only within one build; alone, and keeping identifiers, its class names are the
 * readable ones of every other build (see `createEsbuildOptions`).
 */
async function bundleAll(
  components: readonly Component[],
  options: { minify: boolean; sourcemap: boolean },
): Promise<FinishedBundle[]> {
  const pass = async (entries: readonly Component[], readableNames: boolean) => {
    const esbuildOptions = createEsbuildOptions(entries, {
      ...options,
      mode: "production",
      readableNames,
    });
    let result: esbuild.BuildResult<{ write: false; metafile: true }>;
    try {
      result = await runEsbuild(esbuildOptions);
    } catch (error) {
      const messages = (error as esbuild.BuildFailure).errors;
      if (!Array.isArray(messages) || messages.length === 0) throw error;
      throw new BuildFailedError(toFailures(entries, esbuildOptions, messages));
    }
    const { absWorkingDir: workingDir, outdir } = esbuildOptions;
    return Promise.all(
      entries.map(async (component) => {
        const finished = finishComponent(component, result, esbuildOptions);
        // The component's own slice of the pass: the inputs of its output file.
        const js = join(outdir, `${fileSafeName(component.name)}.js`);
        const meta = result.metafile.outputs[toPosix(relative(workingDir, js))];
        const inputs = Object.keys(meta?.inputs ?? {});
        const dependencies = await detectDependencies(
          inputs.map((input) => resolve(workingDir, input)),
          component.name,
          finished.code,
        );
        return { name: component.name, ...finished, dependencies, exports: meta?.exports ?? [] };
      }),
    );
  };
  const finished = await pass(components, false);
  const alone = components.filter((_, i) => finished[i]?.cssModules === true);
  const again = new Map<string, FinishedBundle>();
  let next = 0;
  const worker = async () => {
    while (next < alone.length) {
      const component = alone[next++] as Component;
      const [bundle] = await pass([component], options.minify);
      if (bundle !== undefined) again.set(bundle.name, bundle);
    }
  };
  await Promise.all(Array.from({ length: Math.min(4, alone.length) }, worker));
  return finished
    .map((bundle) => again.get(bundle.name) ?? bundle)
    .sort((a, b) => compareCodePoints(a.name, b.name));
}

/** esbuild's messages, each attributed to the innermost component directory holding its file. */
function toFailures(
  components: readonly Component[],
  esbuildOptions: ReturnType<typeof createEsbuildOptions>,
  messages: readonly esbuild.Message[],
): BuildFailure[] {
  const workingDir = esbuildOptions.absWorkingDir;
  const files = componentFilesOf(esbuildOptions);
  const byDepth = [...components].sort((a, b) => b.dir.length - a.dir.length);
  return messages.map((message) => {
    const text = explainMessage(message.text);
    const location = message.location;
    if (!location) return { text };
    const absolute = messageFile(location.file, workingDir, files);
    const owner = byDepth.find((c) => isInside(absolute, c.dir));
    const base = owner?.dir ?? workingDir;
    return {
      component: owner?.name,
      file: relative(base, absolute).split(sep).join("/"),
      line: location.line,
      column: location.column + 1,
      text,
    };
  });
}

/**
 * Writes every bundle (and its compressed siblings) into `bundles/`. Small files are
 * written and gzipped synchronously — on the thread pool each would cost more in hand-offs
 * than the work itself — yielding to the event loop now and then; only brotli, slow and
 * CPU-bound, runs on the pool, a few files at a time.
 */
async function writeBundles(
  output: OutputWriter,
  finished: readonly FinishedBundle[],
  compress: boolean,
  progress: (message: string) => void,
): Promise<BuiltBundle[]> {
  // Count in tenths on big builds; small ones finish before a count would be read.
  const step = finished.length >= 50 ? Math.ceil(finished.length / 10) : finished.length;
  progress(`writing ${finished.length} bundle${finished.length === 1 ? "" : "s"}…`);
  const bundles: BuiltBundle[] = [];
  /** Every file to compress with brotli: bundles, stylesheets, text assets. */
  const compressible: { file: string; bytes: Uint8Array }[] = [];
  /** Stylesheets and assets by path: a file several components share is written once. */
  const shared = new Map<string, ManifestFile>();
  const placeShared = (file: BundleFile, dir: string): ManifestFile => {
    const path = `${dir}/${file.path}`;
    let listed = shared.get(path);
    if (listed === undefined) {
      listed = { file: path, integrity: integrityOf(file.bytes) };
      shared.set(path, listed);
      output.place(path, file.bytes);
      if (compress && isText(file.path)) {
        output.place(`${path}.gz`, gzip(file.bytes));
        compressible.push({ file: path, bytes: file.bytes });
      }
    }
    return listed;
  };
  for (const [
    index,
    { name, code, hash, stylesheets, assets, dependencies },
  ] of finished.entries()) {
    const file = `${BUNDLES_DIR}/${fileSafeName(name)}.${hash}.js`;
    const gzipped = gzip(code);
    output.place(file, code);
    if (compress) {
      output.place(`${file}.gz`, gzipped);
      compressible.push({ file, bytes: code });
    }
    // The form `moduleLoading: "url"` imports: the same bytes the API answers for `?url`.
    const variant = withoutStylesheetImports(
      code,
      stylesheets.map((sheet) => sheet.path),
    );
    let urlModule: ManifestFile | undefined;
    if (variant !== code) {
      urlModule = {
        file: `${BUNDLES_DIR}/${fileSafeName(name)}.${contentHash(variant)}.js`,
        integrity: integrityOf(variant),
      };
      output.place(urlModule.file, variant);
      if (compress) {
        output.place(`${urlModule.file}.gz`, gzip(variant));
        compressible.push({ file: urlModule.file, bytes: variant });
      }
    }
    bundles.push({
      urlModule,
      name,
      file,
      hash,
      integrity: integrityOf(code),
      size: code.byteLength,
      gzipSize: gzipped.byteLength,
      dependencies,
      modules: [],
      css: stylesheets.map((sheet) => placeShared(sheet, BUNDLES_DIR)),
      assets: assets.map((asset) => placeShared(asset, BUNDLES_DIR)),
    });
    const done = index + 1;
    if (done % step === 0 && done < finished.length) {
      progress(`writing bundles ${done}/${finished.length}…`);
    }
    if (done % 32 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  if (compress) {
    progress(
      `compressing ${compressible.length} file${compressible.length === 1 ? "" : "s"} with brotli…`,
    );
    let next = 0;
    const worker = async () => {
      while (next < compressible.length) {
        const { file, bytes } = compressible[next++] as (typeof compressible)[number];
        const brotli = await brotliAsync(bytes, {
          params: {
            [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
            [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
            [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
          },
        });
        output.place(`${file}.br`, brotli);
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, compressible.length) }, worker));
  }
  return bundles;
}

function integrityOf(bytes: Uint8Array): string {
  return `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
}

function gzip(bytes: Uint8Array): Uint8Array {
  return normalizeGzipHeader(gzipSync(bytes, { level: zlib.Z_BEST_COMPRESSION }));
}

/** Files worth compressing: stylesheets and text assets (images and fonts are compressed already). */
function isText(path: string): boolean {
  return /\.(?:css|svg|json|txt)$/i.test(path);
}

/** Writes each server bundle as `bundles/<file_safe_name>.<hash>.cjs`; never compressed. */
function writeServerBundles(
  output: OutputWriter,
  servers: readonly { name: string; code: Uint8Array; hash: string }[],
): Map<string, { file: string; integrity: string }> {
  const files = new Map<string, { file: string; integrity: string }>();
  for (const { name, code, hash } of servers) {
    const file = `${BUNDLES_DIR}/${fileSafeName(name)}.${hash}.cjs`;
    output.place(file, code);
    files.set(name, {
      file,
      integrity: integrityOf(code),
    });
  }
  return files;
}

/**
 * gzip's header records the operating system it was made on; pin it to "Unix" so the `.gz`
 * files are byte-identical wherever the build runs (the header carries no checksum).
 */
function normalizeGzipHeader(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength > 9) bytes[9] = 3;
  return bytes;
}

/** An existing output directory reached through a symlink is replaced where it really is. */
function resolveOutDir(outDir: string): string {
  const absolute = resolve(outDir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/** Temporary files of a build: `.tmp-<pid>-<random>.<final name>`, beside their final name. */
const TEMPORARY = /^\.tmp-(\d+)-[0-9a-f]+\./;
/** The files a build writes into `bundles/`: `<file_safe_name>.<hash>.js`, `.gz`, `.br`, and the server bundles `<file_safe_name>.<hash>.cjs`. */
const BUNDLE_FILE = /^[A-Za-z_][A-Za-z0-9_.-]*\.[0-9a-f]{8,64}\.(?:js(?:\.gz|\.br)?|cjs)$/;
const BUNDLES_DIR = "bundles";
/** The vendor modules of the import map: `<module>.<hash>.js`. */
const VENDOR_FILE = /^[a-z0-9-]+\.[0-9a-f]{12}\.js$/;
/** What the import map adds at the top of a build directory. */
const IMPORT_MAP_ENTRIES: readonly string[] = [VENDOR_DIR, IMPORT_MAP_FILE, ESM_LOADER_FILE];
/** `bundles/assets`, relative to the output directory. */
const ASSETS_PATH = `${BUNDLES_DIR}/${ASSETS_DIR}`;

/** Whether `name`, in the output's subdirectory `dir` (`bundles`, `bundles/assets` or `vendor`), is a file svc writes. */
function isOutputFile(name: string, dir: string): boolean {
  if (dir === VENDOR_DIR) return VENDOR_FILE.test(name);
  const plain = name.replace(/\.(?:gz|br)$/, "");
  return dir === ASSETS_PATH
    ? ASSET_NAME.test(plain)
    : BUNDLE_FILE.test(name) || STYLESHEET_NAME.test(plain);
}

/**
 * Writes files into the output directory under their final names without a reader ever
 * seeing half of one (a temporary name, then a rename), and remembers what it added so a
 * failed build can take it back.
 */
class OutputWriter {
  readonly dir: string;
  /** Paths (relative to `dir`) this build lists: written now, or already there, identical. */
  readonly written = new Set<string>();
  readonly #token = `${process.pid}-${randomBytes(4).toString("hex")}`;
  /** What did not exist before this build: removed again if it fails. */
  readonly #created: string[] = [];
  readonly #temporary = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Creates the directory, `bundles/` and `extra` directories where missing. */
  prepare(extra: readonly string[] = []): void {
    const parent = dirname(this.dir);
    if (statSync(parent, { throwIfNoEntry: false }) === undefined) {
      mkdirSync(parent, { recursive: true });
    }
    // Not recursive: on a read-only file system a recursive mkdir reports ENOENT, not EROFS.
    for (const dir of [this.dir, ...[BUNDLES_DIR, ...extra].map((d) => join(this.dir, d))]) {
      this.#makeDir(dir);
    }
  }

  #makeDir(dir: string): void {
    if (statSync(dir, { throwIfNoEntry: false }) !== undefined) return;
    mkdirSync(dir);
    this.#created.push(dir);
  }

  /**
   * Puts `bytes` at `file` (relative to the directory). A file already there with the same
   * bytes is left alone (a bundle's name carries its hash, so this is the usual case for
   * unchanged components); anything else is written aside and renamed over.
   */
  place(file: string, bytes: Uint8Array): void {
    const path = join(this.dir, file);
    this.written.add(file);
    if (file.startsWith(`${ASSETS_PATH}/`)) this.#makeDir(join(this.dir, ASSETS_PATH));
    const existing = readIfFile(path);
    if (existing !== undefined && Buffer.from(bytes).equals(existing)) return;
    const slash = file.lastIndexOf("/");
    const temporary = join(
      this.dir,
      `${file.slice(0, slash + 1)}.tmp-${this.#token}.${file.slice(slash + 1)}`,
    );
    this.#temporary.add(temporary);
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
    this.#temporary.delete(temporary);
    if (existing === undefined) this.#created.push(path);
  }

  /**
   * Takes back what this build added (its temporary files, new files, directories it made),
   * as far as the file system lets it: what is left is removed by the next build.
   */
  undo(): void {
    for (const path of [...this.#temporary, ...this.#created.reverse()]) {
      try {
        if (
          path === this.dir ||
          [BUNDLES_DIR, ASSETS_PATH, VENDOR_DIR].some((d) => path === join(this.dir, d))
        ) {
          rmdirSync(path);
        } else unlinkSync(path);
      } catch {
        // read-only, or no longer empty: recoverLeftovers and removeOldFiles see to it
      }
    }
  }
}

/** The bytes of the regular file at `path`, or undefined when there is none. */
function readIfFile(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR") return undefined;
    throw error;
  }
}

/**
 * The files (relative to `outDir`) of the build in place: the manifest's bundles, their
 * `.gz`/`.br` siblings and their server bundles. Empty when there is no usable manifest.
 */
function readPreviousFiles(outDir: string): string[] {
  let manifest: Manifest;
  try {
    manifest = parseManifest(readFileSync(join(outDir, MANIFEST_FILE), "utf8"));
  } catch {
    return [];
  }
  let vendor: string[] = [];
  try {
    vendor = importMapFiles(readImportMap(outDir)).filter((f) => f.startsWith(`${VENDOR_DIR}/`));
  } catch {
    // no import map in that build
  }
  return Object.values(manifest)
    .flatMap(({ file, urlModule, css = [], assets = [], server, modules = [] }) => [
      ...modules.map((m) => m.file),
      ...[
        file,
        ...(urlModule === undefined ? [] : [urlModule.file]),
        ...css.map((f) => f.file),
        ...assets.map((f) => f.file),
      ].flatMap((path) => [path, `${path}.gz`, `${path}.br`]),
      ...(server === undefined ? [] : [server.file]),
    ])
    .concat(vendor);
}

/**
 * Sets the modification time of the previous build's files that the new one does not list
 * to now: the moment they stop being listed, from which their grace period runs.
 */
function touchReplaced(outDir: string, previous: readonly string[], next: ReadonlySet<string>) {
  const now = new Date();
  for (const file of previous) {
    if (next.has(file)) continue;
    try {
      // The entry itself: a symbolic link someone put there is not followed out of the build.
      lutimesSync(join(outDir, file), now, now);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
    }
  }
}

/**
 * Deletes the files in `bundles/` that the new build does not list and that no build has
 * listed for `keepMs` (their modification time: when a build wrote them, or when the build
 * that stopped listing them ran). Only names svc writes are touched. Best effort: the new
 * build is in place already, and what cannot be removed now is removed by a later build.
 * @returns how many files were removed.
 */
function removeOldFiles(outDir: string, listed: ReadonlySet<string>, keepMs: number): number {
  const before = Date.now() - keepMs;
  let removed = 0;
  for (const path of [BUNDLES_DIR, ASSETS_PATH, VENDOR_DIR]) {
    const dir = join(outDir, path);
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue;
    }
    for (const name of entries) {
      if (!isOutputFile(name, path) || listed.has(`${path}/${name}`)) continue;
      try {
        // svc writes regular files only: a link or directory of that name is someone else's.
        const stat = lstatSync(join(dir, name));
        if (!stat.isFile() || stat.mtimeMs > before) continue;
        unlinkSync(join(dir, name));
        removed++;
      } catch {
        // gone already, or not ours to remove: the next build tries again
      }
    }
  }
  return removed;
}

/**
 * Refuses to write into anything that is not certainly a previous build: a directory may be
 * written into when it is empty, or when it holds nothing but `bundles/`, a `manifest.json`
 * that parses as an svc manifest (a web-app `manifest.json` in `public/` does not) and
 * temporary files of svc builds. Without `manifest.json` (a first build was killed before
 * publishing it) `bundles/` may hold only files svc names.
 */
function checkOutDir(outDir: string): void {
  const stat = statSync(outDir, { throwIfNoEntry: false });
  if (stat === undefined) return;
  const fix = "so it was left untouched — pass --output with a new or empty directory";
  if (!stat.isDirectory()) {
    throw new BuildSetupError(`${outDir} is not a directory, ${fix}`);
  }
  const entries = readdirSync(outDir);
  const foreign = entries.filter(
    (name) =>
      name !== MANIFEST_FILE &&
      name !== BUNDLES_DIR &&
      name !== LOADER_EXTRAS_FILE &&
      !IMPORT_MAP_ENTRIES.includes(name) &&
      !TEMPORARY.test(name),
  );
  if (entries.includes(MANIFEST_FILE)) {
    try {
      parseManifest(readFileSync(join(outDir, MANIFEST_FILE), "utf8"), MANIFEST_FILE);
    } catch (error) {
      throw new BuildSetupError(
        `${outDir} holds a ${MANIFEST_FILE} that is not an svc manifest (${(error as Error).message}), ${fix}`,
      );
    }
  } else if (entries.length > 0 && (foreign.length > 0 || !holdsOnlyBundleFiles(outDir))) {
    throw new BuildSetupError(
      `${outDir} is not empty and holds no ${MANIFEST_FILE}, so it is not a previous svc build and was left untouched — pass --output with a new or empty directory`,
    );
  }
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 3).join(", ") + (foreign.length > 3 ? ", …" : "");
    throw new BuildSetupError(`${outDir} holds files svc build does not write (${shown}), ${fix}`);
  }
}

/** Whether `outDir/bundles` is a directory holding nothing but files named as svc names them. */
function holdsOnlyBundleFiles(outDir: string): boolean {
  const only = (path: string, inAssets: boolean): boolean =>
    readdirSync(join(outDir, path), { withFileTypes: true }).every((entry) =>
      !inAssets && entry.name === ASSETS_DIR && entry.isDirectory()
        ? only(ASSETS_PATH, true)
        : entry.isFile() &&
          (isOutputFile(entry.name, inAssets ? ASSETS_PATH : BUNDLES_DIR) ||
            TEMPORARY.test(entry.name)),
    );
  try {
    return only(BUNDLES_DIR, false);
  } catch {
    return false;
  }
}

/**
 * Deletes the temporary files of builds that were killed (in the directory and in
 * `bundles/`); those of builds still running (their process is alive) are kept. Files a
 * killed build finished writing are listed by no manifest: `removeOldFiles` sees to them.
 */
function recoverLeftovers(outDir: string): void {
  for (const dir of [
    outDir,
    join(outDir, BUNDLES_DIR),
    join(outDir, ASSETS_PATH),
    join(outDir, VENDOR_DIR),
  ]) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue; // not there yet: nothing to clean
    }
    for (const name of entries) {
      const match = TEMPORARY.exec(name);
      if (match === null || isAlive(Number(match[1]))) continue;
      try {
        unlinkSync(join(dir, name));
      } catch {
        // read-only for now: harmless (never served, never listed), and tried again next time
      }
    }
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** `1.23 kB`, as build tools print sizes. */
export function formatSize(bytes: number): string {
  return bytes < 1000 ? `${bytes} B` : `${(bytes / 1000).toFixed(2)} kB`;
}

/** The table `svc build` prints: component, size, gzip size, hash; then the totals. */
export function formatBuildReport(result: BuildResult, cwd = process.cwd()): string {
  const rows = result.bundles.map((b) => [
    b.name,
    formatSize(b.size),
    formatSize(b.gzipSize),
    b.hash,
  ]);
  const header = ["component", "size", "gzip", "hash"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === 1 || i === 2 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join("  ")
      .trimEnd();
  const total = result.bundles.reduce((sum, b) => sum + b.size, 0);
  const totalGzip = result.bundles.reduce((sum, b) => sum + b.gzipSize, 0);
  const shown = relative(cwd, result.outDir) || ".";
  const count = result.bundles.length;
  return [
    line(header),
    ...rows.map(line),
    "",
    `${count} component${count === 1 ? "" : "s"}, ${formatSize(total)} (gzip ${formatSize(totalGzip)}) → ${shown.startsWith("..") ? result.outDir : shown} in ${Math.round(result.durationMs)} ms`,
  ].join("\n");
}
