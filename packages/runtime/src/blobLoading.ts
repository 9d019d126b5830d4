// `moduleLoading: "blob"` (the default): a bundle is fetched, its imports rewritten into reads
// from the page's module registry, and imported from a `blob:` URL.
import { bundlePath, componentNameProblem } from "@svc/protocol";
import { absolute, type ClientCore, type Fetched } from "./clientCore.ts";
import { BundleLoadError, ComponentNotFoundError, IntegrityError } from "./errors.ts";
import type { ComponentModule } from "./importCode.ts";
import { loadManifestFile } from "./loadManifestFile.ts";
import { loadStylesheet } from "./loadStylesheet.ts";
import { modulePreloads, type VendorFile } from "./modulePreloads.ts";
import { getModuleRegistry } from "./moduleRegistry.ts";
import { request, requestText } from "./request.ts";
import { rewriteModule } from "./rewriteImports.ts";
import { setStylesheets } from "./stylesheets.ts";
import { fetchVendor, provideModules } from "./vendorModules.ts";

/**
 * `name`'s module: its bundle (from a fetch started ahead, or fetched now) with the vendor
 * modules it needs put in the registry first, rewritten against the registry and evaluated;
 * its stylesheets fetched alongside and recorded with the module.
 */
export async function loadBlobBundle(
  core: ClientCore,
  name: string,
  hash: string | undefined,
): Promise<ComponentModule> {
  const fetched = await fetchBundle(core, name, hash);
  if (fetched.modules !== undefined && fetched.modules.length > 0) {
    await provideModules(core, name, fetched.modules);
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
      return loadStylesheet(core, name, url, integrity);
    }),
  );
  sheets.catch(() => {});
  const { evaluate } = core;
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

/** `name`'s bundle: taken from a fetch started ahead, or fetched now. */
function fetchBundle(core: ClientCore, name: string, hash: string | undefined): Promise<Fetched> {
  const started = core.ahead.get(name);
  if (started !== undefined) {
    core.ahead.delete(name);
    if (core.manifestUrl !== undefined || started.hash === hash) return started.fetched;
  }
  return fetchNow(core, name, hash);
}

/**
 * Starts fetching `name`'s bundle (not evaluating it) unless it is loaded or on its way: the
 * version `load` would ask for, so `load` takes it. (A `Link` header's own `?<hash>` is not
 * used: it may come from a copy of the parent cached for a year, naming an older version.)
 */
function prefetch(core: ClientCore, name: string): void {
  const { ahead } = core;
  if (core.bundles.has(name) || ahead.has(name) || componentNameProblem(name) !== undefined) {
    return;
  }
  const hash = core.manifestUrl === undefined ? core.hashes.get(name) : undefined;
  const fetched = fetchNow(core, name, hash);
  const entry = { hash, fetched };
  ahead.set(name, entry);
  fetched.catch(() => {
    // A failure is load's to report, if anything loads it; it may be retried then.
    if (ahead.get(name) === entry) ahead.delete(name);
  });
}

/** Records what `name`'s bundle preloads and starts fetching it (option `preload`). */
function prefetchAll(core: ClientCore, name: string, names: string[]): void {
  if (!core.preload) return;
  core.preloads.set(name, names);
  for (const dependency of names) prefetch(core, dependency);
}

/** `name`'s bundle fetched now: from the API, or in static mode from the manifest's file. */
function fetchNow(core: ClientCore, name: string, hash: string | undefined): Promise<Fetched> {
  return core.manifestUrl === undefined
    ? fetchFromApi(core, name, hash)
    : fetchFromManifest(core, name);
}

async function fetchFromApi(
  core: ClientCore,
  name: string,
  hash: string | undefined,
): Promise<Fetched> {
  const url = `${core.apiBase}${bundlePath(name, hash)}`;
  // Without a hash the URL names no particular version, so revalidate (ETag) every time
  // rather than trust a year-long cached copy.
  const response = await request(core, name, url, hash ? undefined : { cache: "no-cache" });
  const { names, modules } = modulePreloads(response, url, core.baseUrl());
  // Its dependencies start now, while its body is still arriving.
  prefetchAll(core, name, names);
  // So do the vendor modules it needs (e.g. `@svc/react`) that the page lacks.
  for (const file of modules) fetchVendor(core, name, file);
  return { code: await response.text(), url: absolute(core, url), modules };
}

async function fetchFromManifest(core: ClientCore, name: string): Promise<Fetched> {
  const { url: manifestHref, entries } = await loadManifestFile(core);
  const entry = Object.hasOwn(entries, name) ? entries[name] : undefined;
  if (entry === undefined || typeof entry.file !== "string") {
    throw new ComponentNotFoundError(name, `it is not in the manifest ${manifestHref.href}`);
  }
  prefetchAll(
    core,
    name,
    (entry.dependencies ?? []).filter((d) => Object.hasOwn(entries, d)),
  );
  const modules: VendorFile[] = [];
  for (const file of Array.isArray(entry.modules) ? entry.modules : []) {
    const vendor = { ...file, url: new URL(file.file, manifestHref).href };
    modules.push(vendor);
    fetchVendor(core, name, vendor);
  }
  const url = new URL(entry.file, manifestHref).href;
  // The manifest names the stylesheets too: fetched alongside the bundle, not after it.
  const integrity = new Map<string, string>();
  for (const sheet of Array.isArray(entry.css) ? entry.css : []) {
    const sheetUrl = new URL(sheet.file, manifestHref).href;
    if (typeof sheet.integrity === "string") integrity.set(sheetUrl, sheet.integrity);
    loadStylesheet(core, name, sheetUrl, sheet.integrity).catch(() => {});
  }
  return {
    code: await requestText(core, name, url, entry.integrity),
    url,
    integrity,
    strict: entry.integrity !== undefined,
    modules,
  };
}
