/**
 * The standalone svc loader: one classic script for server-rendered pages.
 *
 * ```html
 * <div data-svc-component="counter" data-svc-props='{"initialValue":3}'></div>
 * <script src="/svc/loader.js"></script>
 * ```
 *
 * It renders every `[data-svc-component]` container in its own React root, inside Suspense
 * and an error boundary, and exposes `window.svc = { render, update, load, reload, unmount }`.
 * With `data-svc-live` on the script or a container it follows `svc serve`'s live-reload
 * stream (`{apiBase}/events`): changed components re-render in place. The hydration strategies
 * of islands are `loader.extras.js` (extras.ts), fetched only by a page that has an island; the
 * live-reload client and the error overlay are `loader.live.js` (live.ts), fetched only by a
 * page that follows live reload.
 *
 * `loader.js` carries React, ReactDOM and `@svc/runtime`, and renders top-level components
 * without TanStack Query. The other shared modules (`@svc/react` with TanStack Query, goober)
 * are vendor files the runtime fetches only for a bundle that imports them; a component that
 * imports `@svc/react` is rendered inside its `SvcProvider`, so `useComponent` works below it.
 *
 * One loader per page, so each part below keeps the page's state in its module:
 * - `loaderScript.ts`: the script tag's settings (`data-svc-api`, `-manifest`, `-live`);
 * - `pageModules.ts`: which React renders, and what goes in the page's module registry;
 * - `sources.ts`: a client and a module cache per API (or static build);
 * - `containers.ts`: each container's root, props and hydration; `containerTree.ts`: what
 *   it renders;
 * - `liveReload.ts`: fetching a changed component again; `loaderExtras.ts`: fetching
 *   `loader.extras.js` and `loader.live.js`;
 * - `createLoader.ts`: `window.svc` over them (its type: `svcGlobal.ts`);
 * - `refreshHook.ts` (`loader.dev.js` only): React Fast Refresh for live reload.
 */
// First: in development it prepares React's DevTools hook before react-dom is evaluated.
import "./refreshHook.ts";
import { createLoader } from "./createLoader.ts";

export type { SvcGlobal, SvcLoadOptions, SvcModule } from "./svcGlobal.ts";

// The build also wraps this file in a guard, so a second copy never even evaluates its React;
// this check keeps the rule when the file is bundled some other way.
if (window.svc === undefined) window.svc = createLoader();
