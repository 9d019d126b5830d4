import { refreshGlobal } from "@svc/protocol";
import type { ComponentMetadata, SvcClient } from "@svc/runtime";
import { queryOptions } from "@tanstack/react-query";
import { svcQueryKeys } from "./queryKeys.ts";

// Replaced by bundlers; declared per module so no Node types are needed or clashed with.
declare const process: { env: { NODE_ENV?: string } };

export interface ComponentQueryOptionsInput {
  /** The svc client to load with (`useSvc().client` inside an `SvcProvider`). */
  client: SvcClient;
}

/**
 * Query options for a component's module, TanStack style: the same object serves
 * `useSuspenseQuery`, `prefetchQuery` and `ensureQueryData`.
 *
 * ```ts
 * const { client, queryClient } = useSvc();
 * await queryClient.prefetchQuery(componentQueryOptions("counter", { client }));
 * ```
 *
 * Key `["component", name, source]` (see `svcQueryKeys`); never stale; no retries (a missing
 * component stays missing).
 */
export function componentQueryOptions(name: string, { client }: ComponentQueryOptionsInput) {
  return queryOptions({
    queryKey: svcQueryKeys.component(client, name),
    queryFn: async ({ client: queryClient }) => {
      const module = await client.load(name);
      // Development: what a new version registered is applied in place (Fast Refresh) before
      // anything renders it, so its places keep the state of its unchanged hooks; without
      // the runtime, or where React cannot, they remount it. A first version changes nothing.
      if (process.env.NODE_ENV !== "production") refreshGlobal()?.update(module);
      // The components it asks for by a literal name arrived with it (preloading): loaded
      // into the cache now, they render in the same pass instead of suspending one by one.
      const preloaded = (await client.loadPreloaded?.(name)) ?? new Map();
      for (const [dependency, loaded] of preloaded) {
        const key = svcQueryKeys.component(client, dependency);
        if (queryClient.getQueryData(key) === undefined) queryClient.setQueryData(key, loaded);
      }
      return module;
    },
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
    // A module namespace is not data to diff.
    structuralSharing: false,
  });
}

/**
 * Query options for a component's metadata (`["component", name, source, "metadata"]`).
 * Resolves to null when the metadata cannot be fetched (e.g. static hosting without an API).
 */
export function componentMetadataQueryOptions(
  name: string,
  { client }: ComponentQueryOptionsInput,
) {
  return queryOptions({
    queryKey: svcQueryKeys.metadata(client, name),
    queryFn: (): Promise<ComponentMetadata | null> => client.loadMetadata(name).catch(() => null),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}
