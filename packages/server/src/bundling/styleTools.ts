/**
 * The style tools a project may bring: Sass (`sass`) and PostCSS (`postcss`, with the plugins
 * its `postcss.config.*` names, Tailwind v4's `@tailwindcss/postcss` among them). Both are
 * optional peer dependencies of svc: each is resolved from the project that imports the
 * stylesheet, and loaded the first time a stylesheet needs it — never when svc starts. A missing
 * one is a {@link MissingPackageError}: one line naming the package to install.
 */
import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { basename, dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { StyleSyntax } from "./rebaseUrls.ts";
import { createRebasingImporter, type SassImporter, syntaxOf } from "./sassImporter.ts";

/** The names a PostCSS configuration file may have, in the order they are looked for. */
export const POSTCSS_CONFIG_FILES = [
  "postcss.config.js",
  "postcss.config.mjs",
  "postcss.config.cjs",
  "postcss.config.ts",
  "postcss.config.mts",
] as const;

/** Sass sources (`.scss`, and `.sass` in the indented syntax). */
export const SASS_FILE = /\.s[ac]ss$/i;

/** A package a stylesheet needs is not installed in its project. */
export class MissingPackageError extends Error {
  readonly packageName: string;

  constructor(packageName: string, message: string) {
    super(message);
    this.packageName = packageName;
    this.name = "MissingPackageError";
  }
}

/** What compiling one stylesheet gave: the CSS, and the other files it was made of. */
export interface CompiledStyle {
  css: string;
  /** Absolute paths of files read besides the stylesheet (partials, the config, imported CSS). */
  reads: string[];
  warnings: string[];
}

/** A location in a stylesheet, as esbuild messages carry it (line 1-based, column 0-based). */
export interface StyleErrorLocation {
  file: string;
  line: number;
  column: number;
  lineText: string;
}

/** A stylesheet the tool could not compile, with where. */
export class StyleSyntaxError extends Error {
  readonly location: StyleErrorLocation | undefined;

  constructor(message: string, location: StyleErrorLocation | undefined) {
    super(message);
    this.location = location;
    this.name = "StyleSyntaxError";
  }
}

/**
 * The nearest `postcss.config.*` at or above `dir`, up to `root` (inclusive), or undefined.
 * A few stats per directory; a config created later applies from the next build that looks.
 */
export function findPostcssConfig(dir: string, root: string): string | undefined {
  for (let current = dir; ; current = dirname(current)) {
    for (const name of POSTCSS_CONFIG_FILES) {
      const file = join(current, name);
      if (statSync(file, { throwIfNoEntry: false })?.isFile()) return file;
    }
    if (current === root || dirname(current) === current) return undefined;
  }
}

/**
 * `name` as the project at `fromDir` resolves it (Node's lookup: `node_modules` there and in
 * each directory above), imported. `need` says what it is needed for, in the message.
 */
async function loadPackage<T>(name: string, fromDir: string, need: string): Promise<T> {
  let resolved: string;
  try {
    resolved = createRequire(join(fromDir, "package.json")).resolve(name);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "MODULE_NOT_FOUND" && code !== "ERR_PACKAGE_PATH_NOT_EXPORTED") throw error;
    throw new MissingPackageError(name, `install ${name} ${need} (npm install -D ${name})`);
  }
  const module = (await import(pathToFileURL(resolved).href)) as { default?: T } & T;
  return module.default ?? module;
}

interface SassModule {
  compileStringAsync(
    source: string,
    options: {
      url: URL;
      syntax: StyleSyntax;
      importer: SassImporter;
      style: "expanded";
      sourceMap: false;
      importers: unknown[];
      logger: { warn(message: string): void; debug(message: string): void };
    },
  ): Promise<{ css: string; loadedUrls: URL[] }>;
  NodePackageImporter?: new (entryPointDirectory?: string) => unknown;
}

