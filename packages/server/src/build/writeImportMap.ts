import type { ManifestFile } from "@svc/protocol";
import { ESM_LOADER_FILE, type VendorBuild } from "../bundling/vendorModules.ts";
import { IMPORT_MAP_FILE, type ImportMap } from "../served/importMapFile.ts";
import type { OutputWriter } from "./outputWriter.ts";

/** Writes `vendor/`, `loader.esm.js` and, last, `importmap.json`. */
export function writeImportMap(
  output: OutputWriter,
  vendor: VendorBuild,
  bundles: readonly { file: string; integrity: string; urlModule?: ManifestFile }[],
): ImportMap {
  for (const { file, body } of vendor.modules.values()) output.place(file, body);
  if (vendor.loader !== undefined) output.place(ESM_LOADER_FILE, vendor.loader.body);
  const map = createBuildImportMap(vendor, bundles);
  output.place(IMPORT_MAP_FILE, Buffer.from(`${JSON.stringify(map, null, 2)}\n`));
  return map;
}

/**
 * The import map of a build: each vendor module by bare name, and the integrity of every
 * file a page imports from the build (vendor modules, `loader.esm.js`, the bundles and their
 * `urlModule` forms).
 */
export function createBuildImportMap(
  vendor: VendorBuild,
  bundles: readonly { file: string; integrity: string; urlModule?: ManifestFile }[],
): ImportMap {
  const map: ImportMap = { imports: {}, integrity: {} };
  for (const [specifier, { file, integrity }] of vendor.modules) {
    map.imports[specifier] = `./${file}`;
    map.integrity[`./${file}`] = integrity;
  }
  if (vendor.loader !== undefined) {
    map.integrity[`./${ESM_LOADER_FILE}`] = vendor.loader.integrity;
  }
  for (const { file, integrity, urlModule } of bundles) {
    map.integrity[`./${file}`] = integrity;
    // What `moduleLoading: "url"` imports for a component with CSS.
    if (urlModule?.integrity !== undefined) {
      map.integrity[`./${urlModule.file}`] = urlModule.integrity;
    }
  }
  return map;
}
