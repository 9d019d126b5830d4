import type { ComponentName, ManifestEntry } from "@svc/protocol";
import type { CachedBundle } from "../bundling/bundleCache.ts";
import type { BundleOptions, FinishedOutput } from "../bundling/bundler.ts";
import { serverBundleOf } from "../bundling/serverBundle.ts";
import { buildMetadata, type SchemaReader } from "../components/metadata.ts";
import type { PrebuiltBundle, PrebuiltBundles } from "../served/prebuiltBundles.ts";
import type { IslandSource, IslandSources, ServerBundle } from "../ssr/islandRenderer.ts";
import { ServerSourceMaps } from "../ssr/serverSourceMaps.ts";
import { builtStylesheets, type ComponentFacts } from "./componentFacts.ts";
import type { LiveBundles } from "./liveBundles.ts";

/** What `schema.json` gave (undefined: none). */
type Schema = ReturnType<SchemaReader["read"]>;

/**
 * What the island renderer asks of the handler set (`IslandSources`): each component's server
 * bundle — a build's, or made from the browser bundle, the same code as CommonJS — and its
 * metadata; at hand without waiting while nothing changed, so a warm render awaits nothing.
 */
export class ServerBundles implements IslandSources {
  readonly #live: LiveBundles;
  readonly #facts: ComponentFacts;
  readonly #prebuilt: PrebuiltBundles | undefined;
  readonly #schemas: SchemaReader;
  /**
   * Each browser bundle's server bundle, made once per version and kept as long as the browser
   * bundle is: fresh when it is. Without a source map: one is made when a render error's stack
   * needs it (`#maps`).
   */
  readonly #servers = new WeakMap<
    CachedBundle | PrebuiltBundle,
    { done?: FinishedOutput; pending: Promise<FinishedOutput> }
  >();
  /** What {@link atHand} gave for each browser bundle: the same objects while unchanged. */
  readonly #liveSources = new WeakMap<CachedBundle, IslandSource & { from: readonly unknown[] }>();
  /** What {@link atHand} gave for each manifest entry: the same objects while unchanged. */
  readonly #builtSources = new WeakMap<
    ManifestEntry,
    IslandSource & { from: readonly unknown[] }
  >();
  /**
   * Server bundles made again with their source map — the browser bundle's, carried through —
   * for the stacks of render errors: those made from live browser bundles (not a build
   * directory's, which carry their own maps, if any). The browser bundle as it is now: if it
   * changed since the version that threw, `mapServerFrames` leaves the frames out.
   */
  readonly #maps: ServerSourceMaps;