/**
 * Compiles the Sass file `file` (`sass`'s modern API), resolving `pkg:` URLs from its project.
 * Relative `url()`s in the files it loads are rebased onto `file`'s folder, where esbuild
 * resolves them: each names the file beside the partial that wrote it, as in Vite.
 */
export async function compileSass(file: string): Promise<CompiledStyle> {
  const dir = dirname(file);
  const sass = await loadPackage<SassModule>("sass", dir, "to compile it");
  const warnings: string[] = [];
  try {
    // From a string, so that the rebasing importer is the entry's own: Sass resolves a relative
    // load with the importer that loaded the file it is written in, and a file compiled from
    // its path gets Sass's own file-system importer, which loads partials unchanged.
    const result = await sass.compileStringAsync(await readFile(file, "utf8"), {
      url: pathToFileURL(file),
      syntax: syntaxOf(file),
      importer: createRebasingImporter(file),
      style: "expanded",
      sourceMap: false,
      importers: sass.NodePackageImporter === undefined ? [] : [new sass.NodePackageImporter(dir)],
      logger: {
        warn: (message) => warnings.push(message),
        debug: () => {},
      },
    });
    const reads = result.loadedUrls
      .filter((url) => url.protocol === "file:")
      .map((url) => fileURLToPath(url))
      .filter((path) => path !== file);
    return { css: result.css, reads, warnings };
  } catch (error) {
    throw sassError(error);
  }
}

interface SassException {
  sassMessage?: string;
  message: string;
  span?: {
    url?: URL;
    start: { line: number; column: number };
    context?: string;
    text?: string;
  };
}

function sassError(error: unknown): Error {
  const exception = error as SassException;
  if (typeof exception?.sassMessage !== "string") return error as Error;
  const span = exception.span;
  const location =
    span?.url?.protocol === "file:"
      ? {
          file: fileURLToPath(span.url),
          line: span.start.line + 1,
          column: span.start.column,
          lineText: (span.context ?? span.text ?? "").split("\n")[0] ?? "",
        }
      : undefined;
  return new StyleSyntaxError(exception.sassMessage, location);
}

type PostcssPlugin = unknown;
interface PostcssResult {
  css: string;
  messages: { type: string; file?: string }[];
}
type Postcss = (plugins: PostcssPlugin[]) => {
  process(
    css: string,
    options: { from: string; to: string; map: false },
  ): PromiseLike<PostcssResult>;
};

/** A loaded PostCSS configuration: its processor, for one version of the file. */
interface LoadedConfig {
  readonly version: string;
  readonly processor: Promise<ReturnType<Postcss>>;
}

/**
 * Loaded configurations by file. Process-wide like the modules they import (Node's module cache
 * is), and replaced when the file's stamp changes; Tailwind keeps its compilers the same way.
 */
const configs = new Map<string, LoadedConfig>();

/** Runs the PostCSS of `configFile` over `css`, the text of `file`. */
export async function runPostcss(
  file: string,
  css: string,
  configFile: string,
  mode: "development" | "production",
): Promise<CompiledStyle> {
  const stat = statSync(configFile);
  const version = `${stat.mtimeMs}:${stat.size}:${mode}`;
  let loaded = configs.get(configFile);
  if (loaded?.version !== version) {
    loaded = { version, processor: loadProcessor(file, configFile, mode, version) };
    configs.set(configFile, loaded);
    // A failed load is tried again by the next build, not remembered.
    loaded.processor.catch(() => {
      if (configs.get(configFile) === loaded) configs.delete(configFile);
    });
  }
  const processor = await loaded.processor;
  let result: PostcssResult;
  try {
    result = await processor.process(css, { from: file, to: file, map: false });
  } catch (error) {
    throw postcssError(error);
  }
  const reads = [configFile];
  for (const message of result.messages) {
    if (message.type === "dependency" && typeof message.file === "string") reads.push(message.file);
  }
  const warnings = result.messages
    .filter((message) => message.type === "warning")
    .map((message) => String((message as { text?: unknown }).text ?? ""));
  return { css: result.css, reads, warnings };
}

