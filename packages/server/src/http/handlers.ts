import {
  type BundleListEntry,
  type ComponentName,
  isValidName,
  type ManifestEntry,
} from "@svc/protocol";
import { BundleCache, type CachedBundle } from "../bundling/bundleCache.ts";
import {
  type BundleFile,
  type BundleOptions,
  type Bundler,
  contentHash,
  esbuildBundler,
  type FinishedOutput,
} from "../bundling/bundler.ts";
import {
  ASSET_NAME,
  fileTypeOf,
  STYLESHEET_NAME,
  STYLESHEET_TYPE,
} from "../bundling/componentFiles.ts";
import { afterPoll } from "../bundling/dirWatches.ts";
import { serverBundleOf } from "../bundling/serverBundle.ts";
import { componentNotFound } from "../components/closestName.ts";
import type { Component, ComponentRegistry } from "../components/componentRegistry.ts";
import { compareCodePoints } from "../components/componentRegistry.ts";
import { buildMetadata, type ComponentMetadata, SchemaReader } from "../components/metadata.ts";
import { BundleError, type ComponentNotFoundError, StaticModeError } from "../errors.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { type PrebuiltBundle, PrebuiltBundles } from "../production/prebuiltBundles.ts";
import { createStaticFiles, type StaticFile, SVG_POLICY } from "../production/staticFiles.ts";
import {
  type IslandOptions,
  IslandRenderer,
  type IslandSource,
  type RenderIsolation,
  type ServerBundle,
} from "../ssr/islandRenderer.ts";
import type { Health } from "../ssr/renderEngine.ts";
import { ServerSourceMaps } from "../ssr/serverSourceMaps.ts";

export interface HandlerOptions {
  /** Bundles components on request. Default: esbuild, in-process. */
  bundler?: Bundler;
  /** Options for live bundles. Default: not minified, inline source maps, development. */
  bundleOptions?: BundleOptions;
  /** Upper bound on cached bundle bytes (LRU). Default: 256 MiB. */
  cacheMaxBytes?: number;
  /**
   * How long one build may take before its request is answered with a `BundleError` (an import
   * of a FIFO, a plugin that hangs). Default: 30 000 ms.
   */
  buildTimeoutMs?: number;
  /**
   * Keep the registry current without a restart: a listing re-scans the sources (without
   * blocking the event loop), an unknown name is looked up on disk (a stat per source), and a
   * component is re-checked before it is built again. Default: true.
   */
  autoRefresh?: boolean;
  /**
   * Let directory watches vouch for a cached bundle, and for a build directory's
   * `manifest.json`, between stat checks (Linux, local file systems; see docs/DECISIONS.md):
   * a warm bundle is then answered without a stat. False: every check stats the files, once
   * per turn of the event loop. Default: true.
   */
  watchFiles?: boolean;
  /**
   * Directory written by `svc build`. Components its `manifest.json` lists are served from
   * its files (read once, kept in memory); others fall back to live bundling. The manifest is
   * read at once, so a missing or malformed one throws here. Default: none (see
   * `resolveBuildDir` for the `SVC_BUILD_DIR` convention).
   */
  buildDir?: string;
  /**
   * Production static mode: `getBundle` rejects with `StaticModeError` (HTTP 404), because
   * clients fetch bundles as static files named by the manifest; `getMetadata` still answers,
   * with the manifest's hash. Default: false.
   */
  staticMode?: boolean;
  /**
   * How long rendering one island on the server may take before it fails with
   * `RenderTimeout` (HTTP 500). Default: 5000 ms.
   */
  renderTimeoutMs?: number;
  /**
   * Where islands render. `"worker"`: in a pool of worker threads — every core renders, and a
   * component that loops or exhausts memory loses its worker (replaced at once), never the
   * server; a render's time counts from when a worker takes it up. `"none"`: in the server's
   * own thread, sharing its React — the lowest latency, for components you trust: a render
   * that waits past `renderTimeoutMs` is aborted, but one stuck in a synchronous loop blocks
   * the server. Default: `"worker"`.
   */
  renderIsolation?: RenderIsolation;
  /** Workers in the render pool. Default: the cores the process may use (`availableParallelism`). */
  renderWorkers?: number;
  /**
   * Renders that may wait for a free worker; past that a render fails at once with
   * `Overloaded` (503, `Retry-After`), so latency never grows without bound. Default: 1024.
   */
  renderQueue?: number;
  /**
   * Each render worker's heap limit, in MiB: a component that allocates without bound fails
   * with `RenderError` ("out of memory") and its worker is replaced. Default: 512.
   */
  renderMemoryMb?: number;
  /**
   * A render worker is replaced once the component versions replaced in it (edits, new
   * builds) add up to this many bytes of code. Default: 16 MiB.
   */
  renderRecycleBytes?: number;
  /**
   * The URL at which browsers reach this API — its prefix as a page sees it:
   * `http://127.0.0.1:8000/api` when svc runs on another origin than the pages,
   * `https://shop.example/svc` (or just `/svc`) behind a proxy that maps `/svc/` to svc's
   * `/api/`. Every URL svc writes for a browser starts with it: an island names it
   * (`data-svc-api`, so the loader on any page finds svc), its stylesheet links and its
   * components' asset URLs start with it (in static mode with `staticUrl`). An island's own
   * `apiBase` overrides it. Default: `/api`, and islands name none (the loader's default).
   */
  publicUrl?: string;
  /** @deprecated The same as `publicUrl` (its old name). */
  apiBase?: string;
  /**
   * Static mode: where browsers reach the build directory (`buildDir`) — `manifest.json` and
   * `bundles/`. Islands name its manifest (`data-svc-manifest`), and their stylesheet links
   * and asset URLs are the build's files, as the browser bundle makes them. Default:
   * `{publicUrl}/static` (the API serves the build there); a CDN's URL when the build is
   * uploaded to one.
   */
  staticUrl?: string;
  logger?: Logger;
}

