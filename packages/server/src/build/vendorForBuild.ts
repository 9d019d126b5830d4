import {
  onDemandImports,
  type VendorBuild,
  VendorModulesError,
} from "../bundling/vendorModules.ts";
import type { FinishedBundle } from "./bundleAll.ts";

/** Each bundle's imports that `loader.js` fetches on demand, by component name. */
export type OnDemandImports = ReadonlyMap<string, ReturnType<typeof onDemandImports>>;

/**
 * The vendor modules of one build: built at most once, and only when something needs them —
 * the import map (all of them), or a bundle that imports one of those `loader.js` fetches on
 * demand (`@svc/react`, TanStack Query, goober).
 */
export class VendorForBuild {
  readonly #build: () => Promise<VendorBuild>;
  #built: Promise<VendorBuild> | undefined;

  constructor(build: () => Promise<VendorBuild>) {
    this.#build = build;
  }

  /** The vendor modules, as many as are installed (`missing` names the others). */
  load(): Promise<VendorBuild> {
    this.#built ??= this.#build();
    return this.#built;
  }

  /**
   * The complete vendor build (for the import map), or undefined when a package of it is not
   * installed: an app that uses neither goober nor the import map does not install goober, so
   * that is said only where an import map was written before (`expected`), as pages there may
   * use it. Elsewhere `renderImportMap` names what to install the day a page asks for one.
   */
  async forImportMap(
    progress: (message: string) => void,
    expected: boolean,
  ): Promise<VendorBuild | undefined> {
    let vendor: VendorBuild;
    try {
      vendor = await this.load();
    } catch (error) {
      if (!(error instanceof VendorModulesError)) throw error;
      progress(`no import map written: ${error.message.replace(/^svc: /, "")}`);
      return undefined;
    }
    const missing = vendor.missing[0];
    if (missing === undefined) return vendor;
    if (expected) {
      progress(
        `no import map written (the previous build had one): ${missing.message.replace(/^svc: /, "")}`,
      );
    }
    return undefined;
  }
}

/** What each bundle imports on demand (read from its import table). */
export function onDemandImportsOf(finished: readonly FinishedBundle[]): OnDemandImports {
  return new Map(finished.map((bundle) => [bundle.name, onDemandImports(bundle.code)]));
}

/** Whether any bundle imports a vendor module on demand. */
export function needsVendor(onDemand: OnDemandImports): boolean {
  return [...onDemand.values()].some((imports) => imports.length > 0);
}

/**
 * Says which vendor modules bundles import but `vendor` lacks, and which bundles: the page
 * then fails to load them, so the fix (install it beside @svc/server) is named at build time.
 */
export function reportMissingVendor(
  vendor: VendorBuild | undefined,
  onDemand: OnDemandImports,
  progress: (message: string) => void,
): void {
  for (const missing of vendor?.missing ?? []) {
    const needed = [...onDemand].filter(([, imports]) =>
      imports.some((m) => m === missing.notInstalled),
    );
    if (needed.length > 0) {
      progress(
        `no vendor file for ${missing.notInstalled}, which ${needed.map(([name]) => name).join(", ")} import${needed.length === 1 ? "s" : ""}: install it beside @svc/server`,
      );
    }
  }
}
