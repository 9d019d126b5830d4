import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import type { SvcClient } from "@svc/runtime";
import { readIsland, replayInteraction, reportMismatch, whenToHydrate } from "@svc/runtime/islands";
import type { QueryClient } from "@tanstack/react-query";
import { createElement, type ReactNode } from "react";
import { componentMetadataQueryOptions } from "./componentQueryOptions.ts";
import { exposeToComponents } from "./installReactModules.ts";
import { svcQueryKeys } from "./queryKeys.ts";
import { ServerComponent } from "./ServerComponent.ts";
import { SvcProvider } from "./SvcProvider.ts";

// Replaced by bundlers; declared per module so no Node types are needed or clashed with.
declare const process: { env: { NODE_ENV?: string } };

/** What `hydrateRoot` of `react-dom/client` returns: enough to update and unmount. */
export interface HydratedRoot {
  render(children: ReactNode): void;
  unmount(): void;
}

export interface HydrateIslandOptions {
  client: SvcClient;
  queryClient: QueryClient;
  /** `hydrateRoot` of the page's `react-dom/client` (this package does not depend on it). */
  hydrateRoot: (
    container: Element,
    children: ReactNode,
    options?: { onRecoverableError?: (error: unknown) => void },
  ) => HydratedRoot;
  /** Props to hydrate with. Default: the container's `data-svc-props`. */
  props?: Record<string, unknown>;
  /** Called with the root once the island is hydrated (to update or unmount it later). */
  onHydrated?: (root: HydratedRoot) => void;
  /** Called when the island's bundles cannot be loaded: the server HTML stays. */
  onError?: (error: unknown) => void;
}

/**
 * Hydrates an island rendered by the server (`POST …/bundles/{name}/html`,
 * `renderIsland`) when its strategy says so (`data-svc-hydrate`):
 *
 * - `load`: at once; `idle`: when the browser is idle (`requestIdleCallback`, at most 2 s
 *   later); `visible`: when it scrolls into view (`IntersectionObserver`; `visible:200px`
 *   that far before); `interaction`: on the first `pointerdown`, `keydown` or `focusin` in
 *   it, the clicks until it is hydrated replayed then; `media:(<query>)`: when the media query
 *   matches; `none`: never — its HTML is the content, no bundle is fetched.
 * - Then the island's bundle and every component it loaded on the server (`data-svc-deps`)
 *   are fetched at once, in parallel, under their hashes, and the same tree the server
 *   rendered is hydrated with `hydrateRoot`: no waterfall, no mismatch. A mismatch React
 *   recovers from is reported with the component's name.
 *
 * Returns a function that cancels a hydration not yet started.
 */
export function hydrateIsland(container: Element, options: HydrateIslandOptions): () => void {
  return whenToHydrate(container, () => void hydrate(container, options));
}

// Components get `@svc/react` from installReactModules.ts, which cannot import this module
// (it renders `SvcProvider`, which installs through that one): this module adds its part.
exposeToComponents({ hydrateIsland });

async function hydrate(container: Element, options: HydrateIslandOptions): Promise<void> {
  const { client, queryClient } = options;
  const name = container.getAttribute(ISLAND_ATTRIBUTES.component) ?? "";
  try {
    const island = readIsland(container);
    const props = options.props ?? island.props;
    const { hashes, names } = island;
    for (const other of names) {
      if (hashes[other] !== undefined) client.setHash(other, hashes[other]);
    }
    // Every bundle the server rendered with, at once; the schemas too where props are checked.
    const modules = await Promise.all(names.map((other) => client.load(other)));
    names.forEach((other, i) => {
      queryClient.setQueryData(svcQueryKeys.component(client, other), modules[i]);
    });
    if (process.env.NODE_ENV !== "production") {
      await Promise.all(
        names.map((other) =>
          queryClient.prefetchQuery(componentMetadataQueryOptions(other, { client })),
        ),
      );
    }
    const tree = createElement(
      SvcProvider,
      { client, queryClient },
      createElement(ServerComponent, { name, props }),
    );
    const root = options.hydrateRoot(container, tree, {
      onRecoverableError: reportMismatch(name),
    });
    // The clicks an `interaction` island held back: React's now, before anything else runs.
    replayInteraction(container);
    options.onHydrated?.(root);
  } catch (error) {
    // Without React, the page's own behaviour gets them (a link followed).
    replayInteraction(container);
    (options.onError ?? ((e: unknown) => console.error(`svc: island "${name}":`, e)))(error);
  }
}
