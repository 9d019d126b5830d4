/**
 * The loader's parts fetched on demand: `loader.extras.js` (extras.ts: island hydration
 * strategies) the first time a page has an island to hydrate, and `loader.live.js` (live.ts:
 * the live-reload client and the error overlay) when a page follows live reload.
 */
import {
  LOADER_EXTRAS_FILE,
  LOADER_EXTRAS_PATH,
  LOADER_LIVE_FILE,
  LOADER_LIVE_PATH,
} from "@svc/protocol";
import { importCode } from "@svc/runtime";
import type { Source } from "./sources.ts";

/** Set by the build from `package.json` (see build.ts). */
declare const __SVC_LOADER_VERSION__: string;
/** Set by the build: `"url"` in `loader.esm.js`, which bundles both parts in. */
declare const __SVC_MODULE_LOADING__: "blob" | "url";

/** `loader.extras.js`: island hydration strategies (extras.ts). */
export type LoaderExtras = typeof import("./extras.ts");
/** `loader.live.js`: the live-reload client and the error overlay (live.ts). */
export type LoaderLive = typeof import("./live.ts");

/** Each part, fetched once per page (again after a failure). */
const parts = new Map<string, Promise<unknown>>();

/**
 * `loader.extras.js`, fetched when a page first has an island to hydrate: from `source`'s API,
 * or in static mode from beside the manifest. `loader.esm.js` has it bundled in.
 */
export function extrasFor(source: Source): Promise<LoaderExtras> {
  return part(LOADER_EXTRAS_FILE, () =>
    __SVC_MODULE_LOADING__ === "url"
      ? // `.js`: a consumer's type check reaches this file, and may not allow `.ts` here.
        import("./extras.js")
      : importPart(
          source.client.manifestUrl === undefined
            ? `${source.client.apiBase}${LOADER_EXTRAS_PATH}`
            : new URL(LOADER_EXTRAS_FILE, new URL(source.client.manifestUrl, document.baseURI))
                .href,
          LOADER_EXTRAS_FILE,
          "islands",
        ),
  );
}

/**
 * `loader.live.js`, fetched when a page follows live reload (development: from `source`'s
 * API; a static build has no live reload). `loader.esm.js` has it bundled in.
 */
export function liveFor(source: Source): Promise<LoaderLive> {
  return part(LOADER_LIVE_FILE, () =>
    __SVC_MODULE_LOADING__ === "url"
      ? import("./live.js")
      : importPart(`${source.client.apiBase}${LOADER_LIVE_PATH}`, LOADER_LIVE_FILE, "live reload"),
  );
}

function part<T>(file: string, load: () => Promise<T>): Promise<T> {
  let pending = parts.get(file) as Promise<T> | undefined;
  if (pending === undefined) {
    const loading = load();
    pending = loading;
    parts.set(file, loading);
    loading.catch(() => {
      if (parts.get(file) === loading) parts.delete(file);
    });
  }
  return pending;
}

/**
 * A part from `url`, imported from `blob:` as bundles are (so the page's CSP needs nothing
 * more, whatever origin the API is on).
 */
async function importPart<T>(url: string, file: string, purpose: string): Promise<T> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`svc loader: request to ${url} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!response.ok) {
    throw new Error(
      `svc loader: GET ${url} → ${response.status}: serve ${file} (${purpose}) as the svc API does${file === LOADER_EXTRAS_FILE ? ", or from svc build's output" : ""}`,
    );
  }
  const loaded = (await importCode(await response.text())) as unknown as T & { version: string };
  // The loader lends the part its own parts: both must come from one svc.
  if (loaded.version !== __SVC_LOADER_VERSION__) {
    throw new Error(
      `svc loader: ${url} is version ${loaded.version}, this loader ${__SVC_LOADER_VERSION__}: serve both from one svc`,
    );
  }
  return loaded;
}
