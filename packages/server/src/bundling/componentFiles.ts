/**
 * Styles and assets: how a component's CSS, CSS modules and imported files go through esbuild,
 * and how esbuild's output becomes the files svc serves next to the bundle.
 *
 * - **Stylesheets.** esbuild bundles a component's CSS into one output per entry point. svc
 *   cuts that output back into one stylesheet per CSS source file (each file's end is marked
 *   while it is loaded), names each after its content (`card-3f2a9c0b1d4e.css`) and has the
 *   bundle import them (`import "./card-3f2a9c0b1d4e.css";` at its end): a file two
 *   components import is one URL, which a page applies once.
 * - **CSS modules** (`*.module.css`) are esbuild's `local-css`, loaded under a name of their
 *   own (`Card_1a2b3c4d.module.css`, the hash of their path in the project), so their class
 *   names (`Card_1a2b3c4d_title`) differ between files even when components are bundled one
 *   at a time, and never collide with the page's own.
 * - **Assets** (`.png`, `.woff2`, … see {@link ASSET_TYPES}) are written as
 *   `assets/<name>-<hash>.<ext>`; importing one yields its URL, resolved against the bundle's
 *   own URL (`new URL(…, import.meta.url)`), so the same bytes work from the API, a build
 *   directory or a CDN. CSS `url()`s point to the same files. Files up to the inline limit
 *   become `data:` URLs instead.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { basename, dirname, relative, resolve } from "node:path";
import type * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { isInside, toPosix } from "../util/paths.ts";
import type { Resolution } from "./bundleInputs.ts";

/** Files a component may import as a URL, with the Content-Type svc serves them with. */
export const ASSET_TYPES: Readonly<Record<string, string>> = {
  ".png": "image/png",
  ".jpg": "image/jpeg",
  ".jpeg": "image/jpeg",
  ".gif": "image/gif",
  ".webp": "image/webp",
  ".avif": "image/avif",
  ".svg": "image/svg+xml",
  ".woff": "font/woff",
  ".woff2": "font/woff2",
  ".ttf": "font/ttf",
  ".mp4": "video/mp4",
  ".webm": "video/webm",
  ".json": "application/json; charset=utf-8",
  ".txt": "text/plain; charset=utf-8",
};

/** Content-Type of stylesheets. */
export const STYLESHEET_TYPE = "text/css; charset=utf-8";

/**
 * Assets up to this many bytes become `data:` URLs (in the bundle or the stylesheet) instead
 * of files of their own, as Vite does: one request fewer for an icon, at the price of a
 * CSP that allows `img-src data:` (and `font-src data:`). `0` turns it off.
 */
export const DEFAULT_ASSETS_INLINE_LIMIT = 4096;

/** Where assets go, relative to the bundles directory (and esbuild's `outdir`). */
export const ASSETS_DIR = "assets";

/** What a component may import, for messages. */
export const SUPPORTED_IMPORTS =
  ".js .jsx .ts .tsx .mjs .cjs .mts .cts, .json (as data), .css and .module.css (CSS modules), " +
  "and as URLs .png .jpg .jpeg .gif .webp .avif .svg .woff .woff2 .ttf .mp4 .webm .txt " +
  '(or any of those and .json with "?url")';

