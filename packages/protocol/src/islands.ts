/**
 * Islands: a component rendered to HTML on the server, inside a container the browser
 * hydrates. The container's attributes are written by the server and read by the loader and
 * `@svc/react`, so both take their names from here.
 */

/** When the browser hydrates an island (Astro's `client:*` directives). */
export type HydrateStrategy = "load" | "idle" | "visible" | "none" | `media:${string}`;

/** The default strategy. */
export const DEFAULT_HYDRATE: HydrateStrategy = "load";

/** The container's attributes. */
export const ISLAND_ATTRIBUTES = {
  /** The component name (also on client-rendered widgets). */
  component: "data-svc-component",
  /** The props as JSON (also on widgets). */
  props: "data-svc-props",
  /** The bundle hash the HTML was rendered from (also on widgets). */
  hash: "data-svc-hash",
  /** Marks server-rendered content: hydrate it, do not replace it. */
  ssr: "data-svc-ssr",
  /** The {@link HydrateStrategy}. */
  hydrate: "data-svc-hydrate",
  /**
   * The other components the render loaded (`useComponent`), as JSON `{ name: hash }`: the
   * browser fetches them with the island's own bundle, in parallel, before hydrating.
   */
  deps: "data-svc-deps",
} as const;

/**
 * The strategy a string names, or undefined when it names none: `load`, `idle`, `visible`,
 * `none`, or `media:<query>` (e.g. `media:(min-width: 800px)`, the query non-empty).
 */
export function parseHydrate(value: string): HydrateStrategy | undefined {
  if (value === "load" || value === "idle" || value === "visible" || value === "none") {
    return value;
  }
  if (value.startsWith("media:") && value.length > "media:".length && value.length < 500) {
    return value as HydrateStrategy;
  }
  return undefined;
}
