import { useSvc } from "@svc/react";
import { useQuery } from "@tanstack/react-query";

/**
 * Where the raw bundle is: the API's endpoint, or in static mode the file the manifest names
 * (the API serves no bundles there).
 */
export function useBundleHref(name: string): string {
  const { client } = useSvc();
  const { data: manifest } = useQuery({
    queryKey: ["playground", "manifest", client.manifestUrl],
    queryFn: () => client.loadManifest(),
    enabled: client.manifestUrl !== undefined,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (client.manifestUrl === undefined) return `${client.apiBase}/bundles/${name}.js`;
  const entry =
    manifest !== undefined && Object.hasOwn(manifest, name) ? manifest[name] : undefined;
  return entry === undefined
    ? client.manifestUrl
    : new URL(entry.file, new URL(client.manifestUrl, document.baseURI)).href;
}
