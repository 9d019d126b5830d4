/**
 * Styles and assets: how a component's CSS, CSS modules and imported files go through esbuild,
 * and how esbuild's output becomes the files svc serves next to the bundle.
 *
 * - **Stylesheets.** esbuild bundles a component's CSS into one output per entry point. svc
 *   cuts that output back into one stylesheet per CSS source file (at the comment esbuild
 *   writes before each file; minified, at an end mark added while each file is loaded),
 *   names each after its content (`card-3f2a9c0b1d4e.css`) and has the bundle import them
 *   (`import "./card-3f2a9c0b1d4e.css";` at its end): a file two components import is one
 *   URL, which a page applies once.
 * - **CSS modules** (`*.module.css`) are esbuild's `local-css`, loaded under a name of their
 *   own (`Card_1a2b3c4d.module.css`, the hash of their path in the project), so their class
 *   names (`Card_1a2b3c4d_title`) differ between files even when components are bundled one
 *   at a time, and never collide with the page's own.
 * - **Assets** (`.png`, `.woff2`, … see {@link ASSET_TYPES}) are esbuild's `file` loader:
 *   `assets/<name>-<hash>.<ext>`. Importing one yields its URL, resolved against the bundle's
 *   own URL (`new URL("./assets/…", import.meta.url)`, see {@link resolveAssetUrls}), so the
 *   same bytes work from the API, a build directory or a CDN. CSS `url()`s point to the same
 *   files. Nothing is inlined as `data:`, so a page's CSP needs no `data:` source for them.
 *
 * The plugin is only there when needed — for CSS modules, and when minifying (end marks) —
 * because esbuild is measurably slower with any plugin, and each callback is a round trip
 * between esbuild and Node: a component with plain CSS and images builds without one.
 */
import { createHash } from "node:crypto";
import { readFileSync, statSync } from "node:fs";
import { basename, dirname, relative, resolve } from "node:path";
import { decode, encode } from "@jridgewell/sourcemap-codec";
import { stylesheetFile } from "@svc/protocol";
import type * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { contentHash } from "../util/contentHash.ts";
import { isInside, toPosix } from "../util/paths.ts";
import type { Resolution } from "./recordCollector.ts";

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

/** Where assets go, relative to the bundles directory (and esbuild's `outdir`). */
export const ASSETS_DIR = "assets";

/** What a component may import, for messages. */
export const SUPPORTED_IMPORTS =
  ".js .jsx .ts .tsx .mjs .cjs .mts .cts, .json (as data), .css and .module.css (CSS modules), " +
  ".scss .sass and .module.scss (with sass installed), " +
  "and as URLs .png .jpg .jpeg .gif .webp .avif .svg .woff .woff2 .ttf .mp4 .webm .txt";

/** The extensions whose import yields a URL (all asset types but `.json`, which is data). */
export const URL_EXTENSIONS = Object.keys(ASSET_TYPES).filter((ext) => ext !== ".json");
const extensionPattern = (ext: string) => ext.slice(1).replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** CSS modules, Sass ones included (compiled by `stylePlugins.ts`, then esbuild's `local-css`). */
export const CSS_MODULE = /\.module\.(?:css|scss|sass)$/i;
/** Stylesheets: CSS, and Sass compiled to CSS (`stylePlugins.ts`). */
export const CSS_FILE = /\.(?:css|scss|sass)$/i;

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
export const CSS_MODULE_NS = "svc-css-module";

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
    return resolve(workingDir, key);
  }
}

export interface ComponentFilesOptions {
  components: readonly Component[];
  workingDir: string;
}

