import type { ManifestFile, ManifestModule } from "@svc/protocol";
import type { ImportMap } from "../served/importMapFile.ts";
import type { Manifest, ManifestEntry } from "../served/manifest.ts";

/** One component of a finished build. */
export interface BuiltBundle
  extends Required<Omit<ManifestEntry, "css" | "assets" | "server" | "urlModule" | "modules">>,
    Pick<ManifestEntry, "server" | "urlModule"> {
  name: string;
  /** The vendor files `loader.js` fetches for it (see `ManifestEntry.modules`); often none. */
  modules: ManifestModule[];
  /** Its stylesheets, in cascade order (empty without CSS). */
  css: ManifestFile[];
  /** The files it imports as URLs. */
  assets: ManifestFile[];
  /** Size of the bundle after gzip (level 9), in bytes. */
  gzipSize: number;
}

export interface BuildResult {
  /** The output directory (absolute). */
  outDir: string;
  manifest: Manifest;
  /** Every bundle, sorted by component name. */
  bundles: BuiltBundle[];
  /** What `importmap.json` holds; undefined when none was written. */
  importMap?: ImportMap;
  /** Wall-clock time of the whole build, in milliseconds. */
  durationMs: number;
}