export type { BundleListEntry } from "@svc/protocol";
export type { StaticFile } from "../production/staticFiles.ts";
export type { Health } from "../ssr/renderEngine.ts";

/** One bundle as the bundle endpoint serves it. */
export interface BundleResult {
  name: string;
  code: Uint8Array;
  hash: string;
  /** The components it asks for by a literal name (metadata `dependencies`). */
  dependencies?: readonly string[];
  /**
   * It was built to answer this request (or the request waited for a build under way): a
   * cache miss, as `Server-Timing` says.
   */
  built?: boolean;
  /**
   * The stylesheets it imports, in cascade order, by path relative to the bundle
   * (`card-3f2a9c0b1d4e.css`): what its `?url` form leaves out (`withoutStylesheetImports`).
   */
  stylesheets?: readonly { readonly path: string }[];
  /**
   * What its response tells the client to fetch alongside (`Link: rel=modulepreload`): its
   * dependencies that exist, and theirs as far as they are known without building
   * ({@link Handlers.getBundle}).
   */
  preload?: readonly Preload[];
}

/** A component to fetch alongside a bundle; `hash` when its current bundle is at hand. */
export interface Preload {
  name: string;
  hash?: string;
}

/** At most this many components are preloaded by one bundle response. */
export const MAX_PRELOADS = 64;

/** A component's whole stylesheet, as `GET {prefix}/bundles/{name}.css` serves it. */
export interface StylesheetResult {
  name: string;
  /** Every CSS file it imports, in cascade order; empty without CSS. */
  code: Uint8Array;
  /** First 12 hex characters of the SHA-256 of `code`. */
  hash: string;
}

/** A stylesheet or asset a bundle refers to, as `GET {prefix}/bundles/<path>` serves it. */
export interface BundleFileResult {
  body: Uint8Array;
  contentType: string;
  /** Further headers (an SVG's sandboxing policy). */
  headers?: Record<string, string>;
}

/** How a bundle is asked for (see {@link Handlers.getBundle}). */
export interface GetBundleOptions {
  /**
   * The question is a request read from a socket (`SvcRequest.readFromSocket`): a warm bundle
   * its watches vouch for is answered at the end of the turn instead of after the next poll.
   */
  readFromSocket?: boolean;
}

