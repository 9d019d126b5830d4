import { join, relative, resolve, sep } from "node:path";
import { fileSafeName } from "@svc/protocol";
import type * as esbuild from "esbuild";
import {
  componentFilesOf,
  createEsbuildOptions,
  type FinishedComponent,
  finishComponent,
  messageFile,
  runEsbuild,
} from "../bundling/bundler.ts";
import { explainMessage } from "../bundling/componentFiles.ts";
import { detectDependencies } from "../bundling/dependencies.ts";
import type { Component } from "../components/componentRegistry.ts";
import { compareCodePoints } from "../components/componentRegistry.ts";
import { isInside, toPosix } from "../util/paths.ts";
import { BuildFailedError, type BuildFailure } from "./buildErrors.ts";
import { forEachConcurrently } from "./forEachConcurrently.ts";

/** How the build bundles: the options it shares with the dev server's bundler. */
export interface BundleOptions {
  minify: boolean;
  sourcemap: boolean;
}

/** One component's browser bundle, as esbuild finished it. */
export interface FinishedBundle extends FinishedComponent {
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
 * @throws BuildFailedError listing esbuild's errors, each at its component.
 */
export async function bundleAll(
  components: readonly Component[],
  options: BundleOptions,
): Promise<FinishedBundle[]> {
  const finished = await bundlePass(components, options, false);
  const alone = components.filter((_, i) => finished[i]?.cssModules === true);
  const again = new Map<string, FinishedBundle>();
  await forEachConcurrently(alone, 4, async (component) => {
    const [bundle] = await bundlePass([component], options, options.minify);
    if (bundle !== undefined) again.set(bundle.name, bundle);
  });
  return finished
    .map((bundle) => again.get(bundle.name) ?? bundle)
    .sort((a, b) => compareCodePoints(a.name, b.name));
}

/** One esbuild run over `entries`, in their order. */
async function bundlePass(
  entries: readonly Component[],
  options: BundleOptions,
  readableNames: boolean,
): Promise<FinishedBundle[]> {
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
