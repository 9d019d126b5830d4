/**
 * The files of replaced builds stay for a grace period (`keepOldFilesMs`), so a page that
 * read the previous `manifest.json` still finds its bundles; a file's modification time says
 * when its period began.
 */
import { lstatSync, lutimesSync, readdirSync, readFileSync, unlinkSync } from "node:fs";
import { join } from "node:path";
import { VENDOR_DIR } from "../bundling/vendorModules.ts";
import { importMapFiles, readImportMap } from "../served/importMapFile.ts";
import { MANIFEST_FILE, type Manifest, parseManifest } from "../served/manifest.ts";
import { ASSETS_PATH, BUNDLES_DIR, isOutputFile } from "./outputFiles.ts";

/**
 * The files (relative to `outDir`) of the build in place: the manifest's bundles, their
 * `.gz`/`.br` siblings and their server bundles. Empty when there is no usable manifest.
 */
export function readPreviousFiles(outDir: string): string[] {
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
export function touchReplaced(
  outDir: string,
  previous: readonly string[],
  next: ReadonlySet<string>,
) {
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
export function removeOldFiles(
  outDir: string,
  listed: ReadonlySet<string>,
  keepMs: number,
): number {
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
