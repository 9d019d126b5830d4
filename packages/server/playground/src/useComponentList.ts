import { type ComponentMetadata, componentMetadataQueryOptions, useSvc } from "@svc/react";
import { useQueries, useQuery } from "@tanstack/react-query";

export interface ListItem {
  name: string;
  /** undefined while loading; null when the metadata could not be had (it does not build). */
  metadata: ComponentMetadata | null | undefined;
}

export const LIST_KEY = ["playground", "list"] as const;

/** Every component with its metadata (title, description), kept fresh by live reload. */
export function useComponentList(): {
  items: ListItem[];
  loading: boolean;
  error: Error | null;
} {
  const { client } = useSvc();
  const list = useQuery({
    queryKey: LIST_KEY,
    queryFn: async () => {
      const response = await fetch(`${client.apiBase}/bundles`, { cache: "no-cache" });
      if (!response.ok) throw new Error(`GET ${client.apiBase}/bundles → ${response.status}`);
      return ((await response.json()) as { name: string }[]).map((entry) => entry.name);
    },
  });
  const names = list.data ?? [];
  // The same queries `useComponent` validates props with, so each is fetched once.
  const metadata = useQueries({
    queries: names.map((name) => componentMetadataQueryOptions(name, { client })),
  });
  return {
    items: names.map((name, index) => ({ name, metadata: metadata[index]?.data })),
    loading: list.isPending,
    error: list.error,
  };
}