  constructor(
    live: LiveBundles,
    facts: ComponentFacts,
    prebuilt: PrebuiltBundles | undefined,
    schemas: SchemaReader,
    bundleOptions: BundleOptions | undefined,
  ) {
    this.#live = live;
    this.#facts = facts;
    this.#prebuilt = prebuilt;
    this.#schemas = schemas;
    this.#maps = new ServerSourceMaps(async (name) => {
      if (bundleOptions?.sourcemap === false) return undefined;
      if (prebuilt?.entry(name as ComponentName) !== undefined) return undefined;
      const component = live.registry.get(name as ComponentName);
      if (component === undefined) return undefined;
      return (await serverBundleOf(await live.cache.get(component), { sourcemap: true })).code;
    });
  }

  /**
   * `name`'s server bundle, its browser bundle's hash and the browser bundle's stylesheets
   * (paths below `bundles/`), which the island links.
   */
  async serverBundle(name: ComponentName): Promise<ServerBundle> {
    const prebuilt = this.#prebuilt;
    const entry = prebuilt?.entry(name);
    if (entry?.server !== undefined && prebuilt !== undefined) {
      return builtServerBundle(entry, await prebuilt.readServer(name, entry.server));
    }
    // From sources, or a build without server bundles (`--no-ssr`): made from the browser bundle.
    const fromBuild = entry === undefined ? undefined : prebuilt?.read(name);
    const browser = fromBuild === undefined ? await this.#live.bundle(name) : await fromBuild;
    return serverBundleFrom(browser, await this.#serverOf(browser));
  }

  metadata(name: ComponentName) {
    return this.#facts.metadata(name);
  }

  /**
   * {@link serverBundle} and {@link metadata} of an island's own component at once, the long
   * way (cold, building, after an edit): one lookup, and the metadata made from the browser
   * bundle that lookup gave — asked for again, that bundle would be answered only once the
   * record of its build is kept, after the answer.
   */
  async island(name: ComponentName): Promise<IslandSource> {
    if (this.#prebuilt?.entry(name) !== undefined) {
      const [bundle, metadata] = await Promise.all([this.serverBundle(name), this.metadata(name)]);
      return { bundle, metadata };
    }
    const component = await this.#live.lookUp(name);
    if (component === undefined) throw this.#live.notFound(name);
    const schema = this.#schemas.read(component);
    const browser = await this.#live.bundle(name);
    return {
      bundle: serverBundleFrom(browser, await this.#serverOf(browser)),
      metadata: this.#facts.liveMetadata(name, schema, browser),
    };
  }

  /**
   * {@link serverBundle} and {@link metadata} at once, without waiting, when both bundles are
   * cached and fresh and the schema readable (the same checks as theirs); undefined otherwise.
   * The warm path of a render, in development and (see {@link #builtAtHand}) production.
   */
  atHand(name: ComponentName): IslandSource | undefined {
    const entry = this.#prebuilt?.entry(name);
    if (entry !== undefined) return this.#builtAtHand(name, entry);
    const component = this.#live.registry.get(name);
    if (component === undefined) return undefined;
    // One check: the server bundle is made from the browser bundle, fresh when it is.
    const browser = this.#live.cache.peek(component);
    const server = browser && this.#servers.get(browser)?.done;
    if (server === undefined || browser === undefined) return undefined;
    let schema: Schema;
    try {
      schema = this.#schemas.read(component);
    } catch {
      return undefined; // asked again the slow way, which reports it
    }
    const known = this.#liveSources.get(browser);
    if (known !== undefined && known.from[0] === server && known.from[1] === schema) return known;
    const fresh = {
      bundle: serverBundleFrom(browser, server),
      metadata: buildMetadata(name, schema, browser.hash, browser.dependencies ?? []),
      from: [server, schema],
    };
    this.#liveSources.set(browser, fresh);
    return fresh;
  }

  mapServerStack(stack: string): Promise<string> {
    return this.#maps.map(stack);
  }

  /**
   * {@link atHand} for a component of the build directory: its server bundle once read
   * (a build without server bundles goes the long way), its metadata as {@link metadata}
   * makes it, kept per manifest entry (a new build has new entries) and `schema.json`.
   */
  #builtAtHand(name: ComponentName, entry: ManifestEntry): IslandSource | undefined {
    const server = entry.server === undefined ? undefined : this.#prebuilt?.peekServer(name);
    if (server === undefined) return undefined;
    const component = this.#live.registry.get(name);
    let schema: Schema;
    try {
      schema = component === undefined ? undefined : this.#schemas.read(component);
    } catch {
      return undefined; // asked again the slow way, which reports it
    }
    const known = this.#builtSources.get(entry);
    if (known !== undefined && known.from[0] === server && known.from[1] === schema) return known;
    const fresh = {
      bundle: builtServerBundle(entry, server),
      metadata: this.#facts.builtMetadata(name, entry, schema),
      from: [server, schema],
    };
    this.#builtSources.set(entry, fresh);
    return fresh;
  }

  #serverOf(browser: CachedBundle | PrebuiltBundle): Promise<FinishedOutput> {
    let known = this.#servers.get(browser);
    if (known === undefined) {
      const pending = serverBundleOf(browser);
      const record: { done?: FinishedOutput; pending: Promise<FinishedOutput> } = { pending };
      pending.then(
        (done) => {
          record.done = done;
        },
        () => this.#servers.delete(browser),
      );
      known = record;
      this.#servers.set(browser, known);
    }
    return known.pending;
  }
}

/**
 * The server bundle `server` made from the browser bundle `browser`, as the island renderer
 * takes it: the browser bundle's hash and stylesheets are what the island names and links.
 */
function serverBundleFrom(
  browser: { hash: string; stylesheets: readonly { path: string }[] },
  server: { code: Uint8Array; hash: string },
): ServerBundle {
  return {
    code: server.code,
    serverHash: server.hash,
    hash: browser.hash,
    stylesheets: browser.stylesheets.map((sheet) => sheet.path),
  };
}

/** The server bundle `server` of a build's `entry`, as the island renderer takes it. */
function builtServerBundle(
  entry: ManifestEntry,
  server: { code: Uint8Array; hash: string },
): ServerBundle {
  return {
    code: server.code,
    serverHash: server.hash,
    hash: entry.hash,
    stylesheets: builtStylesheets(entry),
  };
}
