import {
  bundlePath,
  type ComponentMetadata,
  componentNameProblem,
  IMPORT_MAP_MODULES,
  isErrorBody,
  type Manifest,
  metadataPath,
  vendorStem,
} from "@svc/protocol";
import { assertComponentName } from "./componentName.ts";
import {
  BundleLoadError,
  ComponentNotFoundError,
  ExportNotFoundError,
  IntegrityError,
  InvalidComponentNameError,
} from "./errors.ts";
import { type ComponentModule, importCode } from "./importCode.ts";
import { verifyIntegrity } from "./integrity.ts";
import { getModuleRegistry, installModules } from "./moduleRegistry.ts";
import { rewriteModule } from "./rewriteImports.ts";
import { type ComponentStylesheet, createStylesheet, setStylesheets } from "./stylesheets.ts";
import { createUrlLoading } from "./urlLoading.ts";

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

/** The value of one export of a loaded component (default: `default`). */
export function getComponentExport(
  module: ComponentModule,
  name: string,
  exportName = "default",
): unknown {
  if (!Object.hasOwn(module, exportName) || module[exportName] === undefined) {
    throw new ExportNotFoundError(name, exportName, Object.keys(module));
  }
  return module[exportName];
}

/** A vendor module to fetch on demand (see `ON_DEMAND_MODULES`). */
interface VendorFile {
  module: string;
  url: string;
  integrity?: string;
}

/**
 * Vendor modules by specifier: their code while it arrives, then their evaluation. Shared by
 * every client of the page (the registry they fill is the page's).
 */
const vendorCode = new Map<string, Promise<string>>();
const vendorModules = new Map<string, Promise<void>>();

