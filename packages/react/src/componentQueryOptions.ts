import type { ComponentMetadata, SvcClient } from "@svc/runtime";
import { queryOptions } from "@tanstack/react-query";
import { svcQueryKeys } from "./queryKeys.ts";

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
    queryFn: () => client.load(name),
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
