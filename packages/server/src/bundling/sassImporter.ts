/**
 * The Sass importer that loads the files a stylesheet `@use`s, `@forward`s or `@import`s by a
 * relative path, with their `url()`s rebased onto the stylesheet being compiled (see
 * `rebaseUrls.ts`). Sass gives a custom importer only the loading, never its own file lookup,
 * so the lookup is Sass's, written again: the rules of its file-system importer (partials,
 * `.sass`/`.scss`/`.css`, index files, `.import` files for `@import`, and the error for two
 * files that both match).
 *
 * It is the entry stylesheet's importer, so Sass hands it every relative load, from the entry
 * and from each file it loaded in turn. Files reached through `pkg:` URLs are read by Sass's
 * own importer and keep their `url()`s as written.
 */

import { statSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { basename, dirname, extname, isAbsolute, join, relative } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { toPosix } from "../util/paths.ts";
import { rebaseUrls, type StyleSyntax } from "./rebaseUrls.ts";

/** The shape of a `sass` importer (the modern API's `Importer<"async">`). */
export interface SassImporter {
  canonicalize(url: string, context: { fromImport: boolean }): URL | null;
  load(canonicalUrl: URL): Promise<{ contents: string; syntax: StyleSyntax } | null>;
}

/**
 * The importer for compiling `entry`: the relative `url()`s of what it loads are rewritten to
 * resolve from `entry`'s folder.
 */
export function createRebasingImporter(entry: string): SassImporter {
  const entryDir = dirname(entry);
  return {
    canonicalize(url, { fromImport }) {
      if (!url.startsWith("file:")) return null;
      const found = resolveSassFile(fileURLToPath(url), fromImport);
      return found === undefined ? null : pathToFileURL(found);
    },
    async load(canonicalUrl) {
      const file = fileURLToPath(canonicalUrl);
      const syntax = syntaxOf(file);
      const contents = await readFile(file, "utf8");
      const dir = relative(entryDir, dirname(file));
      // Another drive (Windows) has no relative path: such a file keeps its url()s.
      if (isAbsolute(dir)) return { contents, syntax };
      return { contents: rebaseUrls(contents, toPosix(dir), syntax), syntax };
    },
  };
}

/** The syntax Sass reads a file in, by its extension. */
export function syntaxOf(file: string): StyleSyntax {
  const extension = extname(file).toLowerCase();
  return extension === ".sass" ? "indented" : extension === ".css" ? "css" : "scss";
}

/**
 * The file a load of `path` means, as Sass's file-system importer finds it, or undefined.
 * `path` names a file with or without its extension, or a folder with an index file.
 */
export function resolveSassFile(path: string, fromImport: boolean): string | undefined {
  const extension = extname(path);
  if (/^\.(?:sass|scss|css)$/.test(extension)) {
    const stem = path.slice(0, -extension.length);
    return (
      (fromImport ? exactlyOne(candidates(`${stem}.import${extension}`), path) : undefined) ??
      exactlyOne(candidates(path), path)
    );
  }
  return (
    (fromImport ? exactlyOne(withExtensions(`${path}.import`), path) : undefined) ??
    exactlyOne(withExtensions(path), path) ??
    asFolder(path, fromImport)
  );
}

function asFolder(path: string, fromImport: boolean): string | undefined {
  if (!statSync(path, { throwIfNoEntry: false })?.isDirectory()) return undefined;
  return (
    (fromImport ? exactlyOne(withExtensions(join(path, "index.import")), path) : undefined) ??
    exactlyOne(withExtensions(join(path, "index")), path)
  );
}

/** `path.sass` and `path.scss` (partials too), or else `path.css`. */
function withExtensions(path: string): string[] {
  const found = [...candidates(`${path}.sass`), ...candidates(`${path}.scss`)];
  return found.length > 0 ? found : candidates(`${path}.css`);
}

/** Those of `_name` (the partial) and `name` that exist. */
function candidates(path: string): string[] {
  return [join(dirname(path), `_${basename(path)}`), path].filter(
    (file) => statSync(file, { throwIfNoEntry: false })?.isFile() === true,
  );
}

/** The one file of `files`; two are an error, as in Sass (`_theme.scss` beside `theme.scss`). */
function exactlyOne(files: string[], wanted: string): string | undefined {
  if (files.length <= 1) return files[0];
  const shown = files.map((file) => toPosix(relative(dirname(wanted), file)));
  // Sass's own words, so the message reads as it does without svc.
  throw new Error(`It's not clear which file to import. Found: ${shown.join(", ")}`);
}
