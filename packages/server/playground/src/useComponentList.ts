import {
  type ComponentMetadata,
  componentMetadataQueryOptions,
  type SvcClient,
  svcQueryKeys,
  useSvc,
} from "@svc/react";
import { type QueryClient, useQueries, useQuery } from "@tanstack/react-query";
import { type MetadataProblem, metadataProblemQueryOptions } from "./metadataProblem.ts";

export interface ListItem {
  name: string;
  /** undefined while loading; null when the metadata could not be had (see `problem`). */
  metadata: ComponentMetadata | null | undefined;
  /** Why the metadata could not be had (an invalid `schema.json`, a failed build), once known. */
  problem: MetadataProblem | undefined;
}

export const LIST_KEY = ["playground", "list"] as const;

/** Every component with its metadata (title, description), kept fresh by live reload. */
export function useComponentList(): {
  items: ListItem[];
  /** The names, once listed; undefined while loading or when the list failed. */
  names: readonly string[] | undefined;
  loading: boolean;
  error: Error | null;
} {
  const { client } = useSvc();
  const list = useQuery({
    queryKey: LIST_KEY,
    queryFn: async ({ client: queryClient }) => {
      const response = await fetch(`${client.apiBase}/bundles`, { cache: "no-cache" });
      if (!response.ok) throw new Error(`GET ${client.apiBase}/bundles → ${response.status}`);
      const names = ((await response.json()) as { name: string }[]).map((entry) => entry.name);
      forgetListChanges(client, queryClient, queryClient.getQueryData(LIST_KEY), names);
      return names;
    },
  });
  const names = list.data ?? [];
  // The same queries `useComponent` validates props with, so each is fetched once.
  const metadata = useQueries({
    queries: names.map((name) => componentMetadataQueryOptions(name, { client })),
  });
  const problems = useQueries({
    queries: names.map((name, index) =>
      metadataProblemQueryOptions(
        client,
        name,
        metadata[index]?.dataUpdatedAt ?? 0,
        metadata[index]?.data === null,
      ),
    ),
  });
  return {
    items: names.map((name, index) => ({
      name,
      metadata: metadata[index]?.data,
      problem: metadata[index]?.data === null ? (problems[index]?.data ?? undefined) : undefined,
    })),
    names: list.data,
    loading: list.isPending,
    error: list.error,
  };
}

/**
 * Forgets what was loaded of each component that left the list (its folder renamed or
 * deleted) or joined it (restored): shown again, it is fetched afresh, not taken from the
 * cache — neither its old version nor the 404 a page asked for while it was gone. Done before
 * the new list is rendered, so no place shows a forgotten entry.
 */
function forgetListChanges(
  client: SvcClient,
  queryClient: QueryClient,
  before: readonly string[] | undefined,
  after: readonly string[],
): void {
  if (before === undefined) return;
  const changed = [
    ...before.filter((name) => !after.includes(name)),
    ...after.filter((name) => !before.includes(name)),
  ];
  for (const name of changed) {
    client.setHash(name, undefined);
    client.invalidate(name);
    // Module and metadata, from every source.
    queryClient.removeQueries({ queryKey: svcQueryKeys.component(client, name).slice(0, 2) });
  }
}
