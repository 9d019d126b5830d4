/**
 * `loader.extras.js`: what the standalone loader needs only on some pages, fetched on demand —
 * the hydration strategies of server-rendered islands (`data-svc-ssr`) and the live-reload
 * client (`data-svc-live`). `loader.js` fetches it from the API (`{apiBase}/loader.extras.js`,
 * which the core request handler serves) or, in static mode, from beside the manifest (`svc
 * build` writes it there), the first time a page has an island or follows live reload, and
 * imports it from `blob:` like a bundle: the same CSP. `loader.esm.js` bundles it in.
 *
 * A self-contained ES module: it imports nothing.
 */
export { readIsland, whenToHydrate } from "@svc/runtime/islands";
export { followEvents } from "@svc/runtime/live";