async function loadProcessor(
  file: string,
  configFile: string,
  mode: "development" | "production",
  version: string,
): Promise<ReturnType<Postcss>> {
  const configName = basename(configFile);
  const postcss = await loadPackage<Postcss>("postcss", dirname(file), `to apply ${configName}`);
  const config = await importConfig(configFile, version);
  const options =
    typeof config === "function" ? await config({ env: mode, cwd: dirname(configFile) }) : config;
  const plugins = await configPlugins(configFile, (options as { plugins?: unknown })?.plugins);
  return postcss(plugins);
}

/** The config module's value: its default export (ES module) or `module.exports` (CommonJS). */
async function importConfig(configFile: string, version: string): Promise<unknown> {
  if (configFile.endsWith(".cjs")) {
    const require = createRequire(configFile);
    // Loaded afresh when edited: CommonJS modules stay in `require.cache` otherwise.
    delete require.cache[configFile];
    return require(configFile);
  }
  const url = `${pathToFileURL(configFile).href}?v=${encodeURIComponent(version)}`;
  const module = (await import(url)) as { default?: unknown };
  return module.default ?? module;
}

/**
 * The plugins a config lists, in either of PostCSS's forms: an array (plugins, or names with
 * options as `[name, options]`), or an object of names to options (`false` leaves one out).
 * Plugins named are resolved from the config's directory. Tailwind's automatic source
 * detection is given the config's directory as its base when the config sets none (it would
 * otherwise scan the directory `svc` was started in).
 */
async function configPlugins(configFile: string, plugins: unknown): Promise<PostcssPlugin[]> {
  const list: (PostcssPlugin | Promise<PostcssPlugin>)[] = [];
  const load = (name: string, options: unknown) => pluginByName(configFile, name, options);
  if (Array.isArray(plugins)) {
    for (const entry of plugins) {
      if (entry === false || entry === null || entry === undefined) continue;
      if (typeof entry === "string") list.push(load(entry, {}));
      else if (Array.isArray(entry) && typeof entry[0] === "string")
        list.push(load(entry[0], entry[1]));
      else list.push(entry);
    }
  } else if (typeof plugins === "object" && plugins !== null) {
    for (const [name, options] of Object.entries(plugins)) {
      if (options !== false) list.push(load(name, options));
    }
  }
  return Promise.all(list);
}

async function pluginByName(
  configFile: string,
  name: string,
  options: unknown,
): Promise<PostcssPlugin> {
  const given = typeof options === "object" && options !== null ? { ...options } : {};
  if (name === "@tailwindcss/postcss" && !("base" in given)) {
    (given as { base?: string }).base = dirname(configFile);
  }
  const factory = await loadPackage<unknown>(
    name,
    dirname(configFile),
    `(${basename(configFile)} names it)`,
  );
  return typeof factory === "function" ? factory(given) : factory;
}

interface CssSyntaxErrorLike {
  name?: string;
  reason?: string;
  file?: string;
  line?: number;
  column?: number;
  source?: string;
  message: string;
}

function postcssError(error: unknown): Error {
  const failure = error as CssSyntaxErrorLike;
  if (failure?.name !== "CssSyntaxError" || typeof failure.reason !== "string") {
    return new StyleSyntaxError(firstLine(String(failure?.message ?? error)), undefined);
  }
  const location =
    failure.file !== undefined && failure.line !== undefined
      ? {
          file: failure.file,
          line: failure.line,
          column: Math.max(0, (failure.column ?? 1) - 1),
          lineText: failure.source?.split("\n")[failure.line - 1] ?? "",
        }
      : undefined;
  return new StyleSyntaxError(failure.reason, location);
}

function firstLine(text: string): string {
  return text.split("\n")[0] ?? text;
}
