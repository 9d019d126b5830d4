/** Fetching a component again after its source changed: `svc.reload` and live reload. */
import { refreshGlobal } from "@svc/protocol";
import { liveFor } from "./loaderExtras.ts";
import { loadRefreshRuntime } from "./refreshHook.ts";
import { moduleOf, type Source, svcReact } from "./sources.ts";

// Replaced by the build.
declare const process: { env: { NODE_ENV?: string } };

/**
 * Fetches `name` again for `source` and re-renders in place (`redraw`); with `hash` that
 * version, without one (a failed build) whatever is current — its failure shows.
 */
export async function reloadIn(
  source: Source,
  name: string,
  hash: string | undefined,
  redraw: () => void,
): Promise<void> {
  const { client } = source;
  client.setHash(name, hash);
  const S = svcReact();
  const queryClient = source.queryClient;
  if (S !== undefined && queryClient !== undefined) {
    // Components loaded through `useComponent` (nested) live in its cache; without a hash
    // their failure shows where they are nested too (a page's own older copy lacks it).
    await ((hash === undefined && S.showComponentFailure) || S.reloadComponent)(name, {
      client,
      queryClient,
      hash,
    });
  } else {
    client.invalidate(name);
  }
  if (source.modules.has(name)) {
    source.modules.delete(name);
    // Fetched before the redraw, a new version or a failed build's error alike: the render
    // finds it settled and shows it at once (React holds back a render that waited, up to
    // 300 ms), and every container shows the same one, fetched once.
    const module = await moduleOf(source, name).catch(() => undefined);
    // Development: what the new version registered is applied in place (Fast Refresh), so the
    // redraw keeps the state of its unchanged hooks; otherwise (or where React cannot) it
    // remounts the component.
    if (process.env.NODE_ENV !== "production" && module !== undefined) {
      refreshGlobal()?.update(module);
    }
  }
  source.revision++;
  redraw();
}

/** Follows `source`'s live-reload stream, once per API (static mode has no event stream). */
export function follow(source: Source, redraw: () => void): void {
  if (source.live || source.client.manifestUrl !== undefined) return;
  source.live = true;
  if (process.env.NODE_ENV !== "production") {
    source.refreshRuntime = loadRefreshRuntime(source.client.apiBase);
  }
  liveFor(source).then(
    ({ followLive }) => {
      source.disconnect = followLive(source, (name, hash) => {
        void reloadIn(source, name, hash, redraw);
      });
    },
    (error: unknown) => console.error("svc: live reload is off:", error),
  );
}