export function createSvcClient(options: SvcClientOptions = {}): SvcClient {
  const apiBase = (options.apiBase ?? "/api").replace(/\/+$/, "");
  const manifestUrl = options.manifestUrl;
  const doFetch = options.fetch ?? ((input, init) => globalThis.fetch(input, init));
  const evaluate = options.importCode ?? importCode;
  const byUrl = options.moduleLoading === "url";
  const hashes = new Map(Object.entries(options.hashes ?? {}));
  const bundles = new Map<
    string,
    { hash: string | undefined; promise: Promise<ComponentModule> }
  >();
  const metadata = new Map<string, Promise<ComponentMetadata>>();
  /** Stylesheets by URL: content-addressed, so fetched once however many components use them. */
  const stylesheets = new Map<string, Promise<ComponentStylesheet>>();
  let manifest: Promise<{ url: URL; entries: Manifest }> | undefined;
  const preload = options.preload ?? true;
  /** Bundles fetched ahead (preloading), by name, until a `load` takes them. */
  const ahead = new Map<string, { hash: string | undefined; fetched: Promise<Fetched> }>();
  /** The names each bundle's response preloaded, by component (the latest fetch's). */
  const preloads = new Map<string, readonly string[]>();

  const baseUrl = () =>
    options.baseUrl ?? (typeof document === "undefined" ? undefined : document.baseURI);

  /** Caches `promise` under `key` until it rejects. */
  function remember<T>(map: Map<string, T>, key: string, value: T, promise: Promise<unknown>) {
    map.set(key, value);
    promise.catch(() => {
      if (map.get(key) === value) map.delete(key);
    });
  }

  async function request(name: string, url: string, init?: RequestInit): Promise<Response> {
    let response: Response;
    try {
      response = await doFetch(url, init);
    } catch (error) {
      throw new BundleLoadError(
        name,
        `Component "${name}": request to ${url} failed: ${(error as Error).message}`,
        { cause: error, url },
      );
    }
    if (!response.ok) throw await errorFromResponse(name, url, response);
    return response;
  }

  /** A fetched bundle: its code, the URL it came from, and what checks its stylesheets. */
  interface Fetched {
    code: string;
    url: string;
    /** The integrity of each stylesheet the manifest lists, by URL. */
    integrity?: ReadonlyMap<string, string>;
    /** Integrity is in force (the bundle had one): a stylesheet without one is refused. */
    strict?: boolean;
    /** The vendor modules it needs that the page may lack, dependencies first. */
    modules?: readonly VendorFile[];
  }

  async function fetchFromApi(name: string, hash: string | undefined): Promise<Fetched> {
    const url = `${apiBase}${bundlePath(name, hash)}`;
    // Without a hash the URL names no particular version, so revalidate (ETag) every time
    // rather than trust a year-long cached copy.
    const response = await request(name, url, hash ? undefined : { cache: "no-cache" });
    const { names, modules } = modulePreloads(response, url, baseUrl());
    // Its dependencies start now, while its body is still arriving.
    if (preload) {
      preloads.set(name, names);
      for (const dependency of names) prefetch(dependency);
    }
    // So do the vendor modules it needs (e.g. `@svc/react`) that the page lacks.
    for (const file of modules) fetchVendor(name, file);
    return { code: await response.text(), url: absolute(url), modules };
  }

  /** `url` made absolute against the page (as `fetch` resolves it). */
  function absolute(url: string): string {
    try {
      return new URL(url, baseUrl()).href;
    } catch {
      return url;
    }
  }

  /**
   * A stylesheet the bundle at `from` imports, fetched (once per URL), checked against its
   * integrity when the manifest gives one, and made a constructable stylesheet.
   */
  function loadStylesheet(name: string, url: string, integrity: string | undefined) {
    let pending = stylesheets.get(url);
    if (pending === undefined) {
      pending = (async () => {
        const response = await request(name, url);
        const bytes = await response.arrayBuffer();
        if (integrity !== undefined) {
          await verifyIntegrity(bytes, integrity, name, url, "stylesheet");
        }
        try {
          return createStylesheet(url, new TextDecoder().decode(bytes));
        } catch (error) {
          throw new BundleLoadError(
            name,
            `Component "${name}": its stylesheet ${url} cannot be applied: ${(error as Error).message}`,
            { cause: error, url },
          );
        }
      })();
      remember(stylesheets, url, pending, pending);
    }
    return pending;
  }

  /** `name`'s bundle: taken from a fetch started ahead, or fetched now. */
  function fetchBundle(name: string, hash: string | undefined): Promise<Fetched> {
    const started = ahead.get(name);
    if (started !== undefined) {
      ahead.delete(name);
      if (manifestUrl !== undefined || started.hash === hash) return started.fetched;
    }
    return manifestUrl === undefined ? fetchFromApi(name, hash) : fetchFromManifest(name);
  }

  /**
   * Starts fetching `name`'s bundle (not evaluating it) unless it is loaded or on its way: the
   * version `load` would ask for, so `load` takes it. (A `Link` header's own `?<hash>` is not
   * used: it may come from a copy of the parent cached for a year, naming an older version.)
   */
  function prefetch(name: string): void {
    if (bundles.has(name) || ahead.has(name) || componentNameProblem(name) !== undefined) {
      return;
    }
    const hash = manifestUrl === undefined ? hashes.get(name) : undefined;
    const fetched = manifestUrl === undefined ? fetchFromApi(name, hash) : fetchFromManifest(name);
    const entry = { hash, fetched };
    ahead.set(name, entry);
    fetched.catch(() => {
      // A failure is load's to report, if anything loads it; it may be retried then.
      if (ahead.get(name) === entry) ahead.delete(name);
    });
  }

  function loadManifestEntries() {
    if (manifestUrl === undefined) {
      return Promise.reject(new Error("svc: loadManifest() needs the manifestUrl option"));
    }
    if (manifest === undefined) {
      const promise = (async () => {
        let url: URL;
        try {
          url = new URL(manifestUrl, baseUrl());
        } catch (error) {
          throw new BundleLoadError("", `svc: invalid manifest URL "${manifestUrl}"`, {
            cause: error,
          });
        }
        const response = await request("", url.href);
        let entries: unknown;
        try {
          entries = await response.json();
        } catch (error) {
          throw new BundleLoadError("", `svc: the manifest ${url.href} is not valid JSON`, {
            cause: error,
            url: url.href,
          });
        }
        if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
          throw new BundleLoadError("", `svc: the manifest ${url.href} is not a JSON object`, {
            url: url.href,
          });
        }
        return { url, entries: entries as Manifest };
      })();
      manifest = promise;
      promise.catch(() => {
        if (manifest === promise) manifest = undefined;
      });
    }
    return manifest;
  }

  async function fetchFromManifest(name: string): Promise<Fetched> {
    const { url: manifestHref, entries } = await loadManifestEntries();
    const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
    if (entry === undefined || typeof entry.file !== "string") {
      throw new ComponentNotFoundError(name, `it is not in the manifest ${manifestHref.href}`);
    }
    if (preload) {
      const names = (entry.dependencies ?? []).filter((d) => Object.hasOwn(entries, d));
      preloads.set(name, names);
      for (const dependency of names) prefetch(dependency);
    }
    const modules: VendorFile[] = [];
    for (const file of Array.isArray(entry.modules) ? entry.modules : []) {
      const vendor = { ...file, url: new URL(file.file, manifestHref).href };
      modules.push(vendor);
      fetchVendor(name, vendor);
    }
    const url = new URL(entry.file, manifestHref).href;
    // The manifest names the stylesheets too: fetched alongside the bundle, not after it.
    const integrity = new Map<string, string>();
    for (const sheet of Array.isArray(entry.css) ? entry.css : []) {
      const sheetUrl = new URL(sheet.file, manifestHref).href;
      if (typeof sheet.integrity === "string") integrity.set(sheetUrl, sheet.integrity);
      loadStylesheet(name, sheetUrl, sheet.integrity).catch(() => {});
    }
    const response = await request(name, url);
    const bytes = await response.arrayBuffer();
    if (entry.integrity !== undefined) await verifyIntegrity(bytes, entry.integrity, name, url);
    return {
      code: new TextDecoder().decode(bytes),
      url,
      integrity,
      strict: entry.integrity !== undefined,
      modules,
    };
  }

  /** Starts fetching a vendor module the page lacks (once per specifier, for every client). */
  function fetchVendor(name: string, file: VendorFile): void {
    if (Object.hasOwn(getModuleRegistry(), file.module) || vendorCode.has(file.module)) return;
    const pending = (async () => {
      const bytes = await (await request(name, file.url)).arrayBuffer();
      if (file.integrity !== undefined) {
        await verifyIntegrity(bytes, file.integrity, name, file.url, "vendor module");
      }
      return new TextDecoder().decode(bytes);
    })();
    remember(vendorCode, file.module, pending, pending);
    pending.catch(() => {});
  }

  /**
   * Puts the vendor modules a bundle needs into the registry, in order (dependencies first):
   * each rewritten against the registry like a bundle, so it uses the page's React.
   */
  async function provideModules(name: string, files: readonly VendorFile[]): Promise<void> {
    for (const file of files) {
      const registry = getModuleRegistry();
      if (Object.hasOwn(registry, file.module)) continue;
      let evaluated = vendorModules.get(file.module);
      if (evaluated === undefined) {
        fetchVendor(name, file);
        evaluated = (async () => {
          const code = await (vendorCode.get(file.module) as Promise<string>);
          const { code: rewritten } = rewriteModule(code, {
            component: file.module,
            modules: registry,
            sourceURL: file.url,
          });
          installModules({ [file.module]: await evaluate(rewritten) });
        })();
        remember(vendorModules, file.module, evaluated, evaluated);
      }
      await evaluated;
    }
  }

  async function loadBundle(name: string, hash: string | undefined): Promise<ComponentModule> {
    if (urlLoading !== undefined) return urlLoading.load(name, hash);
    const fetched = await fetchBundle(name, hash);
    if (fetched.modules !== undefined && fetched.modules.length > 0) {
      await provideModules(name, fetched.modules);
    }
    const rewritten = rewriteModule(fetched.code, {
      component: name,
      modules: getModuleRegistry(),
      url: fetched.url,
    });
    const sheets = Promise.all(
      rewritten.stylesheets.map((specifier) => {
        const url = new URL(specifier, fetched.url).href;
        const integrity = fetched.integrity?.get(url);
        if (fetched.strict === true && integrity === undefined) {
          // Integrity is in force: a stylesheet the manifest does not vouch for is refused.
          return Promise.reject(
            new IntegrityError(
              name,
              `Component "${name}": its stylesheet ${url} has no integrity in the manifest; it was refused.`,
              { url },
            ),
          );
        }
        return loadStylesheet(name, url, integrity);
      }),
    );
    sheets.catch(() => {});
    let module: ComponentModule;
    try {
      module = await evaluate(rewritten.code);
    } catch (error) {
      throw new BundleLoadError(
        name,
        `Component "${name}" failed to evaluate: ${error instanceof Error ? error.message : String(error)}`,
        { cause: error },
      );
    }
    setStylesheets(module, await sheets);
    return module;
  }

  const svcClient: SvcClient = {
    apiBase,
    manifestUrl,
    source: manifestUrl === undefined ? `api:${apiBase}` : `manifest:${manifestUrl}`,

    load(name, loadOptions = {}) {
      try {
        assertComponentName(name);
      } catch (error) {
        return Promise.reject(error);
      }
      if (loadOptions.hash !== undefined) hashes.set(name, loadOptions.hash);
      const hash = manifestUrl === undefined ? hashes.get(name) : undefined;
      const cached = bundles.get(name);
      if (cached !== undefined && cached.hash === hash) return cached.promise;
      const promise = loadBundle(name, hash);
      remember(bundles, name, { hash, promise }, promise);
      return promise;
    },

    async loadPreloaded(name) {
      const modules = new Map<string, ComponentModule>();
      const seen = new Set([name]);
      const visit = async (parent: string): Promise<void> => {
        const next = (preloads.get(parent) ?? []).filter((d) => !seen.has(d));
        for (const dependency of next) seen.add(dependency);
        await Promise.all(
          next.map((dependency) =>
            svcClient.load(dependency).then(
              (module) => {
                modules.set(dependency, module);
                return visit(dependency);
              },
              () => {},
            ),
          ),
        );
      };
      await visit(name);
      return modules;
    },

    loadMetadata(name) {
      try {
        assertComponentName(name);
      } catch (error) {
        return Promise.reject(error);
      }
      const cached = metadata.get(name);
      if (cached !== undefined) return cached;
      const url = `${apiBase}${metadataPath(name)}`;
      // As urgent as the bundle it describes (a module script): in the import-map mode it names
      // what to preload, and Chromium otherwise may hold a fetch back behind the page's scripts.
      const promise = request(name, url, { priority: "high" }).then(
        (response) => response.json() as Promise<ComponentMetadata>,
      );
      remember(metadata, name, promise, promise);
      return promise;
    },

    async loadManifest() {
      return (await loadManifestEntries()).entries;
    },

    setHash(name, hash) {
      if (hash === undefined) hashes.delete(name);
      else hashes.set(name, hash);
    },

    invalidate(name) {
      urlLoading?.invalidate(name === undefined ? bundles.keys() : [name]);
      if (name === undefined) {
        bundles.clear();
        metadata.clear();
        ahead.clear();
        preloads.clear();
        manifest = undefined;
      } else {
        bundles.delete(name);
        metadata.delete(name);
        ahead.delete(name);
      }
    },
  };
  const urlLoading = byUrl
    ? createUrlLoading({
        client: svcClient,
        options,
        hashes,
        isLoaded: (name) => bundles.has(name),
        preloads,
        baseUrl,
        request,
        loadStylesheet,
        loadManifestEntries,
      })
    : undefined;
  return svcClient;
}

