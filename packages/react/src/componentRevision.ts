import type { QueryClient } from "@tanstack/react-query";

/**
 * A counter per component and QueryClient, bumped whenever the component was fetched again
 * (live reload, `reloadComponent`). Error boundaries around it use it as a reset key: a
 * boundary showing the old version's failure starts over with the new version.
 */
interface Revisions {
  counts: Map<string, number>;
  listeners: Set<() => void>;
}

const byClient = new WeakMap<QueryClient, Revisions>();

function revisionsOf(queryClient: QueryClient): Revisions {
  let revisions = byClient.get(queryClient);
  if (revisions === undefined) {
    revisions = { counts: new Map(), listeners: new Set() };
    byClient.set(queryClient, revisions);
  }
  return revisions;
}

export function bumpRevision(queryClient: QueryClient, name: string): void {
  const revisions = revisionsOf(queryClient);
  revisions.counts.set(name, (revisions.counts.get(name) ?? 0) + 1);
  for (const listener of revisions.listeners) listener();
}

/** The current revision of `name` (0 until it was fetched again). */
export function revisionOf(queryClient: QueryClient, name: string): number {
  return revisionsOf(queryClient).counts.get(name) ?? 0;
}

/** Calls `listener` whenever any component of `queryClient` gets a new revision. */
export function subscribeRevisions(queryClient: QueryClient, listener: () => void): () => void {
  const { listeners } = revisionsOf(queryClient);
  listeners.add(listener);
  return () => listeners.delete(listener);
}
