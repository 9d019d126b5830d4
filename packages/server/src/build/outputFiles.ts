/**
 * The names a build writes. It removes only files named so, and refuses a directory holding
 * others: anything else there is someone else's.
 */
import { STYLESHEET_FILE, VENDOR_FILE } from "@svc/protocol";
import { ASSET_NAME, ASSETS_DIR } from "../bundling/componentFiles.ts";
import { ESM_LOADER_FILE, VENDOR_DIR } from "../bundling/vendorModules.ts";
import { IMPORT_MAP_FILE } from "../served/importMapFile.ts";

/** Temporary files of a build: `.tmp-<pid>-<random>.<final name>`, beside their final name. */
export const TEMPORARY = /^\.tmp-(\d+)-[0-9a-f]+\./;
/** The files a build writes into `bundles/`: `<file_safe_name>.<hash>.js`, `.gz`, `.br`, and the server bundles `<file_safe_name>.<hash>.cjs`. */
const BUNDLE_FILE = /^[A-Za-z_][A-Za-z0-9_.-]*\.[0-9a-f]{8,64}\.(?:js(?:\.gz|\.br)?|cjs)$/;
export const BUNDLES_DIR = "bundles";
/** What the import map adds at the top of a build directory. */
export const IMPORT_MAP_ENTRIES: readonly string[] = [VENDOR_DIR, IMPORT_MAP_FILE, ESM_LOADER_FILE];
/** `bundles/assets`, relative to the output directory. */
export const ASSETS_PATH = `${BUNDLES_DIR}/${ASSETS_DIR}`;

/** Whether `name`, in the output's subdirectory `dir` (`bundles`, `bundles/assets` or `vendor`), is a file svc writes. */
export function isOutputFile(name: string, dir: string): boolean {
  if (dir === VENDOR_DIR) return VENDOR_FILE.test(name);
  const plain = name.replace(/\.(?:gz|br)$/, "");
  return dir === ASSETS_PATH
    ? ASSET_NAME.test(plain)
    : BUNDLE_FILE.test(name) || STYLESHEET_FILE.test(plain);
}