/**
 * The one handler set every transport (fetch, node:http, each framework bridge) wraps.
 * Methods resolve with data or reject with an `SvcError`. Names arrive checked: a transport
 * turns the raw path into a {@link ComponentName} once (`parseComponentName`).
 */
export interface Handlers {
  listBundles(): Promise<BundleListEntry[]>;
  /**
   * The bundle, with `preload`: its dependencies that exist and, transitively, the
   * dependencies of those whose bundles are at hand (built and unchanged, or in the build
   * directory), each with its hash when known. Nothing is built for the list: a dependency not
   * built yet is listed without a hash and starts building in the background, so the request
   * the client is about to make finds it under way.
   */
  getBundle(name: ComponentName, options?: GetBundleOptions): Promise<BundleResult>;
  /**
   * The bundle `getBundle(name)` would answer, when it is at hand without waiting (built,
   * cached and unchanged on disk, or read from the build directory already); undefined
   * otherwise, also for names `getBundle` would reject. Transports answer warm bundles
   * through it without a promise; a handler set without it is always asked `getBundle`.
   */
  peekBundle?(name: ComponentName): BundleResult | undefined;
  getMetadata(name: ComponentName): Promise<ComponentMetadata>;
  /**
   * The component's whole stylesheet: every CSS file it imports, in cascade order (empty
   * without CSS), with the same freshness as its bundle. Rejects like `getBundle`.
   */
  getStylesheet?(name: ComponentName): Promise<StylesheetResult>;
  /**
   * A file a bundle refers to, by its path relative to the bundle (`card-3f2a9c0b1d4e.css`,
   * `assets/logo-24WHYHIF.png`, already decoded); undefined when no bundle at hand has it.
   * Content-addressed: a path always names the same bytes.
   */
  getBundleFile?(path: string): Promise<BundleFileResult | undefined>;
  /**
   * A file of the build directory (`manifest.json`, `bundles/<file>.js`, and `.gz`/`.br`
   * siblings), or undefined when there is no build dir or no such file. `path` is already
   * decoded and relative to the build dir. Never reads outside the build dir.
   */
  getStaticFile?(path: string): Promise<StaticFile | undefined>;
  /**
   * The component rendered to HTML on the server, as an island the loader and `@svc/react`
   * hydrate: its container (name, props, hash, hydration strategy, the components it loaded)
   * with the server-rendered HTML inside. Props are checked against `schema.json`.
   * @throws InvalidPropsError, RenderError, RenderTimeoutError, and what loading throws
   */
  renderIsland(name: ComponentName, props: unknown, options?: IslandOptions): Promise<string>;
  /**
   * Several islands at once (`POST {prefix}/islands`), rendered together — in one batch where
   * they can — within one render time limit for them all: each one's HTML or error, in
   * order; one failing never fails the others. An item's `options` may throw (a bad name or
   * strategy): that is its error.
   */
  renderIslands(items: readonly IslandRequest[]): Promise<IslandResult[]>;
  /**
   * Starts what rendering islands needs (the render workers) and resolves once it is ready:
   * a server calls it as it starts, so the first page does not wait for it.
   */
  warm?(): Promise<void>;
  /**
   * Whether the handler set is ready to answer everything (`GET {prefix}/health`): its build
   * directory read, its render workers up; not while it shuts down. Asking starts the render
   * workers when they are not yet.
   */
  health?(): Health;
  /**
   * Stops taking island renders (new ones fail with `Overloaded`), lets those in flight
   * finish — at most `graceMs`, default 10 s — and stops the render workers. Bundles and
   * metadata are answered as before.
   */
  close?(graceMs?: number): Promise<void>;
  /**
   * Tells `observer` what the handler set answers from now on (which version of which
   * component a client got, which failed): how live reload learns what to watch, without
   * wrapping the methods. Returns the function that stops telling.
   */
  observe?(observer: HandlerObserver): () => void;
  readonly registry: ComponentRegistry;
  readonly logger: Logger;
}

