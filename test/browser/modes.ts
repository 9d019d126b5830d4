/**
 * The two ways a page loads components, for the browser tests that run in both
 * (`describe.each(MODES)`): blob — the classic `loader.js`, which imports each bundle from a
 * `blob:` URL, so the page's CSP must allow `blob:`; import map — `loader.esm.js` with an import
 * map, which imports each bundle by its own URL, so the CSP needs `'self'` and the map's nonce
 * only. What else differs (the requests each mode makes, its error messages) stays in the
 * tests' own tables.
 */
import { renderImportMap } from "@svc/server";
import { buildLoaderOnce, html } from "./helpers.ts";

/** The nonce of the import map (and of nothing else). */
export const NONCE = "m0d3sN0nce";

const MANIFEST = ' data-svc-manifest="/static/svc/manifest.json"';

/**
 * Where a page's components come from: the API mounted at `/api`, or `svc build`'s output
 * (`buildDir`) served at `/static/svc/` (static mode).
 */
export type From = "api" | { buildDir: string };

export interface ModuleLoadingMode {
  name: "blob" | "import map";
  /** For describe titles: the mode and its loader. */
  title: string;
  /** The CSP `script-src` sources the mode needs, and no more. */
  scriptSrc: string;
  /** A page of `body` ending with the mode's loader script, `attributes` added to it. */
  page(body: string, from: From, attributes?: string): Promise<string>;
  /** The title: `%s` in a `describe.each(MODES)` title names the mode. */
  toString(): string;
}

const titled = (mode: Omit<ModuleLoadingMode, "toString">): ModuleLoadingMode => ({
  ...mode,
  toString: () => mode.title,
});

export const MODES: readonly ModuleLoadingMode[] = [
  titled({
    name: "blob",
    title: "blob mode (loader.js)",
    scriptSrc: "'self' blob:",
    async page(body, from, attributes = "") {
      return html(body, { loader: (from === "api" ? "" : MANIFEST) + attributes });
    },
  }),
  titled({
    name: "import map",
    title: "import map mode (loader.esm.js)",
    scriptSrc: `'self' 'nonce-${NONCE}'`,
    async page(body, from, attributes = "") {
      // The map names the vendor build's files, which come with the loader's build.
      await buildLoaderOnce();
      if (from === "api") {
        return html(body, {
          head: await renderImportMap({ apiBase: "/api", nonce: NONCE }),
          module: true,
          loaderSrc: "/api/loader.esm.js",
          loader: ` data-svc-api="/api"${attributes}`,
        });
      }
      return html(body, {
        head: await renderImportMap({
          buildDir: from.buildDir,
          staticUrl: "/static/svc/",
          nonce: NONCE,
        }),
        module: true,
        loaderSrc: "/static/svc/loader.esm.js",
        loader: MANIFEST + attributes,
      });
    },
  }),
];
