/**
 * `islands.js`: the start of a page of server-rendered islands, 1.4 kB gzip, no React.
 *
 * ```html
 * <div data-svc-component="card" data-svc-ssr="" data-svc-hydrate="visible" …>…</div>
 * <script src="/api/islands.js" defer></script>
 * ```
 *
 * The islands' HTML is the content already; only hydrating one needs React. So this script
 * waits on every island's strategy (`data-svc-hydrate`: `load`, `idle`, `visible`,
 * `visible:<margin>`, `interaction`, `media:(…)`; `none` never) and fetches `loader.js` —
 * React with it — when the first one fires, from beside itself (or from `data-svc-loader`).
 * The loader then takes over every container on the page, the islands' strategies included. A
 * page whose islands never come into view (or are all `none`) runs this script and nothing
 * else.
 *
 * An `interaction` island keeps watching until the loader takes over (an interaction while
 * the loader is on its way is not missed): one woken here holds back its clicks, and the
 * loader hydrates it at once and replays them (`whenToHydrate`). Should the loader not load,
 * the held clicks go to the page as they are.
 *
 * The loader is fetched at once for a container the server did not render (it has nothing to
 * show without it) and for live reload (`data-svc-live`) — then its development build,
 * `loader.dev.js` (React's development build, which React Fast Refresh needs: an island edited
 * keeps its state), also from beside this script. The loader script it adds carries this
 * script's `data-svc-api`, `data-svc-manifest`, `data-svc-live` and `nonce`.
 *
 * What the loader will fetch next is asked for together with it, not after it: the extras
 * (`loader.extras.js`) and the bundles of the island that fired (its own and those of the
 * components it rendered, `data-svc-deps`, under their hashes), as `<link rel="preload"
 * as="fetch" crossorigin>` — the very requests the loader's `fetch` makes, so it gets those
 * answers instead of asking again. Bundles only from an API (a static build's URLs are in its
 * manifest, which the loader reads first).
 */
import {
  ATTR_API,
  ATTR_COMPONENT,
  ATTR_DEPS,
  ATTR_HASH,
  ATTR_HYDRATE,
  ATTR_LIVE,
  ATTR_LOADER,
  ATTR_MANIFEST,
  ATTR_SSR,
  bundlePath,
  DEFAULT_API_BASE,
  DEV_LOADER_FILE,
  LOADER_EXTRAS_FILE,
  LOADER_FILE,
  resolveApiBase,
} from "@svc/protocol";
import { replayInteraction, whenToHydrate } from "@svc/runtime/islands";

/** What the loader reads from its own script tag: handed on to the one this script adds. */
const HANDED_ON = [ATTR_API, ATTR_MANIFEST, ATTR_LIVE];

start(
  document.currentScript instanceof HTMLScriptElement
    ? document.currentScript
    : // Loaded as a module (no currentScript): its tag is found by its file name.
      document.querySelector<HTMLScriptElement>('script[src*="islands.js"]'),
);

