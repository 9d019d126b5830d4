import { type ClientCore, remember } from "./clientCore.ts";
import type { VendorFile } from "./modulePreloads.ts";
import { getModuleRegistry, installModules } from "./moduleRegistry.ts";
import { requestText } from "./request.ts";
import { rewriteModule } from "./rewriteImports.ts";

/**
 * Vendor modules by specifier: their code while it arrives, then their evaluation. Shared by
 * every client of the page, as the registry they fill is the page's.
 */
const vendorCode = new Map<string, Promise<string>>();
const vendorModules = new Map<string, Promise<void>>();

/** Starts fetching a vendor module the page lacks (once per specifier, for every client). */
export function fetchVendor(core: ClientCore, name: string, file: VendorFile): void {
  if (Object.hasOwn(getModuleRegistry(), file.module) || vendorCode.has(file.module)) return;
  const pending = requestText(core, name, file.url, file.integrity, "vendor module");
  remember(vendorCode, file.module, pending, pending);
  pending.catch(() => {});
}

/**
 * Puts the vendor modules a bundle needs into the registry, in order (dependencies first):
 * each rewritten against the registry like a bundle, so it uses the page's React.
 */
export async function provideModules(
  core: ClientCore,
  name: string,
  files: readonly VendorFile[],
): Promise<void> {
  const { evaluate } = core;
  for (const file of files) {
    const registry = getModuleRegistry();
    if (Object.hasOwn(registry, file.module)) continue;
    let evaluated = vendorModules.get(file.module);
    if (evaluated === undefined) {
      fetchVendor(core, name, file);
      evaluated = (async () => {
        const code = await (vendorCode.get(file.module) as Promise<string>);
        const { code: rewritten } = rewriteModule(code, {
          component: file.module,
          modules: registry,
          sourceURL: file.url,
        });
        installModules({ [file.module]: await evaluate(rewritten) });
      })();
      remember(vendorModules, file.module, evaluated, evaluated);
    }
    await evaluated;
  }
}
