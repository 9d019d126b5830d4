/**
 * `loader.live.js`: the standalone loader's development part, fetched from the API
 * (`{apiBase}/loader.live.js`) by a page that follows live reload (`data-svc-live`) — the
 * live-reload client, and the error overlay shown over the page while a component fails. A
 * production page (a static build, no live reload) never fetches it; `loader.esm.js` bundles
 * it in. Like `loader.extras.js`, a self-contained ES module imported from `blob:`, checked
 * to be the loader's own version.
 */
import type { LiveEvent } from "@svc/protocol";
import type { SvcClient } from "@svc/runtime";
import { followEvents } from "@svc/runtime/live";

/** The development error overlay, over a page whose component failed (`containerTree.ts`). */
export { errorReportOf, showErrorOverlay } from "@svc/runtime/live";

/** Set by the build from `package.json` (see build.ts): the loader checks it is its own. */
declare const __SVC_LOADER_VERSION__: string;
export const version = __SVC_LOADER_VERSION__;

/** The loader's record of one API that live reload keeps current. */
export interface LiveSource {
  client: SvcClient;
  /** The modules it loaded, by name (a rejected one has `status` "rejected"). */
  modules: Map<string, { status?: string }>;
  /** Content hashes seen, by name. */
  known: Map<string, string>;
}

/**
 * Follows the API's live-reload stream: `reload` is called for each component that changed or
 * failed to build — and after a reconnect, for each whose hash moved (or whose load failed)
 * while the stream was away. Returns what disconnects.
 */
export function followLive(
  source: LiveSource,
  reload: (name: string, hash: string | undefined) => void,
): () => void {
  const { client, modules, known } = source;
  return followEvents(`${client.apiBase}/events`, (event: LiveEvent) => {
    if (event.type === "change") {
      known.set(event.name, event.hash);
      reload(event.name, event.hash);
    } else if (event.type === "error") {
      reload(event.name, undefined);
    } else if (event.type === "hello") {
      // Events may have been missed before this connection: compare what this page has.
      for (const name of modules.keys()) {
        client.invalidate(name);
        client.loadMetadata(name).then(
          ({ hash }) => {
            const before = known.get(name);
            if (before === undefined) known.set(name, hash);
            if (
              (before !== undefined && before !== hash) ||
              modules.get(name)?.status === "rejected"
            ) {
              known.set(name, hash);
              reload(name, hash);
            }
          },
          () => {},
        );
      }
    }
  });
}
