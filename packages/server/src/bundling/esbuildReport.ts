/**
 * What an esbuild run reports, in svc's terms: its errors as `BundleError` locations, its
 * metafile as the files read and how each import resolved, and the check that none of them
 * lies outside the project root.
 */
import { readFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import type * as esbuild from "esbuild";
import type { Component } from "../components/componentRegistry.ts";
import { BundleError, type BundleErrorLocation } from "../errors.ts";
import { isInside, toPosix } from "../util/paths.ts";
import { type ComponentFiles, explainMessage } from "./componentFiles.ts";
import type { Resolution } from "./recordCollector.ts";

/**
 * Converts esbuild's messages into locations relative to the component directory (with what
 * svc supports, for a kind of file it cannot bundle).
 */
export function toBundleErrorLocations(
  component: Component,
  workingDir: string,
  messages: readonly esbuild.Message[],
  files?: ComponentFiles,
  /** Add the lines around each error (development: the error overlay's code frame). */
  withFrames = false,
): BundleErrorLocation[] {
  return messages.map((m) => {
    const text = explainMessage(m.text);
    if (!m.location) return { text };
    const absolute = messageFile(m.location.file, workingDir, files);
    const location: BundleErrorLocation = {
      file: relative(component.dir, absolute).split("\\").join("/"),
      line: m.location.line,
      column: m.location.column,
      text,
      lineText: m.location.lineText,
    };
    const frame = withFrames ? codeFrame(absolute, m.location.line) : undefined;
    if (frame !== undefined) location.frame = frame;
    return location;
  });
}

/** Lines shown on each side of an error's line in a code frame. */
const FRAME_CONTEXT = 2;

/**
 * The lines of `file` around 1-based `line` (each cut at 200 characters: a minified line says
 * nothing more), or undefined when the file cannot be read (a virtual module, gone since).
 */
function codeFrame(file: string, line: number): BundleErrorLocation["frame"] {
  let source: string;
  try {
    source = readFileSync(file, "utf8");
  } catch {
    return undefined;
  }
  const all = source.split(/\r?\n/);
  // The empty "line" after a file's last newline is none.
  if (all.length > 1 && all.at(-1) === "") all.pop();
  if (line < 1 || line > all.length) return undefined;
  const start = Math.max(1, line - FRAME_CONTEXT);
  const lines = all
    .slice(start - 1, Math.min(all.length, line + FRAME_CONTEXT))
    .map((text) => (text.length > 200 ? `${text.slice(0, 200)}…` : text));
  return { start, lines };
}

/** The absolute path of the file an esbuild message is located in. */
export function messageFile(file: string, workingDir: string, files?: ComponentFiles): string {
  if (isAbsolute(file)) return file;
  return files?.realPath(file, workingDir) ?? resolve(workingDir, file);
}

/**
 * The files esbuild read and how each import resolved, as absolute paths. Inputs that are no
 * file (`data:` URLs, modules the `browser` field disables) are left out.
 */
export function readMetafile(
  metafile: esbuild.Metafile,
  workingDir: string,
  files?: ComponentFiles,
): { inputs: string[]; resolutions: Resolution[] } {
  const inputs = new Set<string>(files?.reads);
  const resolutions: Resolution[] = [...(files?.resolutions ?? [])];
  const fileOf = (key: string) =>
    files?.realPath(key, workingDir) ?? (isFileInput(key) ? resolve(workingDir, key) : undefined);
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    const importer = fileOf(input);
    if (importer === undefined) continue;
    if (isFileInput(input)) inputs.add(importer);
    for (const record of imports) {
      if (record.original === undefined) continue;
      // Resolved by the plugin (made-up modules): recorded by it, with the file it found.
      if (!isFileInput(record.path) && files?.virtual.has(record.path)) continue;
      const path = record.external === true ? undefined : fileOf(record.path);
      resolutions.push({ importer, specifier: record.original, path });
    }
  }
  return { inputs: [...inputs], resolutions };
}

/**
 * Whether a metafile input is a file: not a namespaced module (`svc-…:`), nor one of esbuild's
 * own (`<define:import.meta.env>`, listed whenever that define is given; `<stdin>`).
 */
function isFileInput(path: string): boolean {
  return !/^[a-z-]+:/i.test(path) && !path.startsWith("(") && !path.startsWith("<");
}

/**
 * svc reads files only inside the project root (`source.root`: the workspace or repository
 * holding the source, see `projectRoot.ts`): a symbolic link — or a path — leading out of it
 * is refused with a `BundleError` naming the importer, so a component cannot pull in files
 * from elsewhere on the machine.
 */
export function checkInsideRoot(
  component: Component,
  inputs: readonly string[],
  resolutions: readonly Resolution[],
): void {
  const root = component.source.root;
  const outside = inputs.filter((input) => !isInside(input, root));
  if (outside.length === 0) return;
  const shown = (path: string) => toPosix(relative(component.dir, path)) || ".";
  throw new BundleError(
    component.name,
    outside.map((path) => {
      const via = resolutions.find((r) => r.path === path);
      const what =
        via === undefined
          ? shown(path)
          : `${shown(via.importer)} imports "${via.specifier}", which`;
      return {
        text: `${what} resolves to ${shown(path)}, outside the project root: svc reads files (and follows links) only inside it — move the file in, or widen the root (the registry's root option)`,
      };
    }),
  );
}
