import {
  bundlePath,
  componentNameProblem,
  type Manifest,
  type ManifestEntry,
  URL_VARIANT,
} from "@svc/protocol";
import type { SvcClient, SvcClientOptions } from "./createSvcClient.ts";
import { BundleLoadError, ComponentNotFoundError, IntegrityError } from "./errors.ts";
import type { ComponentModule } from "./importCode.ts";
import { type ComponentStylesheet, setStylesheets } from "./stylesheets.ts";

// `moduleLoading: "url"` (the import-map mode) in a module of its own: `loader.js`, whose
// bundles are always rewritten and imported from `blob:`, is built without it (its build
// resolves this file to a stub); `loader.esm.js` and `@svc/runtime` from npm keep it.

/** What `"url"` loading uses of the client it belongs to. */
export interface UrlLoadingContext {
  /** The client (its `apiBase` and `manifestUrl`) and the options it was made with. */
  client: SvcClient;
  options: Pick<SvcClientOptions, "preload" | "importUrl" | "preloadUrl">;
  /** Known hashes, by name (the client's). */
  hashes: ReadonlyMap<string, string>;
  /** Whether `name` is loaded or being loaded. */
  isLoaded(name: string): boolean;
  /** The names each bundle preloaded, by component (the client's record). */
  preloads: Map<string, readonly string[]>;
  baseUrl(): string | undefined;
  request(name: string, url: string, init?: RequestInit): Promise<Response>;
  loadStylesheet(
    name: string,
    url: string,
    integrity: string | undefined,
  ): Promise<ComponentStylesheet>;
  loadManifestEntries(): Promise<{ url: URL; entries: Manifest }>;
}

/** A client's `"url"` loading: how it loads a bundle, and what `invalidate` must reset. */
export interface UrlLoading {
  load(name: string, hash: string | undefined): Promise<ComponentModule>;
  /** A component asked for again gets a URL of its own (the browser keeps one per URL). */
  invalidate(names: Iterable<string>): void;
}

