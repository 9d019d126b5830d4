import type { SvcClient } from "@svc/runtime";
import type { QueryClient } from "@tanstack/react-query";
import { bumpRevision } from "./componentRevision.ts";
import { svcQueryKeys } from "./queryKeys.ts";

export interface ReloadComponentOptions {
  client: SvcClient;
  queryClient: QueryClient;
  /** The component's new content hash (e.g. from a live-reload event). Default: none. */
  hash?: string;
}

/**
 * Fetches a component again (after its source changed) and re-renders every place that
 * shows it; other components keep their state. Its metadata is refetched too. A
 * `ServerComponent` showing the component's failure tries again with the new version.
 */
export async function reloadComponent(
  name: string,
  options: ReloadComponentOptions,
): Promise<void> {
  const { client, queryClient, hash } = options;
  if (hash !== undefined) client.setHash(name, hash);
  client.invalidate(name);
  // "all", not only the observed queries: a component whose load failed, or that threw,
  // sits behind an error boundary and has no observer left. Module and metadata of this
  // client's source only.
  await queryClient.invalidateQueries({
    predicate: (query) => sameComponent(client, query.queryKey, name),
    refetchType: "all",
  });
  // Only now, with the new module in the cache: a boundary reset earlier would render the
  // old version (and its old failure) again.
  bumpRevision(queryClient, name);
}

/**
 * Shows a component's current failure (e.g. a syntax error reported by live reload) where
 * it is rendered, instead of its last good version. Nothing happens where it is not loaded
 * or already shows a load failure.
 */
export async function showComponentFailure(
  name: string,
  options: Omit<ReloadComponentOptions, "hash">,
): Promise<void> {
  const { client, queryClient } = options;
  // The last good version's URL (`?<hash>`) may sit in the browser's cache for good: ask for
  // the current one instead, so the failure is what comes back.
  client.setHash(name, undefined);
  const state = queryClient.getQueryState(svcQueryKeys.component(client, name));
  if (state === undefined || (state.status === "error" && state.data === undefined)) return;
  client.invalidate(name);
  // The new revision first: a boundary showing an older failure (the component threw) starts
  // over now, and one that catches the failure fetched below keeps it — after the fetch, the
  // bump would reset it and have the failing bundle asked for again.
  bumpRevision(queryClient, name);
  // Without data the suspense query throws its next failure to the error boundary.
  await queryClient.resetQueries({
    predicate: (query) => sameComponent(client, query.queryKey, name),
  });
}

/** Whether `key` is one of `name`'s queries (module or metadata) of `client`'s source. */
function sameComponent(client: SvcClient, key: readonly unknown[], name: string): boolean {
  return svcQueryKeys.matches(client, key) && key[1] === name;
}
