/**
 * Styles as users write them: Sass (`.scss`, `.sass`, `.module.scss`) compiled by `sass`, and
 * every stylesheet a component imports run through PostCSS when its project has a
 * `postcss.config.*` (so Tailwind v4's `@tailwindcss/postcss` works). An esbuild plugin placed
 * before `componentFilesPlugin`: it only loads — the CSS it makes is handed to esbuild as `css`
 * or, for CSS modules, `local-css` under the name `componentFilesPlugin` gives the module, so
 * class names, the cut into one stylesheet per source file and the end marks of minified
 * output stay exactly those of plain CSS. A stylesheet that needs neither tool is left to the
 * next plugin (or esbuild). The tools themselves: `styleTools.ts`.
 *
 * The files a tool read (Sass partials, the PostCSS config, stylesheets Tailwind imported) are
 * recorded as the bundle's inputs, so the dev server rebuilds when one changes. Files Tailwind
 * scans for class names are not: a component's own files are inputs already (an edit that
 * adds a class rebuilds the bundle, and Tailwind scans again), and counting every file of the
 * project would make each component depend on all of them (see docs/DECISIONS.md).
 */
import { readFileSync } from "node:fs";
import { dirname, relative } from "node:path";
import type * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import { isInside, toPosix } from "../util/paths.ts";
import {
  type ComponentFiles,
  CSS_FILE,
  CSS_MODULE,
  CSS_MODULE_NS,
  endMarked,
} from "./componentFiles.ts";
import {
  type CompiledStyle,
  compileSass,
  findPostcssConfig,
  MissingPackageError,
  runPostcss,
  SASS_FILE,
  StyleSyntaxError,
} from "./styleTools.ts";

export interface StylePluginOptions {
  components: readonly Component[];
  workingDir: string;
  mode: "development" | "production";
}

/**
 * Whether a build of `components` needs {@link stylePlugin} for their own stylesheets: one of
 * them is in a project with a `postcss.config.*` (looked for from its folder up to its project
 * root). Sass files need it too; those are found by their import (see {@link needsStylePlugin}).
 */
export function usesPostcss(components: readonly Component[]): boolean {
  return components.some((c) => findPostcssConfig(c.dir, c.source.root) !== undefined);
}

/**
 * Whether a build without the plugins failed only for want of them: esbuild found a Sass file
 * it has no loader for (one outside the component's folder, where the first guess looked).
 */
export function needsStylePlugin(error: unknown): boolean {
  return (
    error instanceof BundleError &&
    error.errors.some((e) => /^No loader is configured for "\.s[ac]ss" files/.test(e.text))
  );
}

/** The esbuild plugin of Sass and PostCSS; what it reads goes into `files.reads`. */
export function stylePlugin(files: ComponentFiles, options: StylePluginOptions): esbuild.Plugin {
  const { components, workingDir, mode } = options;
  const roots = [...new Set(components.map((c) => c.source.root))].sort(
    (a, b) => b.length - a.length,
  );
  const rootOf = (file: string) => roots.find((root) => isInside(file, root)) ?? workingDir;
  const configs = new Map<string, string | undefined>();
  /** The PostCSS config that applies to `file` (looked up once per directory and build). */
  const configOf = (file: string) => {
    const dir = dirname(file);
    if (!configs.has(dir)) configs.set(dir, findPostcssConfig(dir, rootOf(file)));
    return configs.get(dir);
  };

  /** The CSS of `file`, or undefined when it is plain CSS and no PostCSS config applies. */
  async function compile(file: string): Promise<CompiledStyle | undefined> {
    const sass = SASS_FILE.test(file);
    const config = configOf(file);
    if (!sass && config === undefined) return undefined;
    const compiled = sass
      ? await compileSass(file)
      : { css: readFileSync(file, "utf8"), reads: [], warnings: [] };
    if (config === undefined) return compiled;
    const processed = await runPostcss(file, compiled.css, config, mode);
    return {
      css: processed.css,
      reads: [...compiled.reads, ...processed.reads],
      warnings: [...compiled.warnings, ...processed.warnings],
    };
  }

  async function load(
    file: string,
    loader: "css" | "local-css",
    marked: boolean,
  ): Promise<esbuild.OnLoadResult | undefined> {
    let compiled: CompiledStyle | undefined;
    try {
      compiled = await compile(file);
    } catch (error) {
      return { errors: [messageOf(error, file)] };
    }
    if (compiled === undefined) return undefined;
    files.reads.add(file);
    for (const read of compiled.reads) {
      // Style sources and configs only: Tailwind also reports every file it scanned.
      if (read !== file && isRecordedRead(read)) files.reads.add(read);
    }
    return {
      contents: marked ? endMarked(files, file, compiled.css) : compiled.css,
      loader,
      resolveDir: dirname(file),
      warnings: compiled.warnings.map((text) => ({ text: `${shown(file)}: ${firstLine(text)}` })),
    };
  }

  /** `file` as messages name it: relative to its component's folder (or the working dir). */
  function shown(file: string): string {
    const owner = [...components]
      .sort((a, b) => b.dir.length - a.dir.length)
      .find((c) => isInside(file, c.dir));
    return toPosix(relative(owner?.dir ?? workingDir, file));
  }

  function messageOf(error: unknown, file: string): esbuild.PartialMessage {
    if (error instanceof MissingPackageError) return { text: `${shown(file)}: ${error.message}` };
    if (error instanceof StyleSyntaxError) {
      return error.location === undefined
        ? { text: `${shown(file)}: ${error.message}` }
        : { text: error.message, location: error.location };
    }
    const text = error instanceof Error ? error.message : String(error);
    return { text: `${shown(file)}: ${firstLine(text)}` };
  }

  return {
    name: "svc-styles",
    setup(build) {
      const marked = build.initialOptions.minifyWhitespace === true;
      // Plain stylesheets (CSS modules arrive in the namespace componentFilesPlugin gives them).
      build.onLoad({ filter: CSS_FILE, namespace: "file" }, (args) =>
        CSS_MODULE.test(args.path) ? undefined : load(args.path, "css", marked),
      );
      build.onLoad({ filter: /.*/, namespace: CSS_MODULE_NS }, (args) =>
        load(args.pluginData?.file as string, "local-css", marked),
      );
    },
  };
}

/** Files kept in a bundle's record: stylesheets and configuration, not scanned sources. */
function isRecordedRead(path: string): boolean {
  return /\.(?:css|scss|sass|pcss)$|[\\/]postcss\.config\.[cm]?[jt]s$/i.test(path);
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
