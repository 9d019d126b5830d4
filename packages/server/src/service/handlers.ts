/**
 * The one handler set behind every transport: what a component's bundle, metadata,
 * stylesheet, files and islands are, from the build directory for the components it lists and
 * from the sources (bundled on request) for the others. Its parts, one concern each:
 * `LiveBundles` (the sources), `ComponentFacts` (metadata, preloads), `ServerBundles` (what
 * islands render from), `Observers` (who is told), and the island renderer.
 */
import { type ComponentName, resolveApiBase } from "@svc/protocol";
import { BundleCache } from "../bundling/bundleCache.ts";
import { type BundleFile, contentHash, esbuildBundler } from "../bundling/bundler.ts";
import { fileTypeOf, STYLESHEET_TYPE } from "../bundling/componentFiles.ts";
import { afterPoll } from "../bundling/dirWatches.ts";
import { Freshness } from "../bundling/freshness.ts";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import { compareCodePoints } from "../components/componentRegistry.ts";
import { SchemaReader } from "../components/metadata.ts";
import { BundleError, StaticModeError } from "../errors.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { PrebuiltBundles } from "../served/prebuiltBundles.ts";
import { createStaticFiles, type StaticFiles, SVG_POLICY } from "../served/staticFiles.ts";
import { IslandRenderer } from "../ssr/islandRenderer.ts";
import { ComponentFacts } from "./componentFacts.ts";
import type { HandlerOptions } from "./handlerOptions.ts";
import type {
  BundleFileResult,
  BundleListEntry,
  BundleResult,
  GetBundleOptions,
  HandlerObserver,
  Handlers,
  IslandRequest,
  IslandResult,
  StylesheetResult,
} from "./handlerTypes.ts";
import { ServerBundles } from "./islandSources.ts";
import { LiveBundles } from "./liveBundles.ts";
import { Observers } from "./observers.ts";

