import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The import map `svc build` writes beside `manifest.json`. */
export const IMPORT_MAP_FILE = "importmap.json";

/**
 * An import map (the `imports` and `integrity` keys browsers read). In `importmap.json` every
 * URL is relative to the build directory (`./vendor/react.<hash>.js`); `renderImportMap`
 * turns them into the URLs the directory is served at. The build makes it
 * (`createBuildImportMap`); this file reads it back, for pages and for the next build.
 */
export interface ImportMap {
  imports: Record<string, string>;
  integrity: Record<string, string>;
}

/** The files (relative to the build directory) an `importmap.json` lists. */
export function importMapFiles(map: ImportMap): string[] {
  return Object.keys(map.integrity).map((url) => url.replace(/^\.\//, ""));
}

/**
 * `importmap.json` of a build directory.
 * @throws Error in one line saying why it cannot be used
 */
export function readImportMap(buildDir: string): ImportMap {
  const path = join(buildDir, IMPORT_MAP_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch {
    throw new Error(
      `svc: ${path} is missing: run \`svc build\` with react, react-dom, goober, @tanstack/react-query and @svc/react installed beside @svc/server (it writes the import map then)`,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new Error(`svc: ${path} is not JSON (${(error as Error).message}): run \`svc build\``);
  }
  const { imports, integrity } = (parsed ?? {}) as Partial<ImportMap>;
  if (!isStringRecord(imports) || !isStringRecord(integrity)) {
    throw new Error(`svc: ${path} is not an import map written by svc build: run \`svc build\``);
  }
  return { imports, integrity };
}

function isStringRecord(value: unknown): value is Record<string, string> {
  return (
    typeof value === "object" &&
    value !== null &&
    !Array.isArray(value) &&
    Object.values(value).every((v) => typeof v === "string")
  );
}