/**
 * What a bundle response preloads (`Link: <…>; rel=modulepreload`), resolved against the
 * bundle's URL: the components of the same API (`./image.js?<hash>`, as names) and the vendor
 * modules beside the bundles directory (`../vendor/<stem>.<hash>.js`, as specifiers and URLs),
 * each in order. Anything else a proxy or the app may have added is ignored.
 */
export function modulePreloads(
  response: Response,
  url: string,
  base?: string,
): { names: string[]; modules: VendorFile[] } {
  const names: string[] = [];
  const modules: VendorFile[] = [];
  const header = response.headers.get("link");
  let bundle: URL;
  try {
    bundle = new URL(response.url || url, base ?? "http://svc.invalid/");
  } catch {
    return { names, modules };
  }
  const directory = bundle.pathname.slice(0, bundle.pathname.lastIndexOf("/") + 1);
  for (const [, target = "", params = ""] of header?.matchAll(/<([^>]*)>([^,]*)/g) ?? []) {
    const rel = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(params)?.[1] ?? "";
    if (!rel.toLowerCase().split(/\s+/).includes("modulepreload")) continue;
    let link: URL;
    try {
      link = new URL(target, bundle);
    } catch {
      continue;
    }
    const stem = /\/vendor\/([\w-]+)\.\w+\.js$/.exec(link.pathname)?.[1];
    const module = IMPORT_MAP_MODULES.find((m) => vendorStem(m) === stem);
    if (module !== undefined) modules.push({ module, url: link.href });
    if (link.origin !== bundle.origin || !link.pathname.startsWith(directory)) continue;
    const file = link.pathname.slice(directory.length);
    if (!file.endsWith(".js") || file.includes("/")) continue;
    let name: string;
    try {
      name = decodeURIComponent(file.slice(0, -3));
    } catch {
      continue;
    }
    if (componentNameProblem(name) === undefined) names.push(name);
  }
  return { names, modules };
}