export function createHandlers(
  registry: ComponentRegistry,
  options: HandlerOptions = {},
): Handlers {
  return new HandlerSet(registry, options);
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

const METHODS = [
  "observe",
  "listBundles",
  "getBundle",
  "peekBundle",
  "getMetadata",
  "getStylesheet",
  "getBundleFile",
  "renderIsland",
  "renderIslands",
  "warm",
  "health",
  "close",
] as const satisfies readonly (keyof HandlerSet)[];

class HandlerSet implements Handlers {
  readonly registry: ComponentRegistry;
  readonly logger: Logger;
  readonly #staticMode: boolean;
  readonly #cache: BundleCache;
  readonly #prebuilt: PrebuiltBundles | undefined;
  /** `manifest.json` is served as the API uses it: a manifest refused at run time never is. */
  readonly #staticFiles: StaticFiles | undefined;
  readonly #live: LiveBundles;
  readonly #facts: ComponentFacts;
  readonly #islands: IslandRenderer;
  readonly #observers = new Observers();
  /** `close` was called: health says so, so a load balancer takes this instance out. */
  #closing = false;
  getStaticFile?: Handlers["getStaticFile"];

  constructor(registry: ComponentRegistry, options: HandlerOptions) {
    this.registry = registry;
    this.logger = options.logger ?? consoleLogger;
    this.#staticMode = options.staticMode ?? false;
    this.#cache = new BundleCache(options.bundler ?? esbuildBundler, {
      maxBytes: options.cacheMaxBytes,
      // Development bundles register their components for React Fast Refresh (a no-op where
      // the page has no refresh runtime); production-mode bundles never do.
      bundleOptions: { refresh: true, ...options.bundleOptions },
      buildTimeoutMs: options.buildTimeoutMs,
      watch: options.watchFiles,
      freshness: Freshness.of(this), // this handler set's own (see `bundling/freshness.ts`)
    });
    const prebuilt =
      options.buildDir === undefined
        ? undefined
        : new PrebuiltBundles(options.buildDir, { logger: this.logger, watch: options.watchFiles });
    this.#prebuilt = prebuilt;
    if (prebuilt !== undefined) {
      const files = createStaticFiles(prebuilt.dir, { manifest: () => prebuilt.manifestBytes });
      this.#staticFiles = files;
      this.getStaticFile = (path) => files.get(path);
    }
    const schemas = new SchemaReader();
    this.#live = new LiveBundles(registry, this.#cache, options.autoRefresh ?? true, prebuilt);
    this.#facts = new ComponentFacts(this.#live, prebuilt, schemas);
    const sources = new ServerBundles(
      this.#live,
      this.#facts,
      prebuilt,
      schemas,
      options.bundleOptions,
    );
    const publicUrl = options.publicUrl ?? options.apiBase;
    this.#islands = new IslandRenderer(sources, {
      timeoutMs: options.renderTimeoutMs,
      isolation: options.renderIsolation,
      workers: options.renderWorkers,
      queueLimit: options.renderQueue,
      memoryMb: options.renderMemoryMb,
      recycleBytes: options.renderRecycleBytes,
      publicUrl,
      staticUrl: this.#staticMode
        ? (options.staticUrl ?? `${resolveApiBase(publicUrl)}/static`)
        : undefined,
      logger: this.logger,
    });
    // A handler set was once a plain object of functions, and callers still take them off it
    // (`const { getBundle } = handlers`, a wrapper that calls the original): each is bound.
    for (const method of METHODS) {
      const bound = (this[method] as (...args: never[]) => unknown).bind(this);
      Object.defineProperty(this, method, { value: bound, writable: true, configurable: true });
    }
  }

  observe(observer: HandlerObserver): () => void {
    return this.#observers.add(observer);
  }

  async listBundles(): Promise<BundleListEntry[]> {
    if (this.#live.autoRefresh) await this.registry.refreshAsync();
    const names = new Set(this.registry.list().map((c) => c.name));
    if (this.#prebuilt !== undefined) {
      for (const name of Object.keys(this.#prebuilt.manifest)) names.add(name as ComponentName);
    }
    return [...names].sort(compareCodePoints).map((name) => ({ name }));
  }

  getBundle(name: ComponentName, options: GetBundleOptions = {}): Promise<BundleResult> {
    if (this.#staticMode) return Promise.reject(new StaticModeError(name));
    const prebuilt = this.#prebuilt;
    const observers = this.#observers;
    const { withPreloads } = this.#facts;
    // A build's manifest its watch vouches for: one step after the poll phase, no stat.
    if (prebuilt?.leftToWatch() === true) {
      return afterPoll(options.readFromSocket === true).then(() => {
        const vouched = prebuilt.vouched(name);
        if (vouched !== undefined) return observers.told(name, vouched).then(withPreloads);
        return observers.told(name, this.#live.bundle(name, options)).then(withPreloads);
      });
    }
    const fromBuild = prebuilt?.read(name);
    if (fromBuild !== undefined) return observers.told(name, fromBuild).then(withPreloads);
    // A warm bundle its watches vouch for: one step after the poll phase, not the whole
    // lookup (a known name, a cached bundle; anything else goes the long way). Observers
    // (live reload) are told of it as of any bundle served.
    const component = this.registry.get(name);
    const now =
      component === undefined
        ? undefined
        : this.#cache.current(component, options.readFromSocket === true);
    const live = () => {
      const outcome = { built: false };
      return observers
        .told(name, this.#live.bundle(name, options, outcome))
        .then((bundle) => withPreloads(outcome.built ? { ...bundle, built: true } : bundle));
    };
    if (now instanceof Promise) {
      return now.then((hit) => {
        if (hit === undefined) return live();
        if (observers.size > 0) observers.served(name, hit.hash);
        return withPreloads(hit);
      });
    }
    return live();
  }

  peekBundle(name: ComponentName): BundleResult | undefined {
    if (this.#staticMode) return undefined;
    const prebuilt = this.#prebuilt;
    // Left to its watch: answered by getBundle after the poll phase.
    if (prebuilt?.leftToWatch() === true) return undefined;
    let bundle: BundleResult | undefined;
    if (prebuilt?.entry(name) !== undefined) {
      bundle = prebuilt.peek(name);
    } else {
      const component = this.registry.get(name);
      // Vouched for by its watches, it is answered after the poll phase, by getBundle.
      bundle = component === undefined ? undefined : this.#cache.ready(component);
    }
    if (bundle !== undefined && this.#observers.size > 0) this.#observers.served(name, bundle.hash);
    return bundle === undefined ? undefined : this.#facts.withPreloads(bundle);
  }

  getMetadata(name: ComponentName) {
    return this.#observers.told(name, this.#facts.metadata(name));
  }

  async getStylesheet(name: ComponentName): Promise<StylesheetResult> {
    if (this.#staticMode) throw new StaticModeError(name);
    const entry = this.#prebuilt?.entry(name);
    const staticFiles = this.#staticFiles;
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
      const bundle = await this.#observers.told(name, this.#live.bundle(name));
      sheets = bundle.stylesheets;
    }
    const code = concat(sheets.map((sheet) => sheet.bytes));
    return { name, code, hash: contentHash(code) };
  }

  async getBundleFile(path: string): Promise<BundleFileResult | undefined> {
    const type = fileTypeOf(path);
    if (type === undefined) return undefined;
    const fromBuild = (await this.#staticFiles?.get(`bundles/${path}`))?.body;
    // Static mode builds nothing, but the build's own files (the stylesheets and assets an
    // island links to) are served as they are.
    if (this.#staticMode && fromBuild === undefined) throw new StaticModeError();
    const built = fromBuild ?? this.#cache.file(path) ?? (await this.#live.builtFile(path));
    if (built === undefined) return undefined;
    const result: BundleFileResult = {
      body: built,
      contentType: path.endsWith(".css") ? STYLESHEET_TYPE : type,
    };
    if (/\.svg$/i.test(path)) result.headers = { "content-security-policy": SVG_POLICY };
    return result;
  }

  renderIsland(
    name: ComponentName,
    props: unknown,
    options?: Parameters<Handlers["renderIsland"]>[2],
  ) {
    return this.#islands.render(name, props, options);
  }

  renderIslands(items: readonly IslandRequest[]): Promise<IslandResult[]> {
    return this.#islands.renderMany(items);
  }

  warm(): Promise<void> {
    return this.#islands.warm();
  }

  health() {
    if (this.#closing) return { ready: false, reason: "shutting down" };
    return this.#islands.health();
  }

  close(graceMs?: number): Promise<void> {
    this.#closing = true;
    return this.#islands.close(graceMs);
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  if (parts.length === 1) return parts[0] as Uint8Array;
  return Buffer.concat(parts);
}
