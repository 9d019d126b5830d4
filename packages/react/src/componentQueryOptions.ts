import type { ComponentMetadata, SvcClient } from "@svc/runtime";
import { queryOptions } from "@tanstack/react-query";
import { installReactModules } from "./installReactModules.ts";
import { getDefaultSvcClient } from "./svcContext.ts";

// Replaced by bundlers; declared per module so no Node types are needed or clashed with.
declare const process: { env: { NODE_ENV?: string } };

export interface ComponentQueryOptionsInput {
  /** The svc client to load with. Default: the default client (API at `/api`). */
  client?: SvcClient;
}

/**
 * Query options for a component's module, TanStack style: the same object serves
 * `useSuspenseQuery`, `prefetchQuery` and `ensureQueryData`.
 *
 * ```ts
 * await queryClient.prefetchQuery(componentQueryOptions("counter"));
 * ```
 *
 * Key `['component', name]`; never stale; no retries (a missing component stays missing).
 */
export function componentQueryOptions(name: string, options: ComponentQueryOptionsInput = {}) {
  const client = options.client ?? getDefaultSvcClient();
  return queryOptions({
    queryKey: ["component", name] as const,
    queryFn: () => {
      installReactModules();
      if (process.env.NODE_ENV !== "production") {
        // Props validation will want the schema: fetch it alongside the bundle, not after.
        client.loadMetadata(name).catch(() => {});
      }
      return client.load(name);
    },
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
    // A module namespace is not data to diff.
    structuralSharing: false,
  });
}

/**
 * Query options for a component's metadata (`['component', name, 'metadata']`). Resolves to
 * null when the metadata cannot be fetched (e.g. static hosting without an API).
 */
export function componentMetadataQueryOptions(
  name: string,
  options: ComponentQueryOptionsInput = {},
) {
  const client = options.client ?? getDefaultSvcClient();
  return queryOptions({
    queryKey: ["component", name, "metadata"] as const,
    queryFn: (): Promise<ComponentMetadata | null> => client.loadMetadata(name).catch(() => null),
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}