/** The esbuild plugin behind styles and assets; what it sees goes into `files`. */
export function componentFilesPlugin(
  files: ComponentFiles,
  options: ComponentFilesOptions,
): esbuild.Plugin {
  const { workingDir } = options;
  const roots = [...new Set(options.components.map((c) => c.source.root))].sort(
    (a, b) => b.length - a.length,
  );
  /** The project root a file belongs to: module class names hash the path below it. */
  const rootOf = (file: string) => roots.find((root) => isInside(file, root)) ?? workingDir;
  const importerOf = (args: esbuild.OnResolveArgs) =>
    args.namespace === "file"
      ? args.importer
      : files.virtual.get(`${args.namespace}:${args.importer}`);

  /**
   * The file `specifier` names: a relative path that exists is resolved here (no round trip
   * to esbuild); anything else (a package, a path alias) by esbuild's resolver.
   */
  async function resolveFile(
    build: esbuild.PluginBuild,
    args: esbuild.OnResolveArgs,
    specifier: string,
  ): Promise<esbuild.OnResolveResult | string> {
    let path: string | undefined;
    if (/^\.\.?\//.test(specifier) && args.resolveDir !== "") {
      const candidate = resolve(args.resolveDir, specifier);
      if (statSync(candidate, { throwIfNoEntry: false })?.isFile()) path = candidate;
    }
    if (path === undefined) {
      const result = await build.resolve(specifier, {
        kind: args.kind,
        importer: args.importer,
        namespace: args.namespace === "file" ? "file" : undefined,
        resolveDir: args.resolveDir,
        pluginData: { svcResolved: true },
      });
      if (result.errors.length > 0) return { errors: result.errors, warnings: result.warnings };
      path = result.path;
    }
    const importer = importerOf(args);
    if (importer !== undefined) files.resolutions.push({ importer, specifier: args.path, path });
    return path;
  }

  function virtualKey(namespace: string, file: string, name = basename(file)): string {
    const path = `${toPosix(relative(workingDir, dirname(file)))}/${name}`.replace(/^\//, "");
    files.virtual.set(`${namespace}:${path}`, file);
    return path;
  }

  return {
    name: "svc-component-files",
    setup(build) {
      // Minified, esbuild's output has no `/* file */` headers: each file gets an end mark.
      const marked = build.initialOptions.minifyWhitespace === true;

      // CSS modules, from code and from other CSS modules (`composes … from`, `@import`).
      const cssModule = async (args: esbuild.OnResolveArgs) => {
        if (args.pluginData?.svcResolved) return undefined;
        const file = await resolveFile(build, args, args.path);
        if (typeof file !== "string") return file;
        const id = createHash("sha256")
          .update(toPosix(relative(rootOf(file), file)))
          .digest("hex")
          .slice(0, 8);
        const stem = safeStem(basename(file).replace(CSS_MODULE, ""));
        const path = virtualKey(CSS_MODULE_NS, file, `${stem}_${id}.module.css`);
        return { path, namespace: CSS_MODULE_NS, pluginData: { file } };
      };
      build.onResolve({ filter: CSS_MODULE, namespace: "file" }, cssModule);
      build.onResolve({ filter: CSS_MODULE, namespace: CSS_MODULE_NS }, cssModule);
      build.onLoad({ filter: /.*/, namespace: CSS_MODULE_NS }, (args) => {
        const file = args.pluginData?.file as string;
        files.reads.add(file);
        const text = readFileSync(file, "utf8");
        return {
          contents: marked ? endMarked(files, file, text) : text,
          loader: "local-css",
          resolveDir: dirname(file),
        };
      });
      if (marked) {
        build.onLoad({ filter: CSS_FILE, namespace: "file" }, (args) => ({
          contents: endMarked(files, args.path, readFileSync(args.path, "utf8")),
          loader: "css",
        }));
      }
    },
  };
}

/** `text`, the CSS of `file`, with the mark of its end (see {@link STYLESHEET_END}). */
export function endMarked(files: ComponentFiles, file: string, text: string): string {
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
 * cascade order: at the end marks the plugin added when minifying (removed), else at the
 * comment esbuild writes before each file's rules (`/* card/card.css *\/`, kept). `inputs`
 * are the output's inputs as esbuild's metafile lists them, in order. What comes before the
 * first file (rules esbuild hoists, such as `@charset`) stays with the first part; parts left
 * empty (a file of only `@import`s) are dropped.
 */
export function splitStylesheets(
  css: string,
  files: ComponentFiles,
  inputs: readonly string[],
  workingDir: string,
): StylesheetPart[] {
  const stemOf = (file: string | undefined) =>
    file === undefined ? "styles" : safeStem(basename(file).replace(CSS_FILE, ""));
  const parts: StylesheetPart[] = [];
  let position = 0;
  if (css.includes(`@${files.marker} `)) {
    const marker = new RegExp(`@${files.marker} (\\d+);\\n?`, "g");
    for (const match of css.matchAll(marker)) {
      const text = css.slice(position, match.index);
      position = match.index + match[0].length;
      parts.push({ stem: stemOf(files.stylesheets[Number(match[1])]?.file), text });
    }
  } else {
    const starts: { at: number; stem: string }[] = [];
    let from = 0;
    for (const input of inputs) {
      const header = `/* ${input} */\n`;
      let at = css.indexOf(header, from);
      while (at > 0 && css[at - 1] !== "\n") at = css.indexOf(header, at + 1);
      // A file that put nothing into the output has no header of its own.
      if (at === -1) continue;
      starts.push({ at, stem: stemOf(files.realPath(input, workingDir)) });
      from = at + header.length;
    }
    for (const [i, start] of starts.entries()) {
      const end = starts[i + 1]?.at ?? css.length;
      parts.push({ stem: start.stem, text: css.slice(i === 0 ? 0 : start.at, end) });
    }
    position = starts.length === 0 ? 0 : css.length;
  }
  const rest = css.slice(position);
  if (rest.trim() !== "") {
    const last = parts.at(-1);
    if (last === undefined) parts.push({ stem: "styles", text: rest });
    else last.text += rest;
  }
  return parts
    .map(({ stem, text }) => {
      const trimmed = text.replace(/^\n+/, "").replace(/\n+$/, "\n");
      return { stem, text: trimmed.endsWith("\n") ? trimmed : `${trimmed}\n` };
    })
    .filter(({ text }) => text.trim() !== "");
}

/** The `<stem>-<hash>.css` name of a stylesheet's bytes. */
export function stylesheetFileName(stem: string, bytes: Uint8Array): string {
  return stylesheetFile(stem, contentHash(bytes));
}

/**
 * Global a server bundle's asset URLs are made with: the render worker gives each evaluation
 * of a server bundle this function (the URL of `./assets/…` below the island's API base).
 */
export const SERVER_ASSET_URL = "__svcAssetUrl";

/**
 * The bundle's code with each asset it imports (`"./assets/logo-24WHYHIF.png"`, as esbuild's
 * `file` loader writes the string) made a URL that works wherever the bundle was loaded from:
 *
 * - in a browser bundle, resolved against the bundle's own URL (the svc runtime gives
 *   `import.meta.url` the bundle's URL) and written as a path (`/api/bundles/assets/…`) when
 *   that is on the page's own origin, else as the full URL (a CDN);
 * - in a server bundle (`server`), {@link SERVER_ASSET_URL}`("./assets/…")`, which the render
 *   worker answers with the same path below the island's API base (or the full URL when the
 *   API base is one) — so server HTML and hydration agree on every `src`.
 *
 * The string names the file by its content hash, so no other string in the code can be it.
 * Returns where each was widened (line, column in UTF-16 units, by how much), for the source
 * map.
 */
export function resolveAssetUrls(
  code: Buffer,
  assets: readonly string[],
  server = false,
): { code: Buffer; insertions: Insertion[] } {
  const found: { at: number; length: number; text: Buffer }[] = [];
  for (const asset of assets) {
    const literal = JSON.stringify(`./${asset}`);
    const needle = Buffer.from(literal);
    const text = Buffer.from(server ? serverAssetUrl(literal) : browserAssetUrl(literal));
    for (let at = code.indexOf(needle); at !== -1; at = code.indexOf(needle, at + needle.length)) {
      found.push({ at, length: needle.length, text });
    }
  }
  if (found.length === 0) return { code, insertions: [] };
  found.sort((a, b) => a.at - b.at);
  const parts: Buffer[] = [];
  const insertions: Insertion[] = [];
  let position = 0;
  let line = 0;
  let lineStart = 0;
  for (const { at, length, text } of found) {
    for (let i = code.indexOf(10, position); i !== -1 && i < at; i = code.indexOf(10, i + 1)) {
      line++;
      lineStart = i + 1;
    }
    parts.push(code.subarray(position, at), text);
    const column = code.toString("utf8", lineStart, at).length;
    insertions.push({ line, column: column + length, by: text.length - length });
    position = at + length;
  }
  parts.push(code.subarray(position));
  return { code: Buffer.concat(parts), insertions };
}

/** How a browser bundle writes the URL of the asset whose path is the JSON string `literal`. */
export function browserAssetUrl(literal: string): string {
  return `((u) => u.origin === globalThis.location?.origin ? u.pathname : u.href)(new URL(${literal}, import.meta.url))`;
}

/** How a server bundle writes it: a call of the function the render gives the bundle. */
export function serverAssetUrl(literal: string): string {
  return `${SERVER_ASSET_URL}(${literal})`;
}

/** Text widened by `by` columns at (`line`, `column`) of the generated code (both 0-based). */
export interface Insertion {
  line: number;
  column: number;
  by: number;
}

/**
 * A source map's `mappings` with the generated columns moved for `insertions`: on each line,
 * every segment at or after an insertion's column moves right by its width. Only the lines
 * with an insertion are decoded: a line's generated columns start from 0, and its other
 * fields, decoded and encoded alone, keep their deltas.
 */
export function shiftMappings(mappings: string, insertions: readonly Insertion[]): string {
  if (insertions.length === 0) return mappings;
  const lines = mappings.split(";");
  for (const [index, text] of lines.entries()) {
    const here = insertions.filter((i) => i.line === index);
    if (here.length === 0 || text === "") continue;
    const segments = decode(text)[0] ?? [];
    let shift = 0;
    let next = 0;
    for (const segment of segments) {
      const column = segment[0];
      while (next < here.length && column >= (here[next] as Insertion).column) {
        shift += (here[next] as Insertion).by;
        next++;
      }
      segment[0] = column + shift;
    }
    lines[index] = encode([segments]);
  }
  return lines.join(";");
}

/** Whether esbuild's output for an entry holds a CSS module (its class names must stay readable). */
export function usesCssModules(inputs: Iterable<string>): boolean {
  for (const input of inputs) {
    if (input.startsWith(`${CSS_MODULE_NS}:`) || CSS_MODULE.test(input)) return true;
  }
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
