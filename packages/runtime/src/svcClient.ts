import type { ComponentMetadata, Manifest } from "@svc/protocol";
import type { ComponentModule } from "./importCode.ts";

export type { ComponentMetadata, Manifest, ManifestEntry } from "@svc/protocol";

export interface SvcClientOptions {
  /** Base URL of the svc API (bundles, metadata). Default `"/api"`. */
  apiBase?: string;
  /**
   * URL of `manifest.json`. When set the client is in static mode: bundles come from the
   * files the manifest names (relative to the manifest), never from the API. Default none.
   */
  manifestUrl?: string;
  /** Known content hashes by component name, sent as `?<hash>` for cache busting. */
  hashes?: Readonly<Record<string, string>>;
  /** The `fetch` to use. Default `globalThis.fetch`. */
  fetch?: typeof globalThis.fetch;
  /** Evaluates rewritten module code. Default: import from a `blob:` URL. */
  importCode?: (code: string) => Promise<ComponentModule>;
  /**
   * How a bundle becomes a module. `"blob"` (default): fetched, its bare imports rewritten
   * into reads from `window.__MODULES__`, imported from a `blob:` URL (CSP `script-src
   * blob:`). `"url"`: imported by its own URL (the form without stylesheet imports: the API's
   * `?url`, the manifest's `urlModule`), its bare imports resolved by the page's import map
   * (svc's `renderImportMap`): no blob, no rewriting, CSP `script-src 'self'`; the bundle's
   * `integrity` is then checked by the browser only where the import map lists it, its
   * stylesheets' by the client as in blob loading. Through the API, each component's metadata
   * is fetched alongside (its stylesheets, what to preload).
   */
  moduleLoading?: "blob" | "url";
  /** Imports a module by its URL (`moduleLoading: "url"`). Default: `import(url)`. */
  importUrl?: (url: string) => Promise<ComponentModule>;
  /**
   * Starts fetching a module by its URL without evaluating it (`moduleLoading: "url"`
   * preloading), with the integrity the manifest gives it. Default: a
   * `<link rel="modulepreload">` in the document's head.
   */
  preloadUrl?: (url: string, integrity?: string) => void;
  /** Base for relative URLs. Default `document.baseURI` in a page. */
  baseUrl?: string;
  /**
   * Fetch the components a bundle asks for by a literal name (`useComponent("image")`) in
   * parallel with it, transitively: those its response's `Link: rel=modulepreload` header
   * names (API), or its manifest entry's `dependencies` (static mode); with `moduleLoading:
   * "url"`, its metadata's `preload` (API) or the manifest, as `<link rel="modulepreload">`.
   * They are fetched, not evaluated, until something loads them. Default: true.
   */
  preload?: boolean;
}

export interface LoadOptions {
  /** Content hash to request (`?<hash>`); overrides one set before. Ignored in static mode. */
  hash?: string;
}

/** Loads components: fetch, verify, rewrite imports, import. One instance per API / manifest. */
export interface SvcClient {
  readonly apiBase: string;
  readonly manifestUrl: string | undefined;
  /**
   * Where this client loads from, as one string (`manifest:<url>` in static mode, else
   * `api:<base>`): two clients with the same source load the same components, so caches key
   * their entries by it.
   */
  readonly source: string;
  /**
   * The component's module namespace. Concurrent and later calls share one fetch; a failed
   * load is forgotten so the next call tries again.
   */
  load(name: string, options?: LoadOptions): Promise<ComponentModule>;
  /**
   * The modules of the components `name`'s bundle preloaded (see the `preload` option),
   * transitively, each loaded (evaluated) now; those that fail are left out, for their own
   * `load` to report. Call after `load(name)`: what a framework layer puts in its cache so
   * that rendering `name` does not suspend again for each of them.
   */
  loadPreloaded(name: string): Promise<Map<string, ComponentModule>>;
  /** The component's metadata from the API (cached like `load`). */
  loadMetadata(name: string): Promise<ComponentMetadata>;
  /** The manifest (static mode only; fetched once). */
  loadManifest(): Promise<Manifest>;
  /**
   * Records a component's current hash; a later `load` fetches that version (`?<hash>`, which
   * the server lets browsers cache for good). `undefined` forgets it: the next `load` asks
   * for whatever is current, revalidating any copy the browser holds.
   */
  setHash(name: string, hash: string | undefined): void;
  /** Forgets cached bundles and metadata (of one component, or all), e.g. after an edit. */
  invalidate(name?: string): void;
}