/** One island of {@link Handlers.renderIslands}. */
export interface IslandRequest {
  name: string;
  props: unknown;
  /** Its options, or the reason it cannot be rendered (thrown). */
  options?: () => IslandOptions;
}

/** What became of one island of {@link Handlers.renderIslands}. */
export type IslandResult = { html: string } | { error: unknown };

/** What a handler set tells its observers (see `Handlers.observe`). */
export interface HandlerObserver {
  /** A bundle or metadata of `name` with bundle hash `hash` was answered. */
  served(name: ComponentName, hash: string): void;
  /** Answering for `name` failed with `error` (a bundle error, an invalid schema, …). */
  failed(name: ComponentName, error: unknown): void;
}

export function createHandlers(
  registry: ComponentRegistry,
  options: HandlerOptions = {},
): Handlers {
  const logger = options.logger ?? consoleLogger;
  const autoRefresh = options.autoRefresh ?? true;
  const staticMode = options.staticMode ?? false;
  const cache = new BundleCache(options.bundler ?? esbuildBundler, {
    maxBytes: options.cacheMaxBytes,
    bundleOptions: options.bundleOptions,
    buildTimeoutMs: options.buildTimeoutMs,
    watch: options.watchFiles,
  });
  /**
   * Each browser bundle's server bundle (`serverBundleOf`: the same code as CommonJS), made
   * once per version and kept as long as the browser bundle is: fresh when it is. Without a
   * source map: one is made when a render error's stack needs it (below).
   */
  const servers = new WeakMap<
    CachedBundle | PrebuiltBundle,
    { done?: FinishedOutput; pending: Promise<FinishedOutput> }
  >();
  function serverOf(browser: CachedBundle | PrebuiltBundle): Promise<FinishedOutput> {
    let known = servers.get(browser);
    if (known === undefined) {
      const pending = serverBundleOf(browser);
      const record: { done?: FinishedOutput; pending: Promise<FinishedOutput> } = { pending };
      pending.then(
        (done) => {
          record.done = done;
        },
        () => servers.delete(browser),
      );
      known = record;
      servers.set(browser, known);
    }
    return known.pending;
  }
  const schemas = new SchemaReader();
  const prebuilt =
    options.buildDir === undefined
      ? undefined
      : new PrebuiltBundles(options.buildDir, { logger, watch: options.watchFiles });
  // `manifest.json` is served as the API uses it: a manifest refused at run time never is.
  const staticFiles =
    prebuilt === undefined
      ? undefined
      : createStaticFiles(prebuilt.dir, { manifest: () => prebuilt.manifestBytes });

  /**
   * The registered component; an unknown name is looked up on disk (a stat per source, never
   * a scan), so components created since the last scan are found at once.
   */
  function find(name: ComponentName): Component | undefined {
    const component = registry.get(name);
    return component === undefined && autoRefresh ? registry.probe(name) : component;
  }

  /** The 404 for `name`, suggesting the closest name served (looked for only now). */
  function notFound(name: ComponentName): ComponentNotFoundError {
    const names = new Set<string>(registry.list().map((c) => c.name));
    for (const known of Object.keys(prebuilt?.manifest ?? {})) names.add(known);
    return componentNotFound(name, [...names].sort(compareCodePoints));
  }

  /**
   * {@link find} for a request: a name the registry does not know is looked up on disk in the
   * next turn of the event loop, after the requests for known names that arrived with it, so
   * a client asking for names that do not exist (a broken page, a scanner) cannot hold up
   * answers that are ready.
   */
  async function lookUp(name: ComponentName): Promise<Component | undefined> {
    const component = registry.get(name);
    if (component !== undefined || !autoRefresh) return component;
    await new Promise((resolve) => setImmediate(resolve));
    return find(name);
  }

  /**
   * `name`'s server bundle, its browser bundle's hash and the browser bundle's stylesheets
   * (paths below `bundles/`), which the island links.
   */
  async function serverBundle(name: ComponentName): Promise<ServerBundle> {
    const prebuiltEntry = prebuilt?.entry(name);
    if (prebuiltEntry?.server !== undefined && prebuilt !== undefined) {
      const server = await prebuilt.readServer(name, prebuiltEntry.server);
      return builtServerBundle(prebuiltEntry, server);
    }
    // From sources, or a build without server bundles (`--no-ssr`): made from the browser bundle.
    const fromBuild = prebuiltEntry === undefined ? undefined : prebuilt?.read(name);
    const browser = fromBuild === undefined ? await liveBundle(name) : await fromBuild;
    return serverBundleFrom(browser, await serverOf(browser));
  }

  /**
   * A file of a bundle this handler set has not built yet (another handler set rendered the
   * island that names it, or the server restarted since the page loaded): the components are
   * built until one has it. Names are content-addressed, so whichever has it has these bytes.
   */
  async function builtFile(path: string): Promise<Uint8Array | undefined> {
    if (!STYLESHEET_NAME.test(path) && !ASSET_NAME.test(path.replace(/^assets\//, ""))) {
      return undefined;
    }
    for (const component of registry.list()) {
      await cache.get(component).catch(() => undefined);
      const found = cache.file(path);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /**
   * {@link serverBundle} and {@link metadataOf} of an island's own component at once, the long
   * way (cold, building, after an edit): one lookup, and the metadata made from the browser
   * bundle that lookup gave — asked for again, that bundle would be answered only once the
   * record of its build is kept, after the answer.
   */
  async function islandSource(name: ComponentName): Promise<IslandSource> {
    if (prebuilt?.entry(name) !== undefined) {
      const [bundle, metadata] = await Promise.all([serverBundle(name), metadataOf(name)]);
      return { bundle, metadata };
    }
    const component = await lookUp(name);
    if (component === undefined) throw notFound(name);
    const schema = schemas.read(component);
    const browser = await liveBundle(name);
    return {
      bundle: serverBundleFrom(browser, await serverOf(browser)),
      metadata: liveMetadata(name, schema, browser),
    };
  }

  /** What {@link islandAtHand} gave for each browser bundle: the same objects while unchanged. */
  const islandSources = new WeakMap<CachedBundle, IslandSource & { from: readonly unknown[] }>();

  /**
   * {@link serverBundle} and {@link metadataOf} at once, without waiting, when both bundles are
   * cached and fresh and the schema readable (the same checks as theirs); undefined otherwise.
   * The warm path of a render, in development and (see {@link builtIslandAtHand}) production.
   */
  function islandAtHand(name: ComponentName): IslandSource | undefined {
    const entry = prebuilt?.entry(name);
    if (entry !== undefined) return builtIslandAtHand(name, entry);
    const component = registry.get(name);
    if (component === undefined) return undefined;
    // One check: the server bundle is made from the browser bundle, fresh when it is.
    const browser = cache.peek(component);
    const server = browser && servers.get(browser)?.done;
    if (server === undefined || browser === undefined) return undefined;
    let schema: ReturnType<SchemaReader["read"]>;
    try {
      schema = schemas.read(component);
    } catch {
      return undefined; // asked again the slow way, which reports it
    }
    const known = islandSources.get(browser);
    if (known !== undefined && known.from[0] === server && known.from[1] === schema) return known;
    const fresh = {
      bundle: serverBundleFrom(browser, server),
      metadata: buildMetadata(name, schema, browser.hash, browser.dependencies ?? []),
      from: [server, schema],
    };
    islandSources.set(browser, fresh);
    return fresh;
  }

  /** What {@link builtIslandAtHand} gave for each manifest entry: the same objects while unchanged. */
  const builtIslands = new WeakMap<ManifestEntry, IslandSource & { from: readonly unknown[] }>();

  /**
   * {@link islandAtHand} for a component of the build directory: its server bundle once read
   * (a build without server bundles goes the long way), its metadata as {@link metadataOf}
   * makes it, kept per manifest entry (a new build has new entries) and `schema.json`.
   */
  function builtIslandAtHand(name: ComponentName, entry: ManifestEntry): IslandSource | undefined {
    const server = entry.server === undefined ? undefined : prebuilt?.peekServer(name);
    if (server === undefined) return undefined;
    const component = registry.get(name);
    let schema: ReturnType<SchemaReader["read"]>;
    try {
      schema = component === undefined ? undefined : schemas.read(component);
    } catch {
      return undefined; // asked again the slow way, which reports it
    }
    const known = builtIslands.get(entry);
    if (known !== undefined && known.from[0] === server && known.from[1] === schema) return known;
    const fresh = {
      bundle: builtServerBundle(entry, server),
      metadata: builtMetadata(name, entry, schema),
      from: [server, schema],
    };
    builtIslands.set(entry, fresh);
    return fresh;
  }

  /**
   * Server bundles made again with their source map — the browser bundle's, carried through —
   * for the stacks of render errors: those made from live browser bundles (not a build
   * directory's, which carry their own maps, if any). The browser bundle as it is now: if it
   * changed since the version that threw, `mapServerFrames` leaves the frames out.
   */
  const serverMaps = new ServerSourceMaps(async (name) => {
    if (options.bundleOptions?.sourcemap === false) return undefined;
    if (prebuilt?.entry(name as ComponentName) !== undefined) return undefined;
    const component = registry.get(name as ComponentName);
    if (component === undefined) return undefined;
    return (await serverBundleOf(await cache.get(component), { sourcemap: true })).code;
  });

  const islands = new IslandRenderer(
    {
      serverBundle,
      metadata: (name) => metadataOf(name),
      atHand: islandAtHand,
      island: islandSource,
      mapServerStack: (stack) => serverMaps.map(stack),
    },
    {
      timeoutMs: options.renderTimeoutMs,
      isolation: options.renderIsolation,
      workers: options.renderWorkers,
      queueLimit: options.renderQueue,
      memoryMb: options.renderMemoryMb,
      recycleBytes: options.renderRecycleBytes,
      publicUrl: options.publicUrl ?? options.apiBase,
      staticUrl: staticMode
        ? (options.staticUrl ??
          `${(options.publicUrl ?? options.apiBase ?? "/api").replace(/\/+$/, "")}/static`)
        : undefined,
      logger,
    },
  );

  /**
   * `vouched`: a warm bundle its watches vouch for is answered after the poll phase
   * (`BundleCache.current`), for a bundle request; a render checks by stats, once a turn.
   */
  async function liveBundle(
    name: ComponentName,
    vouched?: GetBundleOptions,
    /** Set when the answer had to be built (or waited for a build under way). */
    outcome?: { built: boolean },
  ): Promise<CachedBundle> {
    let component = await lookUp(name);
    if (component === undefined) throw notFound(name);
    const now =
      vouched === undefined
        ? cache.peek(component)
        : cache.current(component, vouched.readFromSocket === true);
    const hit = now instanceof Promise ? await now : now;
    if (hit !== undefined) return hit;
    // About to build: check the component itself first (deleted? a new entry file?).
    if (autoRefresh) component = registry.revalidate(name);
    if (component === undefined) throw notFound(name);
    if (outcome !== undefined) outcome.built = true;
    try {
      return await cache.get(component);
    } catch (error) {
      // The component may have been deleted meanwhile: answer 404, not a bundle error.
      if (autoRefresh && registry.revalidate(name) === undefined) {
        throw notFound(name);
      }
      throw error;
    }
  }

  /** `close` was called: health says so, so a load balancer takes this instance out. */
  let closing = false;
  const observers = new Set<HandlerObserver>();
  const served = (name: ComponentName, hash: string) => {
    for (const observer of observers) observer.served(name, hash);
  };
  const failed = (name: ComponentName, error: unknown) => {
    for (const observer of observers) observer.failed(name, error);
  };
  /** `work`, with its outcome told to the observers. */
  function told<T extends { hash: string }>(name: ComponentName, work: Promise<T>): Promise<T> {
    if (observers.size === 0) return work;
    return work.then(
      (result) => {
        served(name, result.hash);
        return result;
      },
      (error: unknown) => {
        failed(name, error);
        throw error;
      },
    );
  }

  const handlers: Handlers = {
    registry,
    logger,
    observe(observer) {
      observers.add(observer);
      return () => observers.delete(observer);
    },
    async listBundles() {
      if (autoRefresh) await registry.refreshAsync();
      const names = new Set(registry.list().map((c) => c.name));
      if (prebuilt !== undefined) {
        for (const name of Object.keys(prebuilt.manifest)) names.add(name as ComponentName);
      }
      return [...names].sort(compareCodePoints).map((name) => ({ name }));
    },
    getBundle(name, options = {}) {
      if (staticMode) return Promise.reject(new StaticModeError(name));
      // A build's manifest its watch vouches for: one step after the poll phase, no stat.
      if (prebuilt?.leftToWatch() === true) {
        return afterPoll(options.readFromSocket === true).then(() => {
          const vouched = prebuilt.vouched(name);
          if (vouched !== undefined) return told(name, vouched).then(withPreloads);
          return told(name, liveBundle(name, options)).then(withPreloads);
        });
      }
      const fromBuild = prebuilt?.read(name);
      if (fromBuild !== undefined) return told(name, fromBuild).then(withPreloads);
      // A warm bundle its watches vouch for: one step after the poll phase, not the whole
      // lookup (a known name, a cached bundle; anything else goes the long way). Observers
      // (live reload) are told of it as of any bundle served.
      const component = registry.get(name);
      const now =
        component === undefined
          ? undefined
          : cache.current(component, options.readFromSocket === true);
      const live = () => {
        const outcome = { built: false };
        return told(name, liveBundle(name, options, outcome)).then((bundle) =>
          withPreloads(outcome.built ? { ...bundle, built: true } : bundle),
        );
      };
      if (now instanceof Promise) {
        return now.then((hit) => {
          if (hit === undefined) return live();
          if (observers.size > 0) served(name, hit.hash);
          return withPreloads(hit);
        });
      }
      return live();
    },
    peekBundle(name) {
      if (staticMode) return undefined;
      // Left to its watch: answered by getBundle after the poll phase.
      if (prebuilt?.leftToWatch() === true) return undefined;
      let bundle: BundleResult | undefined;
      if (prebuilt?.entry(name) !== undefined) {
        bundle = prebuilt.peek(name);
      } else {
        const component = registry.get(name);
        // Vouched for by its watches, it is answered after the poll phase, by getBundle.
        bundle = component === undefined ? undefined : cache.ready(component);
      }
      if (bundle !== undefined && observers.size > 0) served(name, bundle.hash);
      return bundle === undefined ? undefined : withPreloads(bundle);
    },
    getMetadata(name) {
      return told(name, metadataOf(name));
    },
    async getStylesheet(name) {
      if (staticMode) throw new StaticModeError(name);
      const entry = prebuilt?.entry(name);
      let sheets: readonly BundleFile[];
      if (entry !== undefined && staticFiles !== undefined) {
        sheets = await Promise.all(
          (entry.css ?? []).map(async ({ file }) => {
            const found = await staticFiles.get(file);
            if (found === undefined) {
              throw new BundleError(name, [
                { text: `${file}, listed in manifest.json, does not exist in the build directory` },
              ]);
            }
            return { path: file, bytes: found.body };
          }),
        );
      } else {
        const bundle = await told(name, liveBundle(name));
        sheets = bundle.stylesheets;
      }
      const code = concat(sheets.map((sheet) => sheet.bytes));
      return { name, code, hash: contentHash(code) };
    },
    async getBundleFile(path) {
      const type = fileTypeOf(path);
      if (type === undefined) return undefined;
      const fromBuild = (await staticFiles?.get(`bundles/${path}`))?.body;
      // Static mode builds nothing, but the build's own files (the stylesheets and assets an
      // island links to) are served as they are.
      if (staticMode && fromBuild === undefined) throw new StaticModeError();
      const built = fromBuild ?? cache.file(path) ?? (await builtFile(path));
      if (built === undefined) return undefined;
      const result: BundleFileResult = {
        body: built,
        contentType: path.endsWith(".css") ? STYLESHEET_TYPE : type,
      };
      if (/\.svg$/i.test(path)) result.headers = { "content-security-policy": SVG_POLICY };
      return result;
    },
    renderIsland(name, props, islandOptions) {
      return islands.render(name, props, islandOptions);
    },
    renderIslands: (items) => islands.renderMany(items),
    warm: () => islands.warm(),
    health() {
      if (closing) return { ready: false, reason: "shutting down" };
      return islands.health();
    },
    close: (graceMs) => {
      closing = true;
      return islands.close(graceMs);
    },
  };
  if (staticFiles !== undefined) handlers.getStaticFile = (path) => staticFiles.get(path);
  return handlers;

  async function metadataOf(name: ComponentName): Promise<ComponentMetadata> {
    const entry = prebuilt?.entry(name);
    // A build may be served without its sources: then there is no schema to read. Only
    // re-scan the sources for names the build does not know, so a production server
    // never walks the disk per request.
    const component = entry === undefined ? await lookUp(name) : registry.get(name);
    if (entry === undefined && component === undefined) throw notFound(name);
    const schema = component === undefined ? undefined : schemas.read(component);
    if (entry !== undefined) return builtMetadata(name, entry, schema);
    return liveMetadata(name, schema, await liveBundle(name));
  }

  /** The metadata of a component of the build directory, its manifest entry `entry`. */
  function builtMetadata(
    name: ComponentName,
    entry: ManifestEntry,
    schema: ReturnType<SchemaReader["read"]>,
  ): ComponentMetadata {
    const dependencies = entry.dependencies ?? [];
    return buildMetadata(name, schema, entry.hash, dependencies, {
      preload: preloadsOf(name, dependencies).map((p) => p.name),
      stylesheets: builtStylesheets(entry),
    });
  }

  /** The metadata of a component served from its sources, its browser bundle `bundle`. */
  function liveMetadata(
    name: ComponentName,
    schema: ReturnType<SchemaReader["read"]>,
    bundle: CachedBundle,
  ): ComponentMetadata {
    const dependencies = bundle.dependencies ?? [];
    return buildMetadata(name, schema, bundle.hash, dependencies, {
      preload: preloadsOf(name, dependencies).map((p) => p.name),
      stylesheets: bundle.stylesheets.map((sheet) => sheet.path),
    });
  }

  /** `bundle` with its {@link BundleResult.preload} list (see `getBundle`). */
  function withPreloads(bundle: BundleResult): BundleResult {
    const direct = bundle.dependencies ?? [];
    if (direct.length === 0) return bundle;
    return { ...bundle, preload: preloadsOf(bundle.name, direct) };
  }

  /**
   * The components to fetch alongside `name`'s bundle, whose direct dependencies are
   * `direct`: those that exist and, transitively, theirs as far as known without building.
   */
  function preloadsOf(name: string, direct: readonly string[]): Preload[] {
    if (direct.length === 0) return [];
    const preload: Preload[] = [];
    const seen = new Set<string>([name]);
    const queue = [...direct];
    for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
      if (seen.has(next) || !isValidName(next)) continue;
      seen.add(next);
      const known = atHand(next);
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
  function atHand(
    name: ComponentName,
  ): { hash?: string; dependencies: readonly string[] } | undefined {
    const entry = prebuilt?.entry(name);
    if (entry !== undefined) return { hash: entry.hash, dependencies: entry.dependencies ?? [] };
    const component = find(name);
    if (component === undefined) return undefined;
    const hit = cache.peek(component);
    if (hit !== undefined) return hit;
    liveBundle(name).catch(() => {}); // its own request reports a failure
    return { dependencies: [] };
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

/** A build's stylesheets of one entry, as paths below `bundles/` (what an island links). */
function builtStylesheets(entry: ManifestEntry): string[] {
  return (entry.css ?? []).map(({ file }) => file.replace(/^bundles\//, ""));
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  return Buffer.concat(parts);
}

/** Accepts either a registry (a handler set is made for it) or a ready handler set. */
export function resolveHandlers(
  source: ComponentRegistry | Handlers,
  options: HandlerOptions = {},
): Handlers {
  return isHandlers(source) ? source : createHandlers(source, options);
}

function isHandlers(value: ComponentRegistry | Handlers): value is Handlers {
  return typeof (value as Handlers).getBundle === "function";
}