export function createUrlLoading(context: UrlLoadingContext): UrlLoading {
  const { client, options, hashes, preloads, baseUrl, request, loadStylesheet } = context;
  const { apiBase, manifestUrl } = client;
  const { loadManifestEntries } = context;
  const preload = options.preload ?? true;
  const importUrl = options.importUrl ?? importModuleUrl;
  const preloadUrl = options.preloadUrl ?? insertModulePreload;
  /**
   * Invalidations per component: the browser keeps a module per URL for good, so a bundle
   * asked for again without a new hash needs a URL of its own.
   */
  const reloads = new Map<string, number>();

  /** `"url"` loading: the URL a component is imported from, and its stylesheets. */
  interface UrlTarget {
    url: string;
    /** Fetched (and checked, in static mode) alongside the import. */
    sheets: Promise<ComponentStylesheet[]>;
  }

  /** Bundle URLs preloaded (`"url"` loading), each once. */
  const preloadedUrls = new Set<string>();

  /**
   * The API URL of `name`'s bundle in its `?url` form (without its stylesheet imports). The
   * browser keeps a module per URL for good, so after `invalidate` the URL is a new one.
   */
  function apiBundleUrl(name: string, hash: string | undefined): string {
    const reload = reloads.get(name);
    const version = hash ?? (reload === undefined ? undefined : `r${reload}`);
    return new URL(`${apiBase}${bundlePath(name, version, URL_VARIANT)}`, baseUrl()).href;
  }

  /**
   * The API: the bundle's `?url` form; its stylesheets and the components to preload come
   * from its metadata, asked for at the same time.
   */
  function apiTarget(name: string, hash: string | undefined): UrlTarget {
    const url = apiBundleUrl(name, hash);
    const described = client.loadMetadata(name);
    if (preload) {
      described.then(
        (data) => {
          const names = Array.isArray(data.preload) ? data.preload : [];
          preloads.set(name, names);
          for (const dependency of names) preloadModule(dependency);
        },
        () => {},
      );
    }
    const sheets = described.then((data) =>
      Promise.all(
        (Array.isArray(data.stylesheets) ? data.stylesheets : []).map((path) =>
          loadStylesheet(name, new URL(path, url).href, undefined),
        ),
      ),
    );
    return { url, sheets };
  }

  /** Static mode: the manifest names the file, its stylesheets and its dependencies. */
  async function staticTarget(name: string): Promise<UrlTarget> {
    const { url: manifestHref, entries } = await loadManifestEntries();
    const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
    if (entry === undefined || typeof entry.file !== "string") {
      throw new ComponentNotFoundError(name, `it is not in the manifest ${manifestHref.href}`);
    }
    const module = entry.urlModule ?? entry;
    const url = new URL(module.file, manifestHref).href;
    // A build from before `urlModule`: its bundle imports CSS, which no browser imports.
    if (entry.urlModule === undefined && Array.isArray(entry.css) && entry.css.length > 0) {
      throw noStylesheets(name, url);
    }
    if (preload) {
      const names = (entry.dependencies ?? []).filter((d) => Object.hasOwn(entries, d));
      preloads.set(name, names);
      for (const dependency of names) preloadModule(dependency);
    }
    return { url, sheets: manifestStylesheets(name, entry, manifestHref) };
  }

  /**
   * The stylesheets a manifest entry lists, each checked against its integrity; when the
   * bundle has one, a stylesheet without one is refused (integrity is in force).
   */
  function manifestStylesheets(
    name: string,
    entry: ManifestEntry,
    manifestHref: URL,
  ): Promise<ComponentStylesheet[]> {
    const sheets = (Array.isArray(entry.css) ? entry.css : []).map((sheet) => {
      const url = new URL(sheet.file, manifestHref).href;
      if (entry.integrity !== undefined && typeof sheet.integrity !== "string") {
        return Promise.reject(
          new IntegrityError(
            name,
            `Component "${name}": its stylesheet ${url} has no integrity in the manifest; it was refused.`,
            { url },
          ),
        );
      }
      return loadStylesheet(name, url, sheet.integrity);
    });
    return Promise.all(sheets);
  }

  /**
   * `"url"` loading: starts fetching `name`'s bundle (not evaluating it) by the very URL a
   * later `load` imports, so the browser's module map hands that load the same module; its
   * stylesheets too, and, transitively, what it preloads in turn. A failure here is silent:
   * it is `load`'s to report, as it would be without preloading.
   */
  function preloadModule(name: string): void {
    if (context.isLoaded(name) || componentNameProblem(name) !== undefined) return;
    if (manifestUrl === undefined) {
      const url = apiBundleUrl(name, hashes.get(name));
      if (preloadedUrls.has(url)) return;
      preloadedUrls.add(url);
      preloadUrl(url);
      client.loadMetadata(name).then(
        (data) => {
          for (const path of Array.isArray(data.stylesheets) ? data.stylesheets : []) {
            loadStylesheet(name, new URL(path, url).href, undefined).catch(() => {});
          }
          for (const dependency of Array.isArray(data.preload) ? data.preload : []) {
            preloadModule(dependency);
          }
        },
        () => {},
      );
      return;
    }
    loadManifestEntries().then(
      ({ url: manifestHref, entries }) => {
        const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
        if (entry === undefined || typeof entry.file !== "string") return;
        const module = entry.urlModule ?? entry;
        const url = new URL(module.file, manifestHref).href;
        if (preloadedUrls.has(url)) return;
        preloadedUrls.add(url);
        preloadUrl(url, module.integrity);
        manifestStylesheets(name, entry, manifestHref).catch(() => {});
        for (const dependency of entry.dependencies ?? []) {
          if (Object.hasOwn(entries, dependency)) preloadModule(dependency);
        }
      },
      () => {},
    );
  }

  /**
   * `"url"` loading: the bundle imported by its own URL, its stylesheets fetched alongside and
   * recorded with the module (applied while it is mounted, as in blob loading). A failed
   * import says little ("Failed to fetch dynamically imported module"), so the URL is then
   * fetched to tell why: the server's error body, or the evaluation error when the file
   * itself is there.
   */
  async function importBundle(name: string, hash: string | undefined): Promise<ComponentModule> {
    const { url, sheets } =
      manifestUrl === undefined ? apiTarget(name, hash) : await staticTarget(name);
    sheets.catch(() => {});
    let module: ComponentModule;
    try {
      module = await importUrl(url);
    } catch (error) {
      // Throws the server's answer when the URL fails.
      const response = await request(name, url, { cache: "no-cache" });
      // The browser refuses a `.css` file as a module: say so rather than "failed to fetch".
      const code = await Promise.resolve()
        .then(() => response.text())
        .catch(() => "");
      if (STYLESHEET_IMPORT.test(code)) {
        throw noStylesheets(name, url, error);
      }
      throw new BundleLoadError(
        name,
        `Component "${name}" failed to load from ${url}: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error, url },
      );
    }
    setStylesheets(module, await sheets);
    return module;
  }

  return {
    load: importBundle,
    invalidate(names) {
      for (const name of names) reloads.set(name, (reloads.get(name) ?? 0) + 1);
    },
  };
}

/** `import "./card-3f2a9c0b1d4e.css"` in a bundle as svc writes it (minified or not). */
const STYLESHEET_IMPORT = /\bimport\s*["']\.{1,2}\/[^"'\n]*\.css["']/i;

/**
 * A bundle imported by URL that still imports its stylesheets (CSS files or CSS modules): a
 * server or build from before svc answered the `?url` form (`urlModule` in the manifest).
 */
function noStylesheets(name: string, url: string, cause?: unknown): BundleLoadError {
  return new BundleLoadError(
    name,
    `Component "${name}" imports stylesheets, and ${url} still imports them (a browser refuses CSS as a module): its server or build predates moduleLoading: "url" support for CSS — update @svc/server and run svc build again, or use the default "blob" loading`,
    { cause, url },
  );
}

/** Starts fetching a module without evaluating it: `<link rel="modulepreload">`. */
function insertModulePreload(url: string, integrity?: string): void {
  if (typeof document === "undefined" || document.head === null) return;
  const link = document.createElement("link");
  link.rel = "modulepreload";
  link.href = url;
  if (integrity !== undefined) link.integrity = integrity;
  // The module stays in the browser's module map; the element has done its work.
  const done = () => link.remove();
  link.addEventListener("load", done);
  link.addEventListener("error", done);
  document.head.append(link);
}

/** Imports a module by URL; bundlers are told to leave this `import()` alone. */
function importModuleUrl(url: string): Promise<ComponentModule> {
  return import(/* @vite-ignore */ /* webpackIgnore: true */ url) as Promise<ComponentModule>;
}
