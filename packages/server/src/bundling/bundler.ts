/**
 * A component's bundle, made by esbuild in-process (`esbuildBundler`), or by a bundler of your
 * own: the bytes served and what they were made of. The steps have files of their own:
 * `esbuildOptions.ts` (the options, shared with `svc build`), `esbuildReport.ts` (errors and
 * metafile), `finishOutput.ts` (the bytes served); this module re-exports what the rest of
 * the server uses of them.
 */
import { readdirSync, statSync } from "node:fs";
import * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import { detectDependencies, loadParser } from "./dependencies.ts";
import { type BundleOptions, componentFilesOf, createEsbuildOptions } from "./esbuildOptions.ts";
import { checkInsideRoot, readMetafile, toBundleErrorLocations } from "./esbuildReport.ts";
import { type BundleFile, type FinishedComponent, finishComponent } from "./finishOutput.ts";
import type { Resolution } from "./recordCollector.ts";
import { needsStylePlugin } from "./stylePlugins.ts";

export { contentHash } from "../util/contentHash.ts";
export {
  BROWSER_BUILD,
  type BundleOptions,
  componentFilesOf,
  createEsbuildOptions,
  EXTERNALS,
  envDefines,
  PUBLIC_ENV_PREFIX,
  type SvcEsbuildOptions,
  workingDirOf,
} from "./esbuildOptions.ts";
export {
  checkInsideRoot,
  messageFile,
  readMetafile,
  toBundleErrorLocations,
} from "./esbuildReport.ts";
export {
  type BundleFile,
  type FinishedComponent,
  type FinishedOutput,
  type FinishOutputOptions,
  finishComponent,
  finishOutput,
} from "./finishOutput.ts";

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
    let run = await bundleOnce(component, { ...options, cssModules: guess }).catch((error) => {
      // A Sass file outside the component's folder, which the guess did not see.
      if (guess || !needsStylePlugin(error)) throw error;
      return bundleOnce(component, { ...options, cssModules: true });
    });
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
 * Whether `component`'s directory holds a CSS module or a Sass file: the guess that decides
 * whether its first build takes the CSS-module (and style) plugins along. Read once per change
 * of the directory; a wrong guess costs a second build (the output shows the CSS module, or
 * esbuild has no loader for a Sass file), never a wrong bundle.
 */
function mayUseCssModules(component: Component): boolean {
  const mtimeMs = statSync(component.dir, { throwIfNoEntry: false })?.mtimeMs;
  if (mtimeMs === undefined) return true;
  const seen = cssModulesSeen.get(component.dir);
  if (seen?.mtimeMs === mtimeMs) return seen.found;
  let found = true;
  try {
    found = readdirSync(component.dir).some((entry) => /\.module\.css$|\.s[ac]ss$/i.test(entry));
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
        toBundleErrorLocations(
          component,
          workingDir,
          failure.errors,
          files,
          options.mode !== "production",
        ),
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
