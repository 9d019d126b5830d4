import type { LiveEvent } from "@svc/protocol";
import type { SvcClient } from "@svc/runtime";
import { followEvents, type LiveStatus } from "@svc/runtime/live";
import type { QueryClient } from "@tanstack/react-query";
import { svcQueryKeys } from "./queryKeys.ts";
import { reloadComponent, showComponentFailure } from "./reloadComponent.ts";

export type { LiveErrorLocation, LiveEvent } from "@svc/protocol";

export type { LiveStatus } from "@svc/runtime/live";

export interface LiveOptions {
  /** URL of the event stream. Default: `{apiBase}/events` of the svc client. */
  url?: string;
  /** Called with every event, after svc acted on it (a change is already being fetched). */
  onEvent?: (event: LiveEvent) => void;
  /** Called when the connection state changes. */
  onStatus?: (status: LiveStatus) => void;
}

export interface ConnectLiveOptions extends LiveOptions {
  client: SvcClient;
  queryClient: QueryClient;
}

/**
 * Subscribes to the live-reload stream of `svc serve` and keeps the components this
 * QueryClient has loaded current: a `change` fetches that component again and re-renders it
 * in place (others keep their state); an `error` shows the bundler's message where the
 * component is rendered; after a reconnect (e.g. a server restart) every loaded component's
 * hash is checked against its metadata, so edits made meanwhile are not missed.
 *
 * Returns the function that disconnects. Does nothing where `EventSource` is missing.
 */
export function connectLive(options: ConnectLiveOptions): () => void {
  const { client, queryClient } = options;
  if (typeof EventSource === "undefined") return () => {};
  const url = options.url ?? `${client.apiBase}/events`;
  const target = { client, queryClient };

  /** name → content hash of the version this page has, to compare after a reconnect. */
  const known = new Map<string, string>();
  const unsubscribeCache = queryClient.getQueryCache().subscribe((event) => {
    if (event.type !== "updated" || event.action.type !== "success") return;
    const name = svcQueryKeys.componentOf(client, event.query.queryKey);
    if (name === undefined) return;
    client.loadMetadata(name).then(
      (metadata) => known.set(name, metadata.hash),
      () => {},
    );
  });

  const loadedNames = () =>
    queryClient
      .getQueryCache()
      .findAll({
        predicate: (query) => svcQueryKeys.componentOf(client, query.queryKey) !== undefined,
      })
      .map((query) => svcQueryKeys.componentOf(client, query.queryKey) as string);

  async function recheck(): Promise<void> {
    await Promise.all(
      loadedNames().map(async (name) => {
        client.invalidate(name);
        let hash: string;
        try {
          hash = (await client.loadMetadata(name)).hash;
        } catch {
          return; // a broken component arrives as an `error` event
        }
        const state = queryClient.getQueryState(svcQueryKeys.component(client, name));
        const before = known.get(name);
        const failed = state?.status === "error" && state.data === undefined;
        if (before === undefined) known.set(name, hash);
        if ((before !== undefined && before !== hash) || failed) {
          known.set(name, hash);
          await reloadComponent(name, { ...target, hash });
        }
      }),
    );
  }

  let server: string | undefined;
  const handle = (event: LiveEvent) => {
    switch (event.type) {
      case "hello":
        // Events may have been missed before this connection (a restarted server, with a
        // new id, knows nothing of this page; a dropped one sent into the void).
        server = event.server;
        void recheck();
        break;
      case "change":
        known.set(event.name, event.hash);
        void reloadComponent(event.name, { ...target, hash: event.hash });
        break;
      case "error":
        void showComponentFailure(event.name, target);
        break;
    }
    options.onEvent?.(event);
  };

  const disconnect = followEvents(url, handle, (status) =>
    options.onStatus?.(status === "connecting" && server !== undefined ? "reconnecting" : status),
  );
  return () => {
    disconnect();
    unsubscribeCache();
  };
}
