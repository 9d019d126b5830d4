import type { SvcClient } from "@svc/runtime";
import type { QueryClient } from "@tanstack/react-query";

export interface ReloadComponentOptions {
  client: SvcClient;
  queryClient: QueryClient;
  /** The component's new content hash (e.g. from a live-reload event). Default: none. */
  hash?: string;
}

/**
 * Fetches a component again (after its source changed) and re-renders every place that
 * shows it; other components keep their state. Its metadata is refetched too.
 */
export async function reloadComponent(
  name: string,
  options: ReloadComponentOptions,
): Promise<void> {
  const { client, queryClient, hash } = options;
  if (hash !== undefined) client.setHash(name, hash);
  client.invalidate(name);
  await queryClient.invalidateQueries({ queryKey: ["component", name] });
}
