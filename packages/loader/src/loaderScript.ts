/** What the loader reads from its own script tag. */
import {
  ATTR_API,
  ATTR_LIVE,
  ATTR_MANIFEST,
  DEFAULT_API_BASE,
  resolveApiBase,
} from "@svc/protocol";

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
            `script[type="module"]:is([${ATTR_API}],[${ATTR_MANIFEST}],[${ATTR_LIVE}])`,
          )
        : null;
  return {
    manifestUrl:
      script?.getAttribute(ATTR_MANIFEST) ??
      document.querySelector(`script[${ATTR_MANIFEST}]`)?.getAttribute(ATTR_MANIFEST) ??
      undefined,
    api: script?.getAttribute(ATTR_API) ?? apiOfScript(script) ?? DEFAULT_API_BASE,
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
  return resolveApiBase(new URL(".", url).href);
}

/** `data-svc-live` (any value but "false") on the script or a container. */
export function isLive(element: Element | null): boolean {
  const value = element?.getAttribute(ATTR_LIVE);
  return value !== null && value !== undefined && value !== "false";
}
