import { readFileSync } from "node:fs";
import { LOADER_EXTRAS_FILE } from "@svc/protocol";
import { VENDOR_DIR, type VendorBuild } from "../bundling/vendorModules.ts";
import type { ImportMap } from "../served/importMapFile.ts";
import { MANIFEST_FILE, type Manifest } from "../served/manifest.ts";
import { loaderExtrasPath } from "../util/loaderFiles.ts";
import { BuildOutputError, isFileSystemError } from "./buildErrors.ts";
import type { BuiltBundle } from "./buildResult.ts";
import type { FinishedBundle } from "./bundleAll.ts";
import { createManifest } from "./createManifest.ts";
import { readPreviousFiles, touchReplaced } from "./oldFiles.ts";
import { checkOutDir } from "./outputDir.ts";
import { OutputWriter } from "./outputWriter.ts";
import { type ServerBundle, writeServerBundles } from "./serverBundles.ts";
import type { OnDemandImports } from "./vendorForBuild.ts";
import { writeBundles } from "./writeBundles.ts";
import { writeImportMap } from "./writeImportMap.ts";

/** What a checked build puts into its output directory. */
export interface Publication {
  outDir: string;
  finished: readonly FinishedBundle[];
  servers: readonly ServerBundle[];
  /** The vendor modules bundles fetch on demand; undefined when none does. */
  vendor: VendorBuild | undefined;
  /** The vendor modules of the import map; undefined for no import map. */
  mapVendor: VendorBuild | undefined;
  onDemand: OnDemandImports;
  /** Also write `.gz` and `.br` siblings. */
  compress: boolean;
  progress: (message: string) => void;
}

export interface Published {
  bundles: BuiltBundle[];
  manifest: Manifest;
  importMap: ImportMap | undefined;
  /** Every path (relative to the directory) the new build lists. */
  written: ReadonlySet<string>;
}

/**
 * Writes a build into its directory so that a reader always sees a whole build, the old one
 * or the new one: every file under its final, content-hashed name first (beside the files of
 * the build in place), `manifest.json` last, by a rename — from that instant readers get the
 * new build.
 * @throws BuildOutputError when a file cannot be written: what this build added is taken back,
 * and the previous build stays as it was.
 */
export async function publish(publication: Publication): Promise<Published> {
  const { outDir, vendor, mapVendor, progress } = publication;
  const output = new OutputWriter(outDir);
  try {
    output.prepare(vendor === undefined ? [] : [VENDOR_DIR]);
    // Read before importmap.json is replaced: the vendor files it lists are previous ones.
    const previous = readPreviousFiles(outDir);
    const bundles = await writeBundles(
      output,
      publication.finished,
      publication.compress,
      progress,
    );
    const serverFiles = writeServerBundles(output, publication.servers);
    const { manifest, vendorFiles } = createManifest(
      bundles,
      serverFiles,
      vendor,
      publication.onDemand,
    );
    let importMap: ImportMap | undefined;
    if (mapVendor !== undefined) importMap = writeImportMap(output, mapVendor, bundles);
    else for (const [path, body] of vendorFiles) output.place(path, body);
    // What `loader.js` fetches from beside the manifest for islands (static mode has no live
    // reload); without `@svc/loader` installed there is no loader to fetch it.
    const extras = readLoaderExtras();
    if (extras !== undefined) output.place(LOADER_EXTRAS_FILE, extras);
    checkOutDir(outDir); // nothing foreign may have appeared there while we worked
    // The previous build's files the new one drops start their grace period now.
    touchReplaced(outDir, previous, output.written);
    output.place(MANIFEST_FILE, Buffer.from(`${JSON.stringify(manifest, null, 2)}\n`));
    return { bundles, manifest, importMap, written: output.written };
  } catch (error) {
    output.undo();
    throw isFileSystemError(error) ? new BuildOutputError(outDir, error) : error;
  }
}

/** `@svc/loader`'s `loader.extras.js` as installed, or undefined. */
function readLoaderExtras(): Uint8Array | undefined {
  if (loaderExtrasPath === undefined) return undefined;
  try {
    return new Uint8Array(readFileSync(loaderExtrasPath));
  } catch {
    return undefined;
  }
}
