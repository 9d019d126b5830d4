/**
 * What the handler set is to the transports above it: the one interface every transport
 * (fetch, node:http, each framework bridge) wraps, and what its methods answer.
 */
import type { BundleListEntry, ComponentName } from "@svc/protocol";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { ComponentMetadata } from "../components/metadata.ts";
import type { Logger } from "../logger.ts";
import type { StaticFile } from "../served/staticFiles.ts";
import type { IslandOptions } from "../ssr/islandRenderer.ts";
import type { Health } from "../ssr/renderEngine.ts";

export type { BundleListEntry } from "@svc/protocol";
export type { StaticFile } from "../served/staticFiles.ts";
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
