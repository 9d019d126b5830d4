import { loadBlobBundle } from "./blobLoading.ts";
import { createClientCore, remember } from "./clientCore.ts";
import { assertComponentName } from "./componentName.ts";
import { ExportNotFoundError } from "./errors.ts";
import type { ComponentModule } from "./importCode.ts";
import { loadManifestFile } from "./loadManifestFile.ts";
import { loadMetadata } from "./loadMetadata.ts";
import type { SvcClient, SvcClientOptions } from "./svcClient.ts";
import { createUrlLoading } from "./urlLoading.ts";

// The client is a plain object of functions (they work unbound, `const { load } = client`)
// over one `ClientCore`: its settings and caches, which the loading parts share.

/** The value of one export of a loaded component (default: `default`). */
export function getComponentExport(
  module: ComponentModule,
  name: string,
  exportName = "default",
): unknown {
  if (!Object.hasOwn(module, exportName) || module[exportName] === undefined) {
    throw new ExportNotFoundError(name, exportName, Object.keys(module));
  }
  return module[exportName];
}

export function createSvcClient(options: SvcClientOptions = {}): SvcClient {
  const core = createClientCore(options);
  const { apiBase, manifestUrl, hashes, bundles } = core;
  const urlLoading = options.moduleLoading === "url" ? createUrlLoading(core) : undefined;

  const svcClient: SvcClient = {
    apiBase,
    manifestUrl,
    source: manifestUrl === undefined ? `api:${apiBase}` : `manifest:${manifestUrl}`,

    load(name, loadOptions = {}) {
      try {
        assertComponentName(name);
      } catch (error) {
        return Promise.reject(error);
      }
      if (loadOptions.hash !== undefined) hashes.set(name, loadOptions.hash);
      const hash = manifestUrl === undefined ? hashes.get(name) : undefined;
      const cached = bundles.get(name);
      if (cached !== undefined && cached.hash === hash) return cached.promise;
      const promise =
        urlLoading === undefined ? loadBlobBundle(core, name, hash) : urlLoading.load(name, hash);
      remember(bundles, name, { hash, promise }, promise);
      return promise;
    },

    async loadPreloaded(name) {
      const modules = new Map<string, ComponentModule>();
      const seen = new Set([name]);
      const visit = async (parent: string): Promise<void> => {
        const next = (core.preloads.get(parent) ?? []).filter((d) => !seen.has(d));
        for (const dependency of next) seen.add(dependency);
        await Promise.all(
          next.map((dependency) =>
            svcClient.load(dependency).then(
              (module) => {
                modules.set(dependency, module);
                return visit(dependency);
              },
              () => {},
            ),
          ),
        );
      };
      await visit(name);
      return modules;
    },

    loadMetadata: (name) => loadMetadata(core, name),

    async loadManifest() {
      return (await loadManifestFile(core)).entries;
    },

    setHash(name, hash) {
      if (hash === undefined) hashes.delete(name);
      else hashes.set(name, hash);
    },

    invalidate(name) {
      urlLoading?.invalidate(name === undefined ? bundles.keys() : [name]);
      if (name === undefined) {
        bundles.clear();
        core.metadata.clear();
        core.ahead.clear();
        core.preloads.clear();
        core.manifest = undefined;
      } else {
        bundles.delete(name);
        core.metadata.delete(name);
        core.ahead.delete(name);
      }
    },
  };
  return svcClient;
}
