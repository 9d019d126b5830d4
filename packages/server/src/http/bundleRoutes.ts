/** The bundle endpoints: a bundle, a component's whole stylesheet, a bundle's files. */
import {
  BUNDLE_FILES_PATH,
  bundlePath,
  etagOf,
  LIST_PATH,
  parseBundleQuery,
  STYLESHEET_FILE,
} from "@svc/protocol";
import { ASSET_NAME, STYLESHEET_TYPE } from "../bundling/componentFiles.ts";
import { withoutStylesheetImports } from "../bundling/stylesheetImports.ts";
import { NotFoundError } from "../errors.ts";
import type { BundleResult, Handlers, Preload, StylesheetResult } from "../service/handlerTypes.ts";
import { instruments } from "../telemetry.ts";
import { etagOfBytes } from "../util/contentHash.ts";
import { decodeStaticPath } from "./fileRoutes.ts";
import { CACHE, conditional, JS_TYPE } from "./headers.ts";
import { queryOf, truncate } from "./paths.ts";
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";
export function bundleResponse(
  request: SvcRequest,
  bundle: BundleResult,
  /** The vendor files `loader.js` fetches alongside (`vendorLinks`). */
  vendor: string | undefined,
  /** When the request began (`performance.now()`), for `Server-Timing`. */
  started: number,
): SvcResponse {
  const { version, variant } = parseBundleQuery(queryOf(request.url));
  const headers: Record<string, string> = {
    "content-type": JS_TYPE,
    "cache-control": version === bundle.hash ? CACHE.immutable : CACHE.revalidate,
    etag: etagOf(bundle.hash, variant),
    // What the answer cost, as browsers' dev tools show it: from the cache, or built for it.
    "server-timing": `cache;desc=${bundle.built === true ? "miss" : "hit"}, bundle;dur=${(performance.now() - started).toFixed(1)}`,
  };
  instruments().bundleRequests.add(1, { "svc.cache": bundle.built === true ? "miss" : "hit" });
  const links = [
    bundle.preload !== undefined && bundle.preload.length > 0 ? preloadLinks(bundle.preload) : "",
    vendor ?? "",
  ].filter((link) => link !== "");
  if (links.length > 0) headers.link = links.join(", ");
  const body = variant === undefined ? bundle.code : urlVariantOf(bundle);
  return conditional(request, { status: 200, headers, body });
}

/** The `?url` form of each bundle's bytes, made once per bundle (by its bytes). */
const urlVariants = new WeakMap<Uint8Array, Uint8Array>();

function urlVariantOf(bundle: BundleResult): Uint8Array {
  let variant = urlVariants.get(bundle.code);
  if (variant === undefined) {
    const paths = (bundle.stylesheets ?? []).map((sheet) => sheet.path);
    variant = withoutStylesheetImports(bundle.code, paths);
    urlVariants.set(bundle.code, variant);
  }
  return variant;
}

/**
 * The `Link` header of a bundle that asks for other components: one `rel=modulepreload` per
 * component, relative to the bundle's own URL (`./image.js?<hash>`), so it holds under any
 * mount prefix or proxy path without knowing it.
 */

function preloadLinks(preload: readonly Preload[]): string {
  return preload
    .map(
      ({ name, hash }) => `<.${bundlePath(name, hash).slice(LIST_PATH.length)}>; rel=modulepreload`,
    )
    .join(", ");
}

/** A component's whole stylesheet: cached like its bundle (`immutable` only for `?<its hash>`). */

export function stylesheetResponse(request: SvcRequest, sheet: StylesheetResult): SvcResponse {
  const cacheControl = queryOf(request.url) === sheet.hash ? CACHE.immutable : CACHE.revalidate;
  return conditional(request, {
    status: 200,
    headers: {
      "content-type": STYLESHEET_TYPE,
      "cache-control": cacheControl,
      etag: `"${sheet.hash}"`,
    },
    body: sheet.code,
  });
}

/** A stylesheet or asset of a bundle: its name is its content, so it is immutable. */
export async function bundleFileResponse(
  handlers: Handlers,
  request: SvcRequest,
  raw: string,
): Promise<SvcResponse> {
  const path = decodeStaticPath(raw);
  const slash = path?.lastIndexOf("/") ?? -1;
  const name = path?.slice(slash + 1) ?? "";
  const valid =
    path !== undefined &&
    (slash === -1
      ? STYLESHEET_FILE.test(name)
      : path.slice(0, slash) === "assets" && ASSET_NAME.test(name));
  const file = valid ? await handlers.getBundleFile?.(path) : undefined;
  if (file === undefined) {
    throw new NotFoundError(
      `No stylesheet or asset at ${truncate(`${BUNDLE_FILES_PATH}${raw}`)}: the server holds those of the bundles it built or read lately — load the component's bundle again.`,
    );
  }
  return conditional(request, {
    status: 200,
    headers: {
      "content-type": file.contentType,
      "cache-control": CACHE.immutable,
      etag: etagOfBytes(raw),
      ...file.headers,
    },
    body: file.body,
  });
}

export function noStylesheets(path: string): NotFoundError {
  return new NotFoundError(
    `No svc endpoint at ${truncate(path)}: this handler set serves no stylesheets.`,
  );
}
