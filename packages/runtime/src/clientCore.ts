import { type ComponentMetadata, type Manifest, resolveApiBase } from "@svc/protocol";
import { type ComponentModule, importCode } from "./importCode.ts";
import type { VendorFile } from "./modulePreloads.ts";
import type { ComponentStylesheet } from "./stylesheets.ts";
import type { SvcClientOptions } from "./svcClient.ts";

/**
 * What the parts of one client share: its settings and its caches. `createSvcClient` makes one
 * per client; the blob loading (`blobLoading.ts`) and the URL loading (`urlLoading.ts`) read
 * and fill the same caches, so `load` and `invalidate` see what either did.
 */
export interface ClientCore {
  readonly apiBase: string;
  /** Static mode when set: bundles come from the files the manifest names. */
  readonly manifestUrl: string | undefined;
  readonly options: SvcClientOptions;
  /** `options.fetch`, else the page's. Call it unbound: a page's `fetch` refuses another `this`. */
  readonly fetch: typeof globalThis.fetch;
  /** `options.importCode`, else an import from a `blob:` URL. */
  readonly evaluate: (code: string) => Promise<ComponentModule>;
  /** Whether what a bundle names is fetched ahead (`options.preload`). */
  readonly preload: boolean;
  /** Base for relative URLs: `options.baseUrl`, else the page's. */
  baseUrl(): string | undefined;
  /** Known content hashes, by name. */
  readonly hashes: Map<string, string>;
  /** Modules loaded or on their way, by name, with the hash each was asked for. */
  readonly bundles: Map<string, { hash: string | undefined; promise: Promise<ComponentModule> }>;
  readonly metadata: Map<string, Promise<ComponentMetadata>>;
  /** Stylesheets by URL: content-addressed, so fetched once however many components use them. */
  readonly stylesheets: Map<string, Promise<ComponentStylesheet>>;
  /** The manifest (static mode), once asked for; forgotten when it fails. */
  manifest: Promise<ManifestFile> | undefined;
  /** Bundles fetched ahead (preloading), by name, until a `load` takes them. */
  readonly ahead: Map<string, { hash: string | undefined; fetched: Promise<Fetched> }>;
  /** The names each bundle's response preloaded, by component (the latest fetch's). */
  readonly preloads: Map<string, readonly string[]>;
}

/** The manifest and the URL its files are relative to. */
export interface ManifestFile {
  url: URL;
  entries: Manifest;
}

/** A fetched bundle: its code, the URL it came from, and what checks its stylesheets. */
export interface Fetched {
  code: string;
  url: string;
  /** The integrity of each stylesheet the manifest lists, by URL. */
  integrity?: ReadonlyMap<string, string>;
  /** Integrity is in force (the bundle had one): a stylesheet without one is refused. */
  strict?: boolean;
  /** The vendor modules it needs that the page may lack, dependencies first. */
  modules?: readonly VendorFile[];
}

export function createClientCore(options: SvcClientOptions): ClientCore {
  return {
    apiBase: resolveApiBase(options.apiBase),
    manifestUrl: options.manifestUrl,
    options,
    fetch: options.fetch ?? ((input, init) => globalThis.fetch(input, init)),
    evaluate: options.importCode ?? importCode,
    preload: options.preload ?? true,
    baseUrl: () =>
      options.baseUrl ?? (typeof document === "undefined" ? undefined : document.baseURI),
    hashes: new Map(Object.entries(options.hashes ?? {})),
    bundles: new Map(),
    metadata: new Map(),
    stylesheets: new Map(),
    manifest: undefined,
    ahead: new Map(),
    preloads: new Map(),
  };
}

/** Caches `value` under `key` until `promise` rejects. */
export function remember<T>(
  map: Map<string, T>,
  key: string,
  value: T,
  promise: Promise<unknown>,
): void {
  map.set(key, value);
  promise.catch(() => {
    if (map.get(key) === value) map.delete(key);
  });
}

/** `url` made absolute against the page (as `fetch` resolves it). */
export function absolute(core: ClientCore, url: string): string {
  try {
    return new URL(url, core.baseUrl()).href;
  } catch {
    return url;
  }
}
