import { SHARED_MODULES, type SharedModuleName } from "@svc/protocol";

/** The runtime modules a component bundle may import (its esbuild externals). */
export const RUNTIME_MODULE_NAMES = SHARED_MODULES;

export type RuntimeModuleName = SharedModuleName;

/** `window.__MODULES__`: module specifier → module namespace (or namespace-like object). */
export type ModuleRegistry = Record<string, object>;

declare global {
  var __MODULES__: ModuleRegistry | undefined;
}

/** The page's module registry, created empty when the page has none yet. */
export function getModuleRegistry(): ModuleRegistry {
  globalThis.__MODULES__ ??= {};
  return globalThis.__MODULES__;
}

/**
 * Adds modules to `window.__MODULES__`. A module already present is never replaced: two
 * copies of React on one page break hooks, so the first installation wins.
 *
 * @returns the names that were added by this call
 */
export function installModules(modules: Readonly<Record<string, object | undefined>>): string[] {
  const registry = getModuleRegistry();
  const added: string[] = [];
  for (const [name, module] of Object.entries(modules)) {
    if (module === undefined || Object.hasOwn(registry, name)) continue;
    registry[name] = module;
    added.push(name);
  }
  return added;
}
