/** What the loader reads from its own script tag. */

/**
 * Set by the build: `"url"` in `loader.esm.js` (a module script: it has no `currentScript`),
 * else `"blob"`.
 */
declare const __SVC_MODULE_LOADING__: "blob" | "url";

/** The loader's settings, from its script tag's `data-svc-*` attributes. */
export interface LoaderScript {
  /** The API containers load from unless they name their own (`data-svc-api`). */
  api: string;
  /** A static build's manifest (`data-svc-manifest`, on this script or another). */
  manifestUrl: string | undefined;
  /** Every container follows live reload (`data-svc-live` on the script). */
  live: boolean;
}

export function readLoaderScript(): LoaderScript {
  const script =
    document.currentScript instanceof HTMLScriptElement
      ? document.currentScript
      : // A module script has no currentScript: its data-svc-* attributes are looked up.
        __SVC_MODULE_LOADING__ === "url"
        ? document.querySelector<HTMLScriptElement>(
            'script[type="module"]:is([data-svc-api],[data-svc-manifest],[data-svc-live])',
          )
        : null;
  return {
    manifestUrl:
      script?.dataset.svcManifest ??
      document.querySelector<HTMLScriptElement>("script[data-svc-manifest]")?.dataset.svcManifest,
    api: script?.dataset.svcApi ?? apiOfScript(script) ?? "/api",
    live: isLive(script),
  };
}

/**
 * The API a loader that svc serves to a page of another origin belongs to: its script's
 * directory (`http://127.0.0.1:8000/api/loader.js` → `http://127.0.0.1:8000/api`), so the page
 * needs nothing but the script tag. On the page's own origin `/api` stays the default: a copy
 * of the loader may be served from anywhere there.
 */
function apiOfScript(script: HTMLScriptElement | null): string | undefined {
  if (!script?.src) return undefined;
  const url = new URL(script.src, document.baseURI);
  if (url.origin === location.origin) return undefined;
  return new URL(".", url).href.replace(/\/+$/, "");
}

/** `data-svc-live` (any value but "false") on the script or a container. */
export function isLive(element: Element | null): boolean {
  const value = element?.getAttribute("data-svc-live");
  return value !== null && value !== undefined && value !== "false";
}
