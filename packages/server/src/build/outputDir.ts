/**
 * The output directory before a build writes into it: a build replaces only what is certainly
 * an earlier svc build (anything else may be someone's files), and clears what killed builds
 * left there.
 */
import { readdirSync, readFileSync, realpathSync, statSync, unlinkSync } from "node:fs";
import { join, resolve } from "node:path";
import { LOADER_EXTRAS_FILE } from "@svc/protocol";
import { ASSETS_DIR } from "../bundling/componentFiles.ts";
import { VENDOR_DIR } from "../bundling/vendorModules.ts";
import { MANIFEST_FILE, parseManifest } from "../served/manifest.ts";
import { BuildSetupError } from "./buildErrors.ts";
import {
  ASSETS_PATH,
  BUNDLES_DIR,
  IMPORT_MAP_ENTRIES,
  isOutputFile,
  TEMPORARY,
} from "./outputFiles.ts";

/** An existing output directory reached through a symlink is replaced where it really is. */
export function resolveOutDir(outDir: string): string {
  const absolute = resolve(outDir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/**
 * Refuses to write into anything that is not certainly a previous build: a directory may be
 * written into when it is empty, or when it holds nothing but `bundles/`, a `manifest.json`
 * that parses as an svc manifest (a web-app `manifest.json` in `public/` does not) and
 * temporary files of svc builds. Without `manifest.json` (a first build was killed before
 * publishing it) `bundles/` may hold only files svc names.
 */
export function checkOutDir(outDir: string): void {
  const stat = statSync(outDir, { throwIfNoEntry: false });
  if (stat === undefined) return;
  const fix = "so it was left untouched — pass --output with a new or empty directory";
  if (!stat.isDirectory()) {
    throw new BuildSetupError(`${outDir} is not a directory, ${fix}`);
  }
  const entries = readdirSync(outDir);
  const foreign = entries.filter(
    (name) =>
      name !== MANIFEST_FILE &&
      name !== BUNDLES_DIR &&
      name !== LOADER_EXTRAS_FILE &&
      !IMPORT_MAP_ENTRIES.includes(name) &&
      !TEMPORARY.test(name),
  );
  if (entries.includes(MANIFEST_FILE)) {
    try {
      parseManifest(readFileSync(join(outDir, MANIFEST_FILE), "utf8"), MANIFEST_FILE);
    } catch (error) {
      throw new BuildSetupError(
        `${outDir} holds a ${MANIFEST_FILE} that is not an svc manifest (${(error as Error).message}), ${fix}`,
      );
    }
  } else if (entries.length > 0 && (foreign.length > 0 || !holdsOnlyBundleFiles(outDir))) {
    throw new BuildSetupError(
      `${outDir} is not empty and holds no ${MANIFEST_FILE}, so it is not a previous svc build and was left untouched — pass --output with a new or empty directory`,
    );
  }
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 3).join(", ") + (foreign.length > 3 ? ", …" : "");
    throw new BuildSetupError(`${outDir} holds files svc build does not write (${shown}), ${fix}`);
  }
}

/** Whether `outDir/bundles` is a directory holding nothing but files named as svc names them. */
function holdsOnlyBundleFiles(outDir: string): boolean {
  const only = (path: string, inAssets: boolean): boolean =>
    readdirSync(join(outDir, path), { withFileTypes: true }).every((entry) =>
      !inAssets && entry.name === ASSETS_DIR && entry.isDirectory()
        ? only(ASSETS_PATH, true)
        : entry.isFile() &&
          (isOutputFile(entry.name, inAssets ? ASSETS_PATH : BUNDLES_DIR) ||
            TEMPORARY.test(entry.name)),
    );
  try {
    return only(BUNDLES_DIR, false);
  } catch {
    return false;
  }
}

/**
 * Deletes the temporary files of builds that were killed (in the directory and in
 * `bundles/`); those of builds still running (their process is alive) are kept. Files a
 * killed build finished writing are listed by no manifest: `removeOldFiles` sees to them.
 */
export function recoverLeftovers(outDir: string): void {
  for (const dir of [
    outDir,
    join(outDir, BUNDLES_DIR),
    join(outDir, ASSETS_PATH),
    join(outDir, VENDOR_DIR),
  ]) {
    let entries: string[];
    try {
      entries = readdirSync(dir);
    } catch {
      continue; // not there yet: nothing to clean
    }
    for (const name of entries) {
      const match = TEMPORARY.exec(name);
      if (match === null || isAlive(Number(match[1]))) continue;
      try {
        unlinkSync(join(dir, name));
      } catch {
        // read-only for now: harmless (never served, never listed), and tried again next time
      }
    }
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
