import type { HydrateStrategy } from "@svc/protocol";

/** How one island is rendered (`island(name, props, options)`). */
export interface IslandOptions {
  /** When the browser hydrates it. Default: `"load"`. */
  hydrate?: HydrateStrategy;
  /**
   * The URL at which the browser reaches svc's API for this island (`data-svc-api`), its
   * stylesheet links and asset URLs starting there too. Default: the handler set's
   * `publicUrl`.
   */
  apiBase?: string;
  /**
   * `"client"`: should the render throw, run out of time or find the render pool full, answer
   * a container the browser renders itself, for the same props (`data-svc-fallback` names
   * why), and log the error once — the page shows the component either way. Default: none
   * (the error is thrown).
   */
  fallback?: "client";
}
