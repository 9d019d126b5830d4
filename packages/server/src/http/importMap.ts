import { ESM_LOADER_PATH, resolveApiBase, VENDOR_PATH } from "@svc/protocol";
import { completeVendorModules, VENDOR_DIR } from "../bundling/vendorModules.ts";
import { type ImportMap, readImportMap } from "../served/importMapFile.ts";
import { escapeHtml } from "../util/html.ts";

export type { ImportMap } from "../served/importMapFile.ts";

export interface ImportMapOptions {
  /**
   * Development (the API): where svc is mounted; the map points at `{apiBase}/vendor/…`,
   * built from the packages beside the server on first use. Default `"/api"`.
   */
  apiBase?: string;
  /**
   * Static mode: a directory `svc build` wrote; the map is its `importmap.json` (vendor
   * modules, and the integrity of every file, bundles included). Needs `staticUrl`.
   */
  buildDir?: string;
  /** Static mode: the URL `buildDir` is served at, e.g. `"/static/svc/"`. */
  staticUrl?: string;
  /** The page's CSP nonce, written on the `<script type="importmap">`. Default: none. */
  nonce?: string;
}

/**
 * The import map of svc's no-blob mode, as an object: the shared modules (React, react-dom,
 * `@svc/react`, goober, TanStack Query) by bare name, and the integrity of the files a page
 * imports (the vendor modules, `loader.esm.js` and, in static mode, every bundle).
 *
 * @throws Error in one line when the build directory has no import map or a package is
 * missing beside the server
 */
export async function createImportMap(options: ImportMapOptions = {}): Promise<ImportMap> {
  if (options.buildDir !== undefined) {
    if (options.staticUrl === undefined) {
      throw new TypeError(
        "svc: createImportMap({ buildDir }) needs staticUrl too: the URL the build directory is served at, e.g. '/static/svc/'",
      );
    }
    const base = options.staticUrl.endsWith("/") ? options.staticUrl : `${options.staticUrl}/`;
    const { imports, integrity } = readImportMap(options.buildDir);
    const at = (url: string) => (url.startsWith("./") ? `${base}${url.slice(2)}` : url);
    return {
      imports: Object.fromEntries(Object.entries(imports).map(([k, v]) => [k, at(v)])),
      integrity: Object.fromEntries(Object.entries(integrity).map(([k, v]) => [at(k), v])),
    };
  }
  const apiBase = resolveApiBase(options.apiBase);
  const { modules, loader } = await completeVendorModules();
  const map: ImportMap = { imports: {}, integrity: {} };
  for (const [specifier, { file, integrity }] of modules) {
    const url = `${apiBase}${VENDOR_PATH}${file.slice(VENDOR_DIR.length + 1)}`;
    map.imports[specifier] = url;
    map.integrity[url] = integrity;
  }
  if (loader !== undefined) map.integrity[`${apiBase}${ESM_LOADER_PATH}`] = loader.integrity;
  return map;
}

/**
 * `<script type="importmap" nonce="…">{…}</script>` for the page's `<head>`, before any module
 * script: with it and `<script type="module" src="{apiBase}/loader.esm.js">` (or, in static
 * mode, `{staticUrl}loader.esm.js` with `data-svc-manifest`), a CSP of `script-src 'self'
 * 'nonce-…'` is enough — no `blob:`.
 *
 * ```ts
 * const head = await renderImportMap({ apiBase: "/svc", nonce });
 * ```
 */
export async function renderImportMap(options: ImportMapOptions = {}): Promise<string> {
  const map = await createImportMap(options);
  // `<` escaped: no `</script>` or `<!--` in the JSON can end or bend the element.
  const json = JSON.stringify(map).replaceAll("<", "\\u003c");
  const nonce = options.nonce === undefined ? "" : ` nonce="${escapeHtml(options.nonce)}"`;
  return `<script type="importmap"${nonce}>${json}</script>`;
}
