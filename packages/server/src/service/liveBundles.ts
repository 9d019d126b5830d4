import { type ComponentName, STYLESHEET_FILE } from "@svc/protocol";
import type { BundleCache, CachedBundle } from "../bundling/bundleCache.ts";
import { ASSET_NAME } from "../bundling/componentFiles.ts";
import { componentNotFound } from "../components/closestName.ts";
import type { Component, ComponentRegistry } from "../components/componentRegistry.ts";
import { compareCodePoints } from "../components/componentRegistry.ts";
import type { ComponentNotFoundError } from "../errors.ts";
import type { PrebuiltBundles } from "../served/prebuiltBundles.ts";
import type { GetBundleOptions } from "./handlerTypes.ts";

/**
 * The components served from their sources: found in the registry (or on disk, for a name it
 * does not know yet), bundled on request by the dev cache.
 */
export class LiveBundles {
  readonly registry: ComponentRegistry;
  readonly cache: BundleCache;
  /** The registry is kept current without a restart (`HandlerOptions.autoRefresh`). */
  readonly autoRefresh: boolean;
  readonly #prebuilt: PrebuiltBundles | undefined;

  constructor(
    registry: ComponentRegistry,
    cache: BundleCache,
    autoRefresh: boolean,
    prebuilt: PrebuiltBundles | undefined,
  ) {
    this.registry = registry;
    this.cache = cache;
    this.autoRefresh = autoRefresh;
    this.#prebuilt = prebuilt;
  }

  /**
   * The registered component; an unknown name is looked up on disk (a stat per source, never
   * a scan), so components created since the last scan are found at once.
   */
  find(name: ComponentName): Component | undefined {
    const component = this.registry.get(name);
    return component === undefined && this.autoRefresh ? this.registry.probe(name) : component;
  }

  /** The 404 for `name`, suggesting the closest name served (looked for only now). */
  notFound(name: ComponentName): ComponentNotFoundError {
    const names = new Set<string>(this.registry.list().map((c) => c.name));
    for (const known of Object.keys(this.#prebuilt?.manifest ?? {})) names.add(known);
    return componentNotFound(name, [...names].sort(compareCodePoints));
  }

  /**
   * {@link find} for a request: a name the registry does not know is looked up on disk in the
   * next turn of the event loop, after the requests for known names that arrived with it, so
   * a client asking for names that do not exist (a broken page, a scanner) cannot hold up
   * answers that are ready.
   */
  async lookUp(name: ComponentName): Promise<Component | undefined> {
    const component = this.registry.get(name);
    if (component !== undefined || !this.autoRefresh) return component;
    await new Promise((resolve) => setImmediate(resolve));
    return this.find(name);
  }

  /**
   * `name`'s bundle. `vouched`: a warm bundle its watches vouch for is answered after the poll
   * phase (`BundleCache.current`), for a bundle request; a render checks by stats, once a
   * turn. `outcome.built` is set when the answer had to be built (or waited for a build).
   */
  async bundle(
    name: ComponentName,
    vouched?: GetBundleOptions,
    outcome?: { built: boolean },
  ): Promise<CachedBundle> {
    const { cache, registry, autoRefresh } = this;
    let component = await this.lookUp(name);
    if (component === undefined) throw this.notFound(name);
    const now =
      vouched === undefined
        ? cache.peek(component)
        : cache.current(component, vouched.readFromSocket === true);
    const hit = now instanceof Promise ? await now : now;
    if (hit !== undefined) return hit;
    // About to build: check the component itself first (deleted? a new entry file?).
    if (autoRefresh) component = registry.revalidate(name);
    if (component === undefined) throw this.notFound(name);
    if (outcome !== undefined) outcome.built = true;
    try {
      return await cache.get(component);
    } catch (error) {
      // The component may have been deleted meanwhile: answer 404, not a bundle error.
      if (autoRefresh && registry.revalidate(name) === undefined) throw this.notFound(name);
      throw error;
    }
  }

  /**
   * A file of a bundle this handler set has not built yet (another handler set rendered the
   * island that names it, or the server restarted since the page loaded): the components are
   * built until one has it. Names are content-addressed, so whichever has it has these bytes.
   */
  async builtFile(path: string): Promise<Uint8Array | undefined> {
    if (!STYLESHEET_FILE.test(path) && !ASSET_NAME.test(path.replace(/^assets\//, ""))) {
      return undefined;
    }
    for (const component of this.registry.list()) {
      await this.cache.get(component).catch(() => undefined);
      const found = this.cache.file(path);
      if (found !== undefined) return found;
    }
    return undefined;
  }
}
