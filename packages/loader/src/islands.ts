/**
 * `islands.js`: the start of a page of server-rendered islands, about a kilobyte, no React.
 *
 * ```html
 * <div data-svc-component="card" data-svc-ssr="" data-svc-hydrate="visible" …>…</div>
 * <script src="/api/islands.js" defer></script>
 * ```
 *
 * The islands' HTML is the content already; only hydrating one needs React. So this script
 * waits on every island's strategy (`data-svc-hydrate`: `load`, `idle`, `visible`,
 * `media:(…)`; `none` never) and fetches `loader.js` — React with it — when the first one
 * fires, from beside itself (or from `data-svc-loader`). The loader then takes over every
 * container on the page, the islands' strategies included. A page whose islands never come
 * into view (or are all `none`) runs this script and nothing else.
 *
 * The loader is fetched at once for a container the server did not render (it has nothing to
 * show without it) and for live reload (`data-svc-live`). The loader script it adds carries
 * this script's `data-svc-api`, `data-svc-manifest`, `data-svc-live` and `nonce`.
 */
import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import { whenToHydrate } from "@svc/runtime/islands";

/** What the loader reads from its own script tag: handed on to the one this script adds. */
const HANDED_ON = ["data-svc-api", "data-svc-manifest", "data-svc-live"];

start(
  document.currentScript instanceof HTMLScriptElement
    ? document.currentScript
    : // Loaded as a module (no currentScript): its tag is found by its file name.
      document.querySelector<HTMLScriptElement>('script[src*="islands.js"]'),
);

function start(script: HTMLScriptElement | null): void {
  const loaderUrl = new URL(
    script?.dataset.svcLoader ?? "loader.js",
    script?.src || document.baseURI,
  ).href;
  /** What stops each island's wait: the loader waits on them itself once it is there. */
  const waits: (() => void)[] = [];
  let requested = false;

  const fetchLoader = () => {
    if (requested) return;
    requested = true;
    for (const stop of waits.splice(0)) stop();
    // A loader on the page already (added by other means): it renders what it has not yet.
    if (window.svc !== undefined) {
      window.svc.render();
      return;
    }
    const loader = document.createElement("script");
    loader.src = loaderUrl;
    for (const name of HANDED_ON) {
      const value = script?.getAttribute(name);
      if (value !== null && value !== undefined) loader.setAttribute(name, value);
    }
    if (script?.nonce) loader.nonce = script.nonce;
    loader.onerror = () => {
      console.error(
        `svc islands: ${loaderUrl} could not be loaded: the islands keep their server HTML (serve loader.js beside islands.js, or name it with data-svc-loader)`,
      );
    };
    document.head.append(loader);
  };

  const scan = () => {
    if (isLive(script)) return fetchLoader();
    for (const container of document.querySelectorAll(`[${ISLAND_ATTRIBUTES.component}]`)) {
      // Nothing on the page for it until the loader renders it, or it follows live reload.
      if (!container.hasAttribute(ISLAND_ATTRIBUTES.ssr) || isLive(container)) return fetchLoader();
      waits.push(whenToHydrate(container, fetchLoader));
      if (requested) return;
    }
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", scan, { once: true });
  } else {
    scan();
  }
}

function isLive(element: Element | null): boolean {
  const value = element?.getAttribute("data-svc-live");
  return value !== null && value !== undefined && value !== "false";
}
