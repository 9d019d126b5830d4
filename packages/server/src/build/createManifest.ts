import { type VendorBuild, vendorClosure } from "../bundling/vendorModules.ts";
import { emptyManifest, type Manifest, type ManifestEntry } from "../served/manifest.ts";
import type { BuiltBundle } from "./buildResult.ts";
import type { OnDemandImports } from "./vendorForBuild.ts";

/**
 * The manifest of a build: one entry per bundle, its lists left out when empty. Completes
 * each bundle with its server bundle (`serverFiles`) and the vendor files `loader.js` fetches
 * for it; returns those files too, by path, so one that several bundles need is written once.
 */
export function createManifest(
  bundles: readonly BuiltBundle[],
  serverFiles: ReadonlyMap<string, { file: string; integrity: string }>,
  vendor: VendorBuild | undefined,
  onDemand: OnDemandImports,
): { manifest: Manifest; vendorFiles: Map<string, Uint8Array> } {
  const manifest = emptyManifest();
  const vendorFiles = new Map<string, Uint8Array>();
  for (const bundle of bundles) {
    const { name, file, hash, integrity, size, css, assets, dependencies, urlModule } = bundle;
    bundle.server = serverFiles.get(name);
    const entry: ManifestEntry = { file, hash, integrity, size };
    if (css.length > 0) entry.css = css;
    if (urlModule !== undefined) entry.urlModule = urlModule;
    if (assets.length > 0) entry.assets = assets;
    if (dependencies.length > 0) entry.dependencies = dependencies;
    if (vendor !== undefined) {
      for (const { module, file: path, integrity, body } of vendorClosure(
        vendor,
        onDemand.get(name) ?? [],
      )) {
        bundle.modules.push({ module, file: path, integrity });
        vendorFiles.set(path, body);
      }
    }
    if (bundle.modules.length > 0) entry.modules = bundle.modules;
    if (bundle.server !== undefined) entry.server = bundle.server;
    manifest[name] = entry;
  }
  return { manifest, vendorFiles };
}