function start(script: HTMLScriptElement | null): void {
  /** `loader.js`, or for a page following live reload `loader.dev.js`, beside this script. */
  const loaderUrl = (live: boolean) =>
    new URL(
      script?.getAttribute(ATTR_LOADER) ?? (live ? DEV_LOADER_FILE : LOADER_FILE),
      script?.src || document.baseURI,
    ).href;
  /** What stops each island's wait: the loader waits on them itself once it is there. */
  const waits: (() => void)[] = [];
  /** `interaction` islands: their watch is the loader's too (see above), so it is kept. */
  const watched: Element[] = [];
  let requested = false;

  const fetchLoader = (due?: Element, live = false) => {
    if (requested) return;
    requested = true;
    for (const stop of waits.splice(0)) stop();
    // A loader on the page already (added by other means): it renders what it has not yet.
    if (window.svc !== undefined) {
      window.svc.render();
      return;
    }
    if (due !== undefined) preloadFor(script, due);
    const loader = document.createElement("script");
    const url = loaderUrl(live);
    loader.src = url;
    for (const name of HANDED_ON) {
      const value = script?.getAttribute(name);
      if (value !== null && value !== undefined) loader.setAttribute(name, value);
    }
    if (script?.nonce) loader.nonce = script.nonce;
    loader.onerror = () => {
      for (const container of watched) replayInteraction(container);
      console.error(
        `svc islands: ${url} could not be loaded (serve ${url.slice(url.lastIndexOf("/") + 1)} beside islands.js, or name it with ${ATTR_LOADER})`,
      );
    };
    document.head.append(loader);
  };

  const scan = () => {
    if (isLive(script)) return fetchLoader(undefined, true);
    const containers = document.querySelectorAll(`[${ATTR_COMPONENT}]`);
    // One loader for the page: its development build when any container follows live reload.
    const live = [...containers].some(isLive);
    for (const container of containers) {
      // Nothing on the page for it until the loader renders it, or it follows live reload.
      if (!container.hasAttribute(ATTR_SSR) || live) return fetchLoader(undefined, live);
      const stop = whenToHydrate(container, () => fetchLoader(container));
      if (container.getAttribute(ATTR_HYDRATE) === "interaction") {
        watched.push(container);
      } else {
        waits.push(stop);
      }
      if (requested) return;
    }
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", scan, { once: true });
  } else {
    scan();
  }
}

/**
 * Preloads what the loader fetches once it runs, for the island `due`: the extras, and (from
 * an API) the island's bundles. The extras only where the loader will ask for them at that
 * URL: every island the loader hydrates names the same API (it asks the first one's).
 */
function preloadFor(script: HTMLScriptElement | null, due: Element): void {
  const manifest =
    due.getAttribute(ATTR_MANIFEST) ?? script?.getAttribute(ATTR_MANIFEST) ?? undefined;
  // As the loader finds it: the island's, the script's, the API beside a script of another
  // origin (`http://…/api/islands.js`), else `/api`.
  const scriptApi =
    script?.getAttribute(ATTR_API) ??
    (script?.src && new URL(script.src, document.baseURI).origin !== location.origin
      ? new URL(".", script.src).href
      : DEFAULT_API_BASE);
  const apiOf = (element: Element) => resolveApiBase(element.getAttribute(ATTR_API) ?? scriptApi);
  const apiBase = apiOf(due);
  const urls: string[] = [];
  const islands = document.querySelectorAll(`[${ATTR_SSR}]`);
  if (manifest !== undefined) {
    urls.push(new URL(LOADER_EXTRAS_FILE, new URL(manifest, document.baseURI)).href);
  } else if ([...islands].every((island) => apiOf(island) === apiBase)) {
    urls.push(`${apiBase}/${LOADER_EXTRAS_FILE}`);
  }
  if (manifest === undefined) {
    try {
      // Its own bundle and those of the components it rendered, under their hashes.
      const hashes: Record<string, string> = {
        ...JSON.parse(due.getAttribute(ATTR_DEPS) ?? "{}"),
        [due.getAttribute(ATTR_COMPONENT) ?? ""]: due.getAttribute(ATTR_HASH) ?? "",
      };
      for (const name in hashes) {
        if (name && hashes[name]) urls.push(`${apiBase}${bundlePath(name, hashes[name])}`);
      }
    } catch {
      // `data-svc-deps` that is no JSON: the loader reports it
    }
  }
  for (const href of urls) {
    const link = document.createElement("link");
    link.rel = "preload";
    link.as = "fetch";
    link.crossOrigin = "anonymous";
    link.href = href;
    if (script?.nonce) link.nonce = script.nonce;
    document.head.append(link);
  }
}

function isLive(element: Element | null): boolean {
  const value = element?.getAttribute(ATTR_LIVE);
  return value !== null && value !== undefined && value !== "false";
}