/** Turns an error response of the API (JSON `{ error, message, name? }`) into an svc error. */
async function errorFromResponse(name: string, url: string, response: Response): Promise<Error> {
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    // Not JSON (a static server's 404 page, a proxy's error): the status has to do.
  }
  const body = isErrorBody(parsed) ? parsed : undefined;
  const message = body?.message;
  const where = `GET ${url} → ${response.status}`;
  const options = { status: response.status, url };
  switch (body?.error) {
    case "ComponentNotFound": {
      // The server's suggestion of the closest name it has, kept.
      const closest = /did you mean "([^"]+)"\?/.exec(message ?? "")?.[1];
      return new ComponentNotFoundError(
        name,
        closest === undefined ? where : `did you mean "${closest}"? (${where})`,
      );
    }
    case "InvalidComponentName":
      return new InvalidComponentNameError(
        name,
        componentNameProblem(name) ?? "the server rejected it",
      );
    case "StaticMode":
      return new BundleLoadError(
        name,
        `Component "${name}": the server is in static mode and serves no bundles from ${url}; ` +
          "load through the manifest instead (data-svc-manifest, or the manifestUrl option).",
        options,
      );
    case "BundleError":
      return new BundleLoadError(
        name,
        `Component "${name}" failed to build: ${message ?? "unknown bundler error"}`,
        options,
      );
  }
  if (response.status === 404) {
    // The component itself may be fine while the URL is wrong, so say which URL.
    return name === ""
      ? new BundleLoadError(name, `svc: ${where}`, options)
      : new ComponentNotFoundError(name, where);
  }
  return new BundleLoadError(
    name,
    `${name === "" ? "svc" : `Component "${name}"`}: ${where}${message ? `: ${message}` : ""}`,
    options,
  );
}
