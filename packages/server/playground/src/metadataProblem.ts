import { isErrorBody, metadataPath } from "@svc/protocol";
import { componentMetadataQueryOptions, type SvcClient, useSvc } from "@svc/react";
import { queryOptions, useQuery } from "@tanstack/react-query";

/**
 * Why a component's metadata could not be had: the API's error body (`InvalidSchema` for a
 * broken `schema.json`, `BundleError` for a component that does not build, …). `@svc/react`'s
 * metadata query resolves to null on any failure, so the playground asks again for the reason.
 */
export interface MetadataProblem {
  /** The error kind (`InvalidSchema`, `BundleError`, …), `Http` for an answer with no svc body. */
  error: string;
  message: string;
}

/**
 * The query for the reason `name`'s metadata failed, asked once per failed metadata fetch
 * (`failedAt`, the metadata query's `dataUpdatedAt`), so an edit that changes the reason is
 * seen. Only through the API: a static build has no metadata to fail.
 */
export function metadataProblemQueryOptions(
  client: SvcClient,
  name: string,
  failedAt: number,
  enabled: boolean,
) {
  return queryOptions({
    queryKey: ["playground", "metadataProblem", client.source, name, failedAt] as const,
    queryFn: async (): Promise<MetadataProblem | null> => {
      const url = `${client.apiBase}${metadataPath(name)}`;
      const response = await fetch(url, { cache: "no-cache" });
      if (response.ok) return null;
      const body: unknown = await response.json().catch(() => undefined);
      return isErrorBody(body)
        ? { error: body.error, message: body.message }
        : { error: "Http", message: `GET ${url} → ${response.status}` };
    },
    enabled: enabled && client.manifestUrl === undefined,
    staleTime: Number.POSITIVE_INFINITY,
    retry: false,
  });
}

/** The sidebar's word for a component that fails for `problem` (undefined: not known yet). */
export function problemTitle(problem: { error: string } | null | undefined): string {
  switch (problem?.error) {
    case "InvalidSchema":
      return "schema.json is invalid";
    case "BundleError":
      return "does not build";
    default:
      return "could not be loaded";
  }
}

/** Why `name`'s metadata failed (see {@link MetadataProblem}); undefined while it did not. */
export function useMetadataProblem(name: string): MetadataProblem | undefined {
  const { client } = useSvc();
  const metadata = useQuery(componentMetadataQueryOptions(name, { client }));
  const failed = metadata.data === null;
  const problem = useQuery(
    metadataProblemQueryOptions(client, name, metadata.dataUpdatedAt, failed),
  );
  return failed ? (problem.data ?? undefined) : undefined;
}
