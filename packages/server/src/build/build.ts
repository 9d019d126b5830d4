import { existsSync } from "node:fs";
import { join } from "node:path";
import { type VendorBuild, vendorModules } from "../bundling/vendorModules.ts";
import type { Component, ComponentRegistry } from "../components/componentRegistry.ts";
import { IMPORT_MAP_FILE } from "../served/importMapFile.ts";
import {
  BuildFailedError,
  type BuildFailure,
  BuildSetupError,
  byComponent,
} from "./buildErrors.ts";
import type { BuildResult } from "./buildResult.ts";
import { type BundleOptions, bundleAll, type FinishedBundle } from "./bundleAll.ts";
import { checkDefaultExports } from "./checkDefaultExports.ts";
import { checkSchemas } from "./checkSchemas.ts";
import { removeOldFiles } from "./oldFiles.ts";
import { checkOutDir, recoverLeftovers, resolveOutDir } from "./outputDir.ts";
import { publish } from "./publish.ts";
import { buildServerBundles } from "./serverBundles.ts";
import {
  needsVendor,
  onDemandImportsOf,
  reportMissingVendor,
  VendorForBuild,
} from "./vendorForBuild.ts";

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
 * must be a JSON Schema (`parseSchema`), and every entry must have a
 * default export (the React component).
 *
 * @throws BuildSetupError when `outDir` is refused or there is nothing to build.
 * @throws BuildFailedError listing every esbuild error, invalid schema and entry without a
 * default export, when any component has one.
 * @throws BuildOutputError when the output cannot be written (disk full, read-only).
 */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  const keepOldFilesMs = keepOldFilesMsOf(options);
  const outDir = resolveOutDir(options.outDir);
  checkOutDir(outDir);
  recoverLeftovers(outDir);
  const components = componentsOf(options.registry);

  progress(`bundling ${components.length} component${components.length === 1 ? "" : "s"}…`);
  const bundleOptions = { minify: options.minify ?? true, sourcemap: options.sourcemap ?? false };
  const vendor = new VendorForBuild(options.vendorModules ?? vendorModules);
  // Pages may use the import map of a directory that has one: only then is its absence news.
  const hadImportMap = existsSync(join(outDir, IMPORT_MAP_FILE));
  const schemaFailures = checkSchemas(components);
  const [finished, mapVendor] = await Promise.all([
    bundleAllListing(schemaFailures, components, bundleOptions),
    options.importMap === true ? vendor.forImportMap(progress, hadImportMap) : undefined,
  ]);
  throwFailures([...schemaFailures, ...checkDefaultExports(components, finished)]);

  const onDemand = onDemandImportsOf(finished);
  // Those installed: a bundle whose module is missing names what to install in the page.
  const bundleVendor = mapVendor ?? (needsVendor(onDemand) ? await vendor.load() : undefined);
  reportMissingVendor(bundleVendor, onDemand, progress);
  const servers = (options.ssr ?? true) ? await buildServerBundles(finished, bundleOptions) : [];

  const { bundles, manifest, importMap, written } = await publish({
    outDir,
    finished,
    servers,
    vendor: bundleVendor,
    mapVendor,
    onDemand,
    compress: options.compress ?? false,
    progress,
  });
  const removed = removeOldFiles(outDir, written, keepOldFilesMs);
  if (removed > 0) {
    progress(`removed ${removed} file${removed === 1 ? "" : "s"} of older builds`);
  }
  return { outDir, manifest, bundles, importMap, durationMs: performance.now() - started };
}

/** {@link BuildOptions.keepOldFilesMs}, checked before anything is touched. */
function keepOldFilesMsOf(options: BuildOptions): number {
  const keepOldFilesMs = options.keepOldFilesMs ?? KEEP_OLD_FILES_MS;
  if (!(Number.isFinite(keepOldFilesMs) && keepOldFilesMs >= 0)) {
    throw new BuildSetupError(
      `keepOldFilesMs must be a number of milliseconds ≥ 0, not ${String(keepOldFilesMs)}`,
    );
  }
  return keepOldFilesMs;
}

/** The components to build; none is a mistake in the options, said with the fix. */
function componentsOf(registry: ComponentRegistry): Component[] {
  const components = registry.list();
  if (components.length === 0) {
    const sources = registry.sources.map((s) => s.dir).join(", ") || "(no sources)";
    throw new BuildSetupError(
      `no components found in ${sources} — pass --components-dir DIR, or add a directory with an index.tsx`,
    );
  }
  return components;
}

/**
 * {@link bundleAll}, whose failures are listed with those found before it (`earlier`, the
 * schemas'), so that one build names every problem at once.
 */
function bundleAllListing(
  earlier: readonly BuildFailure[],
  components: readonly Component[],
  options: BundleOptions,
): Promise<FinishedBundle[]> {
  return bundleAll(components, options).catch((error: unknown) => {
    if (!(error instanceof BuildFailedError)) throw error;
    throw new BuildFailedError(byComponent([...earlier, ...error.failures]));
  });
}

/** @throws BuildFailedError listing `failures` by component, when there is any. */
function throwFailures(failures: readonly BuildFailure[]): void {
  if (failures.length > 0) throw new BuildFailedError(byComponent(failures));
}
