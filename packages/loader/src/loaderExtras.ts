/**
 * `loader.extras.js` (extras.ts): island hydration strategies and the live-reload client,
 * fetched the first time a page has an island to hydrate or follows live reload.
 */
import { LOADER_EXTRAS_FILE, LOADER_EXTRAS_PATH } from "@svc/protocol";
import { importCode } from "@svc/runtime";
import type { Source } from "./sources.ts";

/** Set by the build from `package.json` (see build.ts). */
declare const __SVC_LOADER_VERSION__: string;
/** Set by the build: `"url"` in `loader.esm.js`, which bundles the extras in. */
declare const __SVC_MODULE_LOADING__: "blob" | "url";

/** `loader.extras.js`: island hydration strategies and the live-reload client (extras.ts). */
export type LoaderExtras = typeof import("./extras.ts");

/** The page's extras: fetched once, again after a failure. */
let extras: Promise<LoaderExtras> | undefined;

/**
 * `loader.extras.js`, fetched (once per page, again after a failure) when a page first has
 * an island to hydrate or follows live reload: from `source`'s API, or in static mode from
 * beside the manifest. `loader.esm.js` has it bundled in.
 */
export function extrasFor(source: Source): Promise<LoaderExtras> {
  if (extras === undefined) {
    const pending =
      __SVC_MODULE_LOADING__ === "url"
        ? // `.js`: a consumer's type check reaches this file, and may not allow `.ts` here.
          import("./extras.js")
        : importExtras(
            source.client.manifestUrl === undefined
              ? `${source.client.apiBase}${LOADER_EXTRAS_PATH}`
              : new URL(LOADER_EXTRAS_FILE, new URL(source.client.manifestUrl, document.baseURI))
                  .href,
          );
    extras = pending;
    pending.catch(() => {
      if (extras === pending) extras = undefined;
    });
  }
  return extras;
}

/**
 * `loader.extras.js` from `url`, imported from `blob:` as bundles are (so the page's CSP needs
 * nothing more, whatever origin the API is on).
 */
async function importExtras(url: string): Promise<LoaderExtras> {
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
      `svc loader: GET ${url} → ${response.status}: serve ${LOADER_EXTRAS_FILE} (islands, live reload) as the svc API does, or from svc build's output`,
    );
  }
  const loaded = (await importCode(await response.text())) as unknown as LoaderExtras;
  // The loader lends the extras its own parts: both must come from one svc.
  if (loaded.version !== __SVC_LOADER_VERSION__) {
    throw new Error(
      `svc loader: ${url} is version ${loaded.version}, this loader ${__SVC_LOADER_VERSION__}: serve both from one svc`,
    );
  }
  return loaded;
}
