import type { ComponentModule, SvcClient } from "@svc/runtime";
import type { QueryClient } from "@tanstack/react-query";
import { componentQueryOptions } from "./componentQueryOptions.ts";
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
 * it is rendered, instead of its last good version or its last failure. Nothing happens
 * where it is not loaded.
 *
 * The failure is fetched before anything redraws, as a new version is: every place that
 * shows the component then finds it settled and goes from the last good render straight to
 * the error, in one render, asking for the broken bundle once. (Cleared first, the query
 * would suspend every place, which React reveals up to 300 ms late, and the place's
 * Suspense fallback shows meanwhile.)
 */
export async function showComponentFailure(
  name: string,
  options: Omit<ReloadComponentOptions, "hash">,
): Promise<void> {
  const { client, queryClient } = options;
  // The last good version's URL (`?<hash>`) may sit in the browser's cache for good: ask for
  // the current one instead, so the failure is what comes back.
  client.setHash(name, undefined);
  const key = svcQueryKeys.component(client, name);
  const query = queryClient.getQueryCache().find<ComponentModule>({ queryKey: key, exact: true });
  if (query === undefined) return;
  client.invalidate(name);
  let failed = false;
  try {
    // Stale at once, so it is fetched although a good version is cached.
    await queryClient.fetchQuery({ ...componentQueryOptions(name, { client }), staleTime: 0 });
  } catch {
    failed = query.state.status === "error";
  }
  if (failed) {
    // Without its data the query throws its failure to the error boundary where it renders
    // (a suspense query shows data it holds, however its last fetch went). Not pending, so
    // nothing suspends and nothing fetches it again.
    query.setState({ ...query.state, data: undefined, dataUpdatedAt: 0 });
  }
  // Built after all (a save since fixed it): shown as a new version. Either way the new
  // revision starts over a boundary showing an older failure (the component threw), with
  // what is now cached.
  bumpRevision(queryClient, name);
}

/** Whether `key` is one of `name`'s queries (module or metadata) of `client`'s source. */
function sameComponent(client: SvcClient, key: readonly unknown[], name: string): boolean {
  return svcQueryKeys.matches(client, key) && key[1] === name;
}
