import { bundlePath, componentNameProblem, type ManifestEntry, URL_VARIANT } from "@svc/protocol";
import type { ClientCore } from "./clientCore.ts";
import { BundleLoadError, ComponentNotFoundError, IntegrityError } from "./errors.ts";
import type { ComponentModule } from "./importCode.ts";
import { loadManifestFile } from "./loadManifestFile.ts";
import { loadMetadata } from "./loadMetadata.ts";
import { loadStylesheet } from "./loadStylesheet.ts";
import { request } from "./request.ts";
import { type ComponentStylesheet, setStylesheets } from "./stylesheets.ts";

// `moduleLoading: "url"` (the import-map mode) in a module of its own: `loader.js`, whose
// bundles are always rewritten and imported from `blob:`, is built without it (its build
// resolves this file to a stub exporting `createUrlLoading` alone); `loader.esm.js` and
// `@svc/runtime` from npm keep it.

/** A client's `"url"` loading (see `SvcClientOptions.moduleLoading`). */
export function createUrlLoading(core: ClientCore): UrlLoading {
  return new UrlLoading(core);
}

/** `"url"` loading: the URL a component is imported from, and its stylesheets. */
interface UrlTarget {
  url: string;
  /** Fetched (and checked, in static mode) alongside the import. */
  sheets: Promise<ComponentStylesheet[]>;
}

/**
 * How a client loads a bundle by its own URL, and what `invalidate` must reset: the bundle is
 * imported by the browser (its imports resolved by the page's import map), its stylesheets
 * fetched by the client, and what it preloads started as `<link rel="modulepreload">`.
 */
export class UrlLoading {
  private readonly core: ClientCore;
  private readonly preload: boolean;
  private readonly importUrl: (url: string) => Promise<ComponentModule>;
  private readonly preloadUrl: (url: string, integrity?: string) => void;
  /**
   * Invalidations per component: the browser keeps a module per URL for good, so a bundle
   * asked for again without a new hash needs a URL of its own.
   */
  private readonly reloads = new Map<string, number>();
  /** Bundle URLs preloaded, each once. */
  private readonly preloadedUrls = new Set<string>();

  constructor(core: ClientCore) {
    this.core = core;
    this.preload = core.options.preload ?? true;
    this.importUrl = core.options.importUrl ?? importModuleUrl;
    this.preloadUrl = core.options.preloadUrl ?? insertModulePreload;
  }

  /**
   * The bundle imported by its own URL, its stylesheets fetched alongside and recorded with
   * the module (applied while it is mounted, as in blob loading). A failed import says little
   * ("Failed to fetch dynamically imported module"), so the URL is then fetched to tell why:
   * the server's error body, or the evaluation error when the file itself is there.
   */
  async load(name: string, hash: string | undefined): Promise<ComponentModule> {
    const { url, sheets } =
      this.core.manifestUrl === undefined
        ? this.apiTarget(name, hash)
        : await this.staticTarget(name);
    sheets.catch(() => {});
    const { importUrl } = this;
    let module: ComponentModule;
    try {
      module = await importUrl(url);
    } catch (error) {
      // Throws the server's answer when the URL fails.
      const response = await request(this.core, name, url, { cache: "no-cache" });
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

  /** A component asked for again gets a URL of its own (the browser keeps one per URL). */
  invalidate(names: Iterable<string>): void {
    for (const name of names) this.reloads.set(name, (this.reloads.get(name) ?? 0) + 1);
  }

  /**
   * The API URL of `name`'s bundle in its `?url` form (without its stylesheet imports). The
   * browser keeps a module per URL for good, so after `invalidate` the URL is a new one.
   */
  private apiBundleUrl(name: string, hash: string | undefined): string {
    const reload = this.reloads.get(name);
    const version = hash ?? (reload === undefined ? undefined : `r${reload}`);
    return new URL(
      `${this.core.apiBase}${bundlePath(name, version, URL_VARIANT)}`,
      this.core.baseUrl(),
    ).href;
  }

  /**
   * The API: the bundle's `?url` form; its stylesheets and the components to preload come
   * from its metadata, asked for at the same time.
   */
  private apiTarget(name: string, hash: string | undefined): UrlTarget {
    const url = this.apiBundleUrl(name, hash);
    const described = loadMetadata(this.core, name);
    if (this.preload) {
      described.then(
        (data) => {
          const names = Array.isArray(data.preload) ? data.preload : [];
          this.core.preloads.set(name, names);
          for (const dependency of names) this.preloadModule(dependency);
        },
        () => {},
      );
    }
    const sheets = described.then((data) =>
      Promise.all(
        (Array.isArray(data.stylesheets) ? data.stylesheets : []).map((path) =>
          loadStylesheet(this.core, name, new URL(path, url).href, undefined),
        ),
      ),
    );
    return { url, sheets };
  }

  /** Static mode: the manifest names the file, its stylesheets and its dependencies. */
  private async staticTarget(name: string): Promise<UrlTarget> {
    const { url: manifestHref, entries } = await loadManifestFile(this.core);
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
    if (this.preload) {
      const names = (entry.dependencies ?? []).filter((d) => Object.hasOwn(entries, d));
      this.core.preloads.set(name, names);
      for (const dependency of names) this.preloadModule(dependency);
    }
    return { url, sheets: this.manifestStylesheets(name, entry, manifestHref) };
  }

  /**
   * The stylesheets a manifest entry lists, each checked against its integrity; when the
   * bundle has one, a stylesheet without one is refused (integrity is in force).
   */
  private manifestStylesheets(
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
      return loadStylesheet(this.core, name, url, sheet.integrity);
    });
    return Promise.all(sheets);
  }

  /**
   * Starts fetching `name`'s bundle (not evaluating it) by the very URL a later `load`
   * imports, so the browser's module map hands that load the same module; its stylesheets
   * too, and, transitively, what it preloads in turn. A failure here is silent: it is
   * `load`'s to report, as it would be without preloading.
   */
  private preloadModule(name: string): void {
    const { core, preloadedUrls, preloadUrl } = this;
    if (core.bundles.has(name) || componentNameProblem(name) !== undefined) return;
    if (core.manifestUrl === undefined) {
      const url = this.apiBundleUrl(name, core.hashes.get(name));
      if (preloadedUrls.has(url)) return;
      preloadedUrls.add(url);
      preloadUrl(url);
      loadMetadata(core, name).then(
        (data) => {
          for (const path of Array.isArray(data.stylesheets) ? data.stylesheets : []) {
            loadStylesheet(core, name, new URL(path, url).href, undefined).catch(() => {});
          }
          for (const dependency of Array.isArray(data.preload) ? data.preload : []) {
            this.preloadModule(dependency);
          }
        },
        () => {},
      );
      return;
    }
    loadManifestFile(core).then(
      ({ url: manifestHref, entries }) => {
        const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
        if (entry === undefined || typeof entry.file !== "string") return;
        const module = entry.urlModule ?? entry;
        const url = new URL(module.file, manifestHref).href;
        if (preloadedUrls.has(url)) return;
        preloadedUrls.add(url);
        preloadUrl(url, module.integrity);
        this.manifestStylesheets(name, entry, manifestHref).catch(() => {});
        for (const dependency of entry.dependencies ?? []) {
          if (Object.hasOwn(entries, dependency)) this.preloadModule(dependency);
        }
      },
      () => {},
    );
  }
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
