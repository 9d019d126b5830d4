import { type ComponentName, isValidName, type ManifestEntry } from "@svc/protocol";
import type { CachedBundle } from "../bundling/bundleCache.ts";
import {
  buildMetadata,
  type ComponentMetadata,
  type SchemaReader,
} from "../components/metadata.ts";
import type { PrebuiltBundles } from "../served/prebuiltBundles.ts";
import { type BundleResult, MAX_PRELOADS, type Preload } from "./handlerTypes.ts";
import type { LiveBundles } from "./liveBundles.ts";

/** What `schema.json` gave (undefined: none). */
type Schema = ReturnType<SchemaReader["read"]>;

/**
 * What a client learns of a component besides its code: its metadata, and the components to
 * fetch with it (preloads) — from the build directory for the components it lists, from the
 * sources for the others.
 */
export class ComponentFacts {
  readonly #live: LiveBundles;
  readonly #prebuilt: PrebuiltBundles | undefined;
  readonly #schemas: SchemaReader;

  constructor(live: LiveBundles, prebuilt: PrebuiltBundles | undefined, schemas: SchemaReader) {
    this.#live = live;
    this.#prebuilt = prebuilt;
    this.#schemas = schemas;
  }

  async metadata(name: ComponentName): Promise<ComponentMetadata> {
    const entry = this.#prebuilt?.entry(name);
    // A build may be served without its sources: then there is no schema to read. Only
    // re-scan the sources for names the build does not know, so a production server
    // never walks the disk per request.
    const component =
      entry === undefined ? await this.#live.lookUp(name) : this.#live.registry.get(name);
    if (entry === undefined && component === undefined) throw this.#live.notFound(name);
    const schema = component === undefined ? undefined : this.#schemas.read(component);
    if (entry !== undefined) return this.builtMetadata(name, entry, schema);
    // As a bundle request asks: a bundle its watches vouch for is answered after the poll
    // phase (one built a moment after a save is served only so, see `BundleCache`).
    return this.liveMetadata(name, schema, await this.#live.bundle(name, {}));
  }

  /** The metadata of a component of the build directory, its manifest entry `entry`. */
  builtMetadata(name: ComponentName, entry: ManifestEntry, schema: Schema): ComponentMetadata {
    const dependencies = entry.dependencies ?? [];
    return buildMetadata(name, schema, entry.hash, dependencies, {
      preload: this.preloadsOf(name, dependencies).map((p) => p.name),
      stylesheets: builtStylesheets(entry),
    });
  }

  /** The metadata of a component served from its sources, its browser bundle `bundle`. */
  liveMetadata(name: ComponentName, schema: Schema, bundle: CachedBundle): ComponentMetadata {
    const dependencies = bundle.dependencies ?? [];
    return buildMetadata(name, schema, bundle.hash, dependencies, {
      preload: this.preloadsOf(name, dependencies).map((p) => p.name),
      stylesheets: bundle.stylesheets.map((sheet) => sheet.path),
    });
  }

  /** `bundle` with its {@link BundleResult.preload} list (see `Handlers.getBundle`). */
  withPreloads = (bundle: BundleResult): BundleResult => {
    const direct = bundle.dependencies ?? [];
    if (direct.length === 0) return bundle;
    return { ...bundle, preload: this.preloadsOf(bundle.name, direct) };
  };

  /**
   * The components to fetch alongside `name`'s bundle, whose direct dependencies are
   * `direct`: those that exist and, transitively, theirs as far as known without building.
   */
  preloadsOf(name: string, direct: readonly string[]): Preload[] {
    if (direct.length === 0) return [];
    const preload: Preload[] = [];
    const seen = new Set<string>([name]);
    const queue = [...direct];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (seen.has(next) || !isValidName(next)) continue;
      seen.add(next);
      const known = this.#atHand(next as ComponentName);
      if (known === undefined) continue;
      preload.push(known.hash === undefined ? { name: next } : { name: next, hash: known.hash });
      if (preload.length >= MAX_PRELOADS) break;
      queue.push(...known.dependencies);
    }
    return preload;
  }

  /**
   * What is known of `name` without building: its hash and dependencies when its bundle is at
   * hand; `{}` when it exists but is not built (a build starts in the background); undefined
   * when there is no such component.
   */
  #atHand(name: ComponentName): { hash?: string; dependencies: readonly string[] } | undefined {
    const entry = this.#prebuilt?.entry(name);
    if (entry !== undefined) return { hash: entry.hash, dependencies: entry.dependencies ?? [] };
    const component = this.#live.find(name);
    if (component === undefined) return undefined;
    const hit = this.#live.cache.peek(component);
    if (hit !== undefined) return hit;
    this.#live.bundle(name).catch(() => {}); // its own request reports a failure
    return { dependencies: [] };
  }
}

/** A build's stylesheets of one entry, as paths below `bundles/` (what an island links). */
export function builtStylesheets(entry: ManifestEntry): string[] {
  return (entry.css ?? []).map(({ file }) => file.replace(/^bundles\//, ""));
}
