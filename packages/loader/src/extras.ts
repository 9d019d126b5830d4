/**
 * `loader.extras.js`: what the standalone loader needs only on some pages, fetched on demand —
 * the hydration of server-rendered islands (`data-svc-ssr`). `loader.js` fetches it from the
 * API (`{apiBase}/loader.extras.js`, which the core request handler serves) or, in static
 * mode, from beside the manifest (`svc build` writes it there), the first time a page has an
 * island, and imports it from `blob:` like a bundle: the same CSP. `loader.esm.js` bundles it
 * in. Development's part (the live-reload client, the error overlay) is `loader.live.js`
 * (`live.ts`), which a production page never fetches.
 *
 * A self-contained ES module: it imports nothing. The loader lends it its own parts (the
 * client, its module cache, its tree), so both render one tree; the two are always served
 * together (one API, or one `svc build`), and the loader checks they are one version.
 */
import type * as SvcReact from "@svc/react";
import type { SvcClient } from "@svc/runtime";
import { readIsland, replayInteraction, reportMismatch, whenToHydrate } from "@svc/runtime/islands";

/** Set by the build from `package.json` (see build.ts): the loader checks it is its own. */
declare const __SVC_LOADER_VERSION__: string;
export const version = __SVC_LOADER_VERSION__;

/** What `@svc/react` the page has, once a bundle needed it: read from the module registry. */
const svcReact = () =>
  (globalThis as { __MODULES__?: Record<string, unknown> }).__MODULES__?.["@svc/react"] as
    | typeof SvcReact
    | undefined;

/** The loader's parts an island hydrates with. */
export interface IslandHost {
  client: SvcClient;
  /** A component's module, loaded once by the loader (in development with its metadata). */
  load(name: string): Promise<unknown>;
  /** The loader's QueryClient for `@svc/react`, created on first use. */
  queryClient(): SvcReact.SvcProviderProps["queryClient"];
  /** Hydrates the container with the loader's tree. */
  hydrate(onRecoverableError: (error: unknown) => void): void;
}

/**
 * Hydrates a server-rendered island when its strategy says so: its bundle and every component
 * it loaded on the server (`data-svc-deps`) are fetched at once, under their hashes, then the
 * same tree the server rendered is hydrated, and the clicks an `interaction` island held back
 * meanwhile are replayed. Returns what stops the wait.
 */
export function hydrateIsland(container: Element, name: string, host: IslandHost): () => void {
  return whenToHydrate(container, async () => {
    try {
      const { hashes, names } = readIsland(container);
      for (const other of names) {
        if (hashes[other] !== undefined) host.client.setHash(other, hashes[other]);
      }
      const modules = await Promise.all(names.map(host.load));
      // What `useComponent` asks for below is in its cache: one render pass, as on the server.
      const S = svcReact();
      const queryClient = S === undefined ? undefined : host.queryClient();
      if (S !== undefined && queryClient !== undefined) {
        names.forEach((other, i) => {
          queryClient.setQueryData(S.svcQueryKeys.component(host.client, other), modules[i]);
        });
      }
      host.hydrate(reportMismatch(name));
    } catch (error) {
      console.error(`svc: island "${name}":`, error);
    } finally {
      // The clicks an `interaction` island held back: React's now (or the page's, failed).
      replayInteraction(container);
    }
  });
}
