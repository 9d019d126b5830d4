/**
 * Islands: a component rendered to HTML on the server, inside a container the browser
 * hydrates. The container's attributes are written by the server and read by the loader and
 * `@svc/react`, so both take their names from here.
 */

/**
 * When the browser hydrates an island (Astro's `client:*` directives): `visible:<margin>`
 * carries an `IntersectionObserver` `rootMargin`, `media:<query>` a media query; both are
 * checked by {@link parseHydrate}.
 */
export type HydrateStrategy =
  | "load"
  | "idle"
  | "visible"
  | "interaction"
  | "none"
  | `visible:${string}`
  | `media:${string}`;

/** The default strategy. */
export const DEFAULT_HYDRATE: HydrateStrategy = "load";

// Each attribute is also a constant of its own, so a browser script that reads two of them
// (`islands.js`) bundles those two names, not the whole table.

/** The component name (also on client-rendered widgets). */
export const ATTR_COMPONENT = "data-svc-component";
/** The props as JSON (also on widgets). */
export const ATTR_PROPS = "data-svc-props";
/** The bundle hash the HTML was rendered from (also on widgets). */
export const ATTR_HASH = "data-svc-hash";
/** Marks server-rendered content: hydrate it, do not replace it. */
export const ATTR_SSR = "data-svc-ssr";
/** The {@link HydrateStrategy}. */
export const ATTR_HYDRATE = "data-svc-hydrate";
/**
 * The other components the render loaded (`useComponent`), as JSON `{ name: hash }`: the
 * browser fetches them with the island's own bundle, in parallel, before hydrating.
 */
export const ATTR_DEPS = "data-svc-deps";
/**
 * The URL at which the browser reaches svc's API for this island (its `publicUrl`): set
 * when the page is not on svc's origin, or svc not at `/api` (also on widgets).
 */
export const ATTR_API = "data-svc-api";
/** Static mode: the build's `manifest.json`, which names the island's bundle files. */
export const ATTR_MANIFEST = "data-svc-manifest";
/**
 * The server could not render it (the error's kind, e.g. `RenderTimeout`): the container is
 * empty, and the browser renders the component itself instead of hydrating.
 */
export const ATTR_FALLBACK = "data-svc-fallback";
/** Follow live reload: on the loader's script tag (every container) or on one container. */
export const ATTR_LIVE = "data-svc-live";
/** On `islands.js`'s script tag: the loader to fetch, when not `loader.js` beside it. */
export const ATTR_LOADER = "data-svc-loader";
/** On the element that shows a component's failure: the error's kind. */
export const ATTR_ERROR = "data-svc-error";
/** On the placeholder the loader shows while a container's component loads. */
export const ATTR_LOADING = "data-svc-loading";
/** On the `<style>` of an island's CSS-in-JS rules: the component. */
export const ATTR_STYLES = "data-svc-styles";
/** On an island's stylesheet links: the component. */
export const ATTR_CSS = "data-svc-css";
/** Where a batch of components rendered at once is parted (server-side only). */
export const ATTR_SPLIT = "data-svc-split";

/** The container's attributes, every one: the table of the constants above. */
export const ISLAND_ATTRIBUTES = {
  component: ATTR_COMPONENT,
  props: ATTR_PROPS,
  hash: ATTR_HASH,
  ssr: ATTR_SSR,
  hydrate: ATTR_HYDRATE,
  deps: ATTR_DEPS,
  api: ATTR_API,
  manifest: ATTR_MANIFEST,
  fallback: ATTR_FALLBACK,
  live: ATTR_LIVE,
  loader: ATTR_LOADER,
  error: ATTR_ERROR,
  loading: ATTR_LOADING,
  styles: ATTR_STYLES,
  css: ATTR_CSS,
  split: ATTR_SPLIT,
} as const;

/**
 * The strategy a string names, or undefined when it names none: `load`, `idle`, `visible`,
 * `interaction`, `none`, `visible:<margin>` or `media:<query>`.
 *
 * - `<margin>` is CSS margin syntax as `IntersectionObserver`'s `rootMargin` takes it: one to
 *   four lengths in `px` or `%`, parted by spaces (`200px`, `200px 0px`, `-10% 0px 5%`).
 * - `<query>` is a media query list, checked with a small grammar (the server has no browser
 *   to ask): queries parted by commas, each a media type (`all`, `screen`, `print`, after an
 *   optional `not` or `only`) with an optional `and` and a condition without `or`, or a
 *   condition alone. A condition is `not (<feature>)`, or features joined by `and` only or by
 *   `or` only (Media Queries 4: `(a) and (b) or (c)` needs parentheses). A feature is
 *   `(name)`, `(name: value)` or a range (`(width >= 800px)`, `(400px < width < 900px)`); a
 *   value is words and numbers (letters, digits, `.`, `-`, `/`, `%`). So `(min-width: 800px)`,
 *   `screen and (max-width: 40em)` and `(prefers-reduced-motion: reduce)` pass; `bogus`, `()`
 *   and an unclosed `(` do not. Nested conditions (`((a) or (b))`) are not in the grammar.
 */
export function parseHydrate(value: string): HydrateStrategy | undefined {
  if (
    value === "load" ||
    value === "idle" ||
    value === "visible" ||
    value === "interaction" ||
    value === "none"
  ) {
    return value;
  }
  if (value.length > MAX_STRATEGY_LENGTH) return undefined;
  if (value.startsWith("visible:") && ROOT_MARGIN.test(value.slice("visible:".length))) {
    return value as HydrateStrategy;
  }
  if (value.startsWith("media:") && isMediaQueryList(value.slice("media:".length))) {
    return value as HydrateStrategy;
  }
  return undefined;
}

/** Longer strategies are refused: no real margin or media query comes near. */
const MAX_STRATEGY_LENGTH = 500;

/** One to four lengths in `px` or `%`, parted by spaces: `rootMargin`'s own syntax. */
const ROOT_MARGIN =
  /^-?(?:\d+(?:\.\d+)?|\.\d+)(?:px|%)(?: +-?(?:\d+(?:\.\d+)?|\.\d+)(?:px|%)){0,3}$/;

// The grammar is built when first asked for, inside a function: the browser's scripts, which
// import this module but not `parseHydrate`, leave it out of their bundles.
function isMediaQueryList(list: string): boolean {
  /** A word or number of a feature: `reduce`, `800px`, `16/9`, `1.5dppx`, `-webkit-…`. */
  const token = String.raw`[\w.\-/%]+`;
  /** `(name)`, `(name: value)`, or a range: `(width >= 800px)`, `(400px < width < 900px)`. */
  const feature = String.raw`\(\s*(?:[a-z-]+(?:\s*:\s*${token}(?:\s+${token})*)?|${token}\s*(?:[<>]=?|=)\s*${token}(?:\s*(?:[<>]=?|=)\s*${token})?)\s*\)`;
  /** `not (a)`, `(a) and (b) …`: what may follow a media type's `and`. */
  const withoutOr = String.raw`(?:not\s+${feature}|${feature}(?:\s+and\s+${feature})*)`;
  const typed = String.raw`(?:(?:not|only)\s+)?(?:all|screen|print)(?:\s+and\s+${withoutOr})?`;
  const condition = String.raw`${withoutOr}|${feature}(?:\s+or\s+${feature})+`;
  const query = new RegExp(`^(?:${typed}|${condition})$`, "i");
  return list.split(",").every((part) => query.test(part.trim()));
}
