/**
 * The APIs (and static builds) the page's containers load from: one client and one module
 * cache each, shared by every container, `svc.load`, the islands and live reload.
 */
import type * as SvcReact from "@svc/react";
import { type ComponentModule, createSvcClient, type SvcClient } from "@svc/runtime";
import { registry, setUpGoober } from "./pageModules.ts";

/**
 * Set by the build: `"url"` in `loader.esm.js` (bundles imported by their own URL), else
 * `"blob"`.
 */
declare const __SVC_MODULE_LOADING__: "blob" | "url";
// Replaced by the build.
declare const process: { env: { NODE_ENV?: string } };

/** A promise React's `use` reads without suspending once it has settled. */
export type Tracked<T> = Promise<T> & { status?: string; value?: T; reason?: unknown };

function track<T>(promise: Promise<T>): Tracked<T> {
  const tracked = promise as Tracked<T>;
  tracked.then(
    (value) => {
      tracked.status = "fulfilled";
      tracked.value = value;
    },
    (reason: unknown) => {
      tracked.status = "rejected";
      tracked.reason = reason;
    },
  );
  return tracked;
}

/** What the loader needs of TanStack Query's `QueryClient` (the vendor module's, on demand). */
type QueryClientLike = SvcReact.SvcProviderProps["queryClient"] & object;

/** One API (or manifest): its client, and the modules the loader rendered from it. */
export interface Source {
  client: SvcClient;
  modules: Map<string, Tracked<ComponentModule>>;
  metadata: Map<string, Tracked<{ props?: unknown } | null>>;
  /** Bumped at every reload: error boundaries showing a failure start over. */
  revision: number;
  /** Created with the first component that imports `@svc/react` (for its `SvcProvider`). */
  queryClient?: QueryClientLike;
  /** Content hashes seen, by name (live reload compares them after a reconnect). */
  known: Map<string, string>;
  live?: boolean;
  disconnect?: () => void;
  /**
   * Development, following live reload: the Fast Refresh runtime loading (`refreshHook.ts`).
   * Bundles are evaluated after it, so their components are registered from the first version.
   */
  refreshRuntime?: Promise<void>;
}

/** Every source of the page, by manifest and API. */
export const sources = new Map<string, Source>();

/** The source of `apiBase` and `manifest` (a static build's), made on first use. */
export function sourceFor(apiBase: string, manifest: string | undefined): Source {
  const key = `${manifest ?? ""}\n${apiBase}`;
  let source = sources.get(key);
  if (source === undefined) {
    source = {
      client: createSvcClient({
        apiBase,
        manifestUrl: manifest,
        moduleLoading: __SVC_MODULE_LOADING__,
      }),
      modules: new Map(),
      metadata: new Map(),
      revision: 0,
      known: new Map(),
    };
    sources.set(key, source);
  }
  return source;
}

/** `@svc/react` once a bundle needed it (or the page registered its own). */
export const svcReact = (): typeof SvcReact | undefined =>
  registry["@svc/react"] as typeof SvcReact | undefined;

/** The QueryClient of `source` for `@svc/react`: one per API, as `useComponent` keys by name. */
export function queryClientOf(source: Source): QueryClientLike | undefined {
  if (source.queryClient === undefined) {
    const QueryClient = (
      registry["@tanstack/react-query"] as { QueryClient?: new () => QueryClientLike } | undefined
    )?.QueryClient;
    if (QueryClient !== undefined) source.queryClient = new QueryClient();
  }
  return source.queryClient;
}

/** Which `@svc/react` (if any) wraps each module: decided once, so its tree stays put. */
export const providers = new WeakMap<ComponentModule, typeof SvcReact | undefined>();

/** `name`'s module, loaded once per source (with the components it preloaded). */
export function moduleOf(source: Source, name: string): Tracked<ComponentModule> {
  let module = source.modules.get(name);
  if (module === undefined) {
    module = track(
      loadOnce(source, name).then(async (loaded) => {
        setUpGoober();
        const S = svcReact();
        providers.set(loaded, S);
        const queryClient = S === undefined ? undefined : queryClientOf(source);
        if (S !== undefined && queryClient !== undefined) {
          // What it preloads goes where its `useComponent` looks: one render pass.
          for (const [other, preloaded] of await source.client.loadPreloaded(name)) {
            const key = S.svcQueryKeys.component(source.client, other);
            if (queryClient.getQueryData(key) === undefined) {
              queryClient.setQueryData(key, preloaded);
            }
          }
        }
        if (source.live) {
          source.client.loadMetadata(name).then(
            (metadata) => source.known.set(name, metadata.hash),
            () => {},
          );
        }
        return loaded;
      }),
    );
    source.modules.set(name, module);
  }
  return module;
}

/**
 * `name`'s bundle, evaluated (in development) only once the Fast Refresh runtime is there, so
 * its components are registered from their first version.
 */
function loadOnce(source: Source, name: string): Promise<ComponentModule> {
  return process.env.NODE_ENV !== "production" && source.refreshRuntime !== undefined
    ? source.refreshRuntime.then(() => source.client.load(name))
    : source.client.load(name);
}

/** `name`'s metadata (development: its props schema), fetched alongside the bundle. */
export function metadataOf(source: Source, name: string): Tracked<{ props?: unknown } | null> {
  let metadata = source.metadata.get(name);
  if (metadata === undefined) {
    metadata = track(source.client.loadMetadata(name).catch(() => null));
    source.metadata.set(name, metadata);
  }
  return metadata;
}