const URL_EXTENSIONS = Object.keys(ASSET_TYPES).filter((ext) => ext !== ".json");
const extensionPattern = (ext: string) => ext.slice(1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** An import that yields a URL: a listed extension, or any asset type with `?url`. */
const URL_IMPORT = new RegExp(
  `(?:\\.(?:${URL_EXTENSIONS.map(extensionPattern).join("|")})|\\.(?:${Object.keys(ASSET_TYPES).map(extensionPattern).join("|")})\\?url)$`,
  "i",
);
/** A file loaded as an asset (the URL import's target, or a CSS `url()`). */
const ASSET_FILE = new RegExp(
  `\\.(?:${Object.keys(ASSET_TYPES).map(extensionPattern).join("|")})$`,
  "i",
);
const CSS_MODULE = /\.module\.css$/i;
const CSS_FILE = /\.css$/i;

/**
 * The name of the at-rule that marks the end of each CSS file in esbuild's output. Fixed, so
 * the output (source maps carry the CSS modules' text) is the same from run to run; no
 * stylesheet writes `@svc-stylesheet-end 3;` by accident.
 */
export const STYLESHEET_END = "svc-stylesheet-end";
/** The end marks in a JSON string (a source map's `sourcesContent`). */
const ESCAPED_END = new RegExp(`\\\\n@${STYLESHEET_END} \\d+;\\\\n`, "g");

/** `json` (a source map) without the end marks its sources' text holds. */
export function withoutEndMarks(json: string): string {
  return json.includes(STYLESHEET_END) ? json.replace(ESCAPED_END, "") : json;
}

/** Namespaces of the modules the plugin makes up; `<namespace>:<path>` in esbuild's output. */
const CSS_MODULE_NS = "svc-css-module";
const ASSET_URL_NS = "svc-asset-url";
/** A file imported with `?url` (its type may have a loader of its own, such as `.json`). */
const ASSET_FILE_NS = "svc-asset-file";

interface Stylesheet {
  /** The CSS source file. */
  file: string;
}

/**
 * What the plugin of one esbuild run saw: filled while esbuild runs, read when its output is
 * turned into svc's files ({@link splitStylesheets}, `finishComponent`).
 */
export class ComponentFiles {
  /**
   * The at-rule that ends each CSS file while esbuild bundles it (`@svc-stylesheet-end <n>;`),
   * where the output is cut back into files; removed from every output (see
   * {@link STYLESHEET_END}).
   */
  readonly marker = STYLESHEET_END;
  /** The CSS files loaded, by the number their end marker carries. */
  readonly stylesheets: Stylesheet[] = [];
  /** Made-up module keys as esbuild names them (`svc-css-module:card/Card_1a2b3c4d.module.css`) → the file. */
  readonly virtual = new Map<string, string>();
  /** Files the plugin read under a made-up name (esbuild's metafile does not list them). */
  readonly reads = new Set<string>();
  /** How the imports the plugin resolved itself came out. */
  readonly resolutions: Resolution[] = [];

  /** The file a source or input key of esbuild's output stands for (relative keys resolved against `workingDir`). */
  realPath(key: string, workingDir: string): string | undefined {
    const virtual = this.virtual.get(key);
    if (virtual !== undefined) return virtual;
    if (/^[a-z-]+:/i.test(key) || key.startsWith("(")) return undefined;
    return resolve(workingDir, key.endsWith("?url") ? key.slice(0, -4) : key);
  }
}

export interface ComponentFilesOptions {
  components: readonly Component[];
  workingDir: string;
  /** See {@link DEFAULT_ASSETS_INLINE_LIMIT}. */
  inlineLimit: number;
}

/** The esbuild plugin behind styles and assets; what it sees goes into `files`. */
export function componentFilesPlugin(
  files: ComponentFiles,
  options: ComponentFilesOptions,
): esbuild.Plugin {
  const { workingDir, inlineLimit } = options;
  const roots = [...new Set(options.components.map((c) => c.source.root))].sort(
    (a, b) => b.length - a.length,
  );
  /** The project root a file belongs to: module class names hash the path below it. */
  const rootOf = (file: string) => roots.find((root) => isInside(file, root)) ?? workingDir;
  const importerOf = (args: esbuild.OnResolveArgs) =>
    args.namespace === "file"
      ? args.importer
      : files.virtual.get(`${args.namespace}:${args.importer}`);

  async function resolveReal(
    build: esbuild.PluginBuild,
    args: esbuild.OnResolveArgs,
    specifier: string,
  ): Promise<esbuild.OnResolveResult | string> {
    const result = await build.resolve(specifier, {
      kind: args.kind,
      importer: args.importer,
      namespace: args.namespace === "file" ? "file" : undefined,
      resolveDir: args.resolveDir,
      pluginData: { svcResolved: true },
    });
    if (result.errors.length > 0) return { errors: result.errors, warnings: result.warnings };
    const importer = importerOf(args);
    if (importer !== undefined) {
      files.resolutions.push({ importer, specifier: args.path, path: result.path });
    }
    return result.path;
  }

  function virtualKey(namespace: string, file: string, name = basename(file)): string {
    const path = `${toPosix(relative(workingDir, dirname(file)))}/${name}`.replace(/^\//, "");
    files.virtual.set(`${namespace}:${path}`, file);
    return path;
  }

  return {
    name: "svc-component-files",
    setup(build) {
      // CSS modules, wherever they are imported from (JS, `@import`, `composes … from`).
      build.onResolve({ filter: CSS_MODULE }, async (args) => {
        if (args.pluginData?.svcResolved) return undefined;
        const file = await resolveReal(build, args, args.path);
        if (typeof file !== "string") return file;
        const id = createHash("sha256")
          .update(toPosix(relative(rootOf(file), file)))
          .digest("hex")
          .slice(0, 8);
        const stem = safeStem(basename(file).replace(CSS_MODULE, ""));
        const path = virtualKey(CSS_MODULE_NS, file, `${stem}_${id}.module.css`);
        return { path, namespace: CSS_MODULE_NS, pluginData: { file } };
      });

      // An asset imported from a module: a small module of our own that exports its URL.
      build.onResolve({ filter: URL_IMPORT }, async (args) => {
        if (args.pluginData?.svcResolved) return undefined;
        if (args.namespace === ASSET_URL_NS) {
          // The made-up module's own import of the file: esbuild's file (or dataurl) loader.
          const file = args.pluginData?.file as string;
          if (!args.path.endsWith("?url")) return { path: file };
          return {
            path: virtualKey(ASSET_FILE_NS, file),
            namespace: ASSET_FILE_NS,
            pluginData: { file },
          };
        }
        if (
          args.kind !== "import-statement" &&
          args.kind !== "dynamic-import" &&
          args.kind !== "require-call"
        ) {
          return undefined; // a CSS url(): esbuild's loaders, below
        }
        const asUrl = args.path.endsWith("?url");
        const file = await resolveReal(build, args, asUrl ? args.path.slice(0, -4) : args.path);
        if (typeof file !== "string") return file;
        const path = virtualKey(ASSET_URL_NS, file, `${basename(file)}${asUrl ? "?url" : ""}`);
        return { path, namespace: ASSET_URL_NS, pluginData: { file } };
      });

      build.onLoad({ filter: /.*/, namespace: ASSET_URL_NS }, (args) => {
        const file = args.pluginData?.file as string;
        const specifier = `./${basename(file)}${args.path.endsWith("?url") ? "?url" : ""}`;
        // Relative to the bundle's own URL, which the svc runtime gives `import.meta.url`.
        return {
          contents: `import url from ${JSON.stringify(specifier)};\nexport default url.startsWith("data:") ? url : new URL(url, import.meta.url).href;\n`,
          loader: "js",
          resolveDir: dirname(file),
          pluginData: { file },
        };
      });

      // Every asset, imported or named by a CSS url(): a file of its own, or a data: URL.
      const asset = async (file: string): Promise<esbuild.OnLoadResult> => {
        const contents = await readFile(file);
        return { contents, loader: contents.byteLength <= inlineLimit ? "dataurl" : "file" };
      };
      build.onLoad({ filter: ASSET_FILE }, (args) => {
        if (args.namespace !== "file" || args.path.toLowerCase().endsWith(".json"))
          return undefined;
        return asset(args.path);
      });
      build.onLoad({ filter: /.*/, namespace: ASSET_FILE_NS }, (args) => {
        const file = args.pluginData?.file as string;
        files.reads.add(file);
        return asset(file);
      });

      build.onLoad({ filter: /.*/, namespace: CSS_MODULE_NS }, async (args) => {
        const file = args.pluginData?.file as string;
        files.reads.add(file);
        const text = await readFile(file, "utf8");
        return {
          contents: endMarked(files, file, text),
          loader: "local-css",
          resolveDir: dirname(file),
          watchFiles: [file],
        };
      });

      build.onLoad({ filter: CSS_FILE }, async (args) => {
        if (args.namespace !== "file") return undefined;
        const text = await readFile(args.path, "utf8");
        return { contents: endMarked(files, args.path, text), loader: "css" };
      });
    },
  };
}

function endMarked(files: ComponentFiles, file: string, text: string): string {
  const id = files.stylesheets.push({ file }) - 1;
  return `${text}\n@${files.marker} ${id};\n`;
}

/** A file-name-safe stem: letters, digits, `_`, `.`; at most 48 characters. */
function safeStem(name: string): string {
  const safe = name
    .replace(/[^A-Za-z0-9_.]/g, "_")
    .replace(/^[._]+/, "")
    .slice(0, 48);
  return safe === "" ? "styles" : safe;
}

/** One stylesheet of a component: a CSS source file's share of esbuild's output. */
export interface StylesheetPart {
  /** The file's name without `.css` (made file-name-safe), e.g. `card`, `Card.module`. */
  stem: string;
  text: string;
}

/**
 * Cuts esbuild's CSS output for one entry point back into one part per CSS source file, in
 * cascade order, at the end markers the plugin added (which are removed). What comes before
 * the first marker (rules esbuild hoists, such as `@charset`) stays with the first part;
 * parts left empty (a file of only `@import`s) are dropped.
 */
export function splitStylesheets(css: string, files: ComponentFiles): StylesheetPart[] {
  const marker = new RegExp(`@${files.marker} (\\d+);\\n?`, "g");
  const parts: StylesheetPart[] = [];
  let position = 0;
  for (const match of css.matchAll(marker)) {
    const source = files.stylesheets[Number(match[1])];
    const text = css.slice(position, match.index);
    position = match.index + match[0].length;
    const stem =
      source === undefined ? "styles" : safeStem(basename(source.file).replace(CSS_FILE, ""));
    parts.push({ stem, text });
  }
  const rest = css.slice(position);
  if (rest.trim() !== "") {
    const last = parts.at(-1);
    if (last === undefined) parts.push({ stem: "styles", text: rest });
    else last.text += rest;
  }
  return parts
    .map(({ stem, text }) => {
      const trimmed = text.replace(/^\n+/, "");
      return { stem, text: trimmed.endsWith("\n") ? trimmed : `${trimmed}\n` };
    })
    .filter(({ text }) => text.trim() !== "");
}

/** The `<stem>-<hash>.css` name of a stylesheet's bytes. */
export function stylesheetFileName(stem: string, bytes: Uint8Array): string {
  return `${stem}-${createHash("sha256").update(bytes).digest("hex").slice(0, 12)}.css`;
}

/** Whether esbuild's output for an entry holds a CSS module (its class names must stay readable). */
export function usesCssModules(inputs: Iterable<string>): boolean {
  for (const input of inputs) if (input.startsWith(`${CSS_MODULE_NS}:`)) return true;
  return false;
}

/**
 * esbuild's message, with what svc supports when it is about a kind of file no loader handles
 * (`No loader is configured for ".md" files: …`).
 */
export function explainMessage(text: string): string {
  if (!/^No loader is configured for "[^"]*" files/.test(text)) return text;
  return `${text} — svc bundles ${SUPPORTED_IMPORTS}; serve other files yourself and pass their URL as a prop`;
}

/** The stylesheets svc writes next to bundles: `<stem>-<12 hex>.css`. */
export const STYLESHEET_NAME = /^[A-Za-z0-9_.]+-[0-9a-f]{12}\.css$/;

/** The assets esbuild writes below `assets/`: `<name>-<8 characters of hash>.<ext>`. */
export const ASSET_NAME = new RegExp(
  `^[^/\\\\\\0.][^/\\\\\\0]*-[A-Z0-9]{8}\\.(?:${Object.keys(ASSET_TYPES).map(extensionPattern).join("|")})$`,
  "i",
);

/** The Content-Type of a stylesheet or asset path (by extension), or undefined. */
export function fileTypeOf(path: string): string | undefined {
  const dot = path.lastIndexOf(".");
  const ext = dot === -1 ? "" : path.slice(dot).toLowerCase();
  if (ext === ".css") return STYLESHEET_TYPE;
  return Object.hasOwn(ASSET_TYPES, ext) ? ASSET_TYPES[ext] : undefined;
}
