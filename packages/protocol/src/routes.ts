/**
 * The paths of the HTTP API below its mount prefix, built and parsed here and nowhere else:
 * the server routes them ({@link parseRoute}), the browser requests them.
 */
import { EVENTS_PATH } from "./events.ts";
import { STYLESHEET_FILE } from "./hashes.ts";
import { REFRESH_RUNTIME_PATH } from "./refresh.ts";

/** Where the browser reaches svc's API when nothing names it (`data-svc-api`, `apiBase`). */
export const DEFAULT_API_BASE = "/api";

/**
 * An API base as URLs are built on it: `base` (default {@link DEFAULT_API_BASE}) without
 * trailing slashes, so `${apiBase}/bundles/…` has one.
 */
export function resolveApiBase(base: string = DEFAULT_API_BASE): string {
  return base.replace(/\/+$/, "");
}

/** The listing. */
export const LIST_PATH = "/bundles";
/** The standalone loader (minified) and its development build. */
export const LOADER_FILE = "loader.js";
export const LOADER_PATH = `/${LOADER_FILE}`;
export const DEV_LOADER_FILE = "loader.dev.js";
export const DEV_LOADER_PATH = `/${DEV_LOADER_FILE}`;
/**
 * What the standalone loader fetches only for a page with an island (`data-svc-ssr`): the
 * islands' hydration strategies.
 * Served below the API prefix, and written by `svc build` beside `manifest.json` (static mode).
 */
export const LOADER_EXTRAS_FILE = "loader.extras.js";
export const LOADER_EXTRAS_PATH = `/${LOADER_EXTRAS_FILE}`;
/**
 * The standalone loader's development part, fetched only by a page that follows live reload
 * (`data-svc-live`): the live-reload client and the error overlay. Served below the API prefix
 * (a static build has no live reload, so `svc build` does not write it).
 */
export const LOADER_LIVE_FILE = "loader.live.js";
export const LOADER_LIVE_PATH = `/${LOADER_LIVE_FILE}`;
/**
 * The islands start: a small script (no React) for a page of server-rendered islands, which
 * waits for the first island whose strategy fires (`visible`, `idle`, `media:`) and only then
 * fetches the loader (React with it) from beside itself.
 */
export const ISLANDS_SCRIPT_FILE = "islands.js";
export const ISLANDS_SCRIPT_PATH = `/${ISLANDS_SCRIPT_FILE}`;
/** The ES-module loader: bundles imported by URL through an import map (no `blob:`). */
export const ESM_LOADER_PATH = "/loader.esm.js";
/** The import map's modules (`/vendor/<name>.<hash>.js`), built from the server's packages. */
export const VENDOR_PATH = "/vendor/";
/** The files of a build directory. */
export const STATIC_PATH = "/static/";
/** Readiness, for load balancers and orchestrators: 200 when ready, 503 with the reason. */
export const HEALTH_PATH = "/health";
/** A page's islands rendered in one request (`POST`, JSON). */
export const ISLANDS_PATH = "/islands";

/**
 * The query flag that asks for a bundle as `moduleLoading: "url"` imports it: without the
 * imports of its stylesheets (`import "./card-3f2a9c0b1d4e.css"`), which a browser refuses as
 * modules; the client applies them itself. The same bytes otherwise.
 */
export const URL_VARIANT = "url";

/**
 * A component's bundle, with the content hash (or another cache-buster) when known;
 * `variant: "url"` for the form imported by URL ({@link URL_VARIANT}).
 */
export function bundlePath(name: string, hash?: string, variant?: typeof URL_VARIANT): string {
  const query = [hash, variant].filter(Boolean).join("&");
  return `/bundles/${name}.js${query === "" ? "" : `?${query}`}`;
}

/**
 * The query of a bundle URL read back: the version it names (the hash, or any other
 * cache-buster; undefined when none) and whether it asks for the {@link URL_VARIANT}.
 */
export function parseBundleQuery(query: string | undefined): {
  version: string | undefined;
  variant: typeof URL_VARIANT | undefined;
} {
  if (query === undefined || query === "") return { version: undefined, variant: undefined };
  const parts = query.split("&");
  const variant = parts.includes(URL_VARIANT) ? URL_VARIANT : undefined;
  const version = variant === undefined ? query : parts.filter((p) => p !== URL_VARIANT).join("&");
  return { version: version === "" ? undefined : version, variant };
}

/** A component's metadata. */
export function metadataPath(name: string): string {
  return `/bundles/${name}/metadata`;
}

/** A component's whole stylesheet (all its CSS, in cascade order), hash as cache-buster. */
export function stylesheetPath(name: string, hash?: string): string {
  return `/bundles/${name}.css${hash ? `?${hash}` : ""}`;
}

/**
 * Where the files a bundle refers to are served, below the mount prefix: its stylesheets
 * (`/bundles/<stem>-<hash>.css`) and assets (`/bundles/assets/<name>-<hash>.<ext>`). A bundle
 * names them relative to its own URL (`./card-3f2a9c0b1d4e.css`, `./assets/logo-24WHYHIF.png`),
 * so the same bytes work from the API and from a build directory or CDN.
 */
export const BUNDLE_FILES_PATH = "/bundles/";

/** A component rendered to HTML on the server (`POST`, JSON props as the body). */
export function islandPath(name: string): string {
  return `/bundles/${name}/html`;
}

/** An endpoint of the API, as {@link parseRoute} finds it (names still percent-encoded). */
export type Route =
  | { kind: "list" }
  | { kind: "health" }
  | { kind: "islands" }
  | { kind: "bundle"; name: string }
  | { kind: "stylesheet"; name: string }
  | { kind: "file"; path: string }
  | { kind: "metadata"; name: string }
  | { kind: "island"; name: string }
  | {
      kind: "loader";
      file: "production" | "development" | "extras" | "live" | "islands" | "refresh";
    }
  | { kind: "esmLoader" }
  | { kind: "vendor"; file: string }
  | { kind: "events" }
  | { kind: "static"; path: string };

const BUNDLES = "/bundles/";
const METADATA = "/metadata";
const HTML = "/html";

/** The endpoints below `/bundles/`, by suffix. */
function bundleRoute(rest: string): Route | undefined {
  if (rest.endsWith(METADATA)) return { kind: "metadata", name: rest.slice(0, -METADATA.length) };
  if (rest.endsWith(HTML)) return { kind: "island", name: rest.slice(0, -HTML.length) };
  if (rest.endsWith(".js")) return { kind: "bundle", name: rest.slice(0, -".js".length) };
  if (rest.startsWith("assets/")) return { kind: "file", path: rest };
  // A stylesheet of a bundle is `<stem>-<hash>.css`, a shape no valid name takes.
  if (rest.endsWith(".css")) {
    return STYLESHEET_FILE.test(rest)
      ? { kind: "file", path: rest }
      : { kind: "stylesheet", name: rest.slice(0, -".css".length) };
  }
  return undefined;
}

/**
 * The endpoints whose path is fixed. A function, not a table: a browser script that imports
 * this module for a path builder leaves it out of its bundle.
 */
function fixedRoute(path: string): Route | undefined {
  switch (path) {
    case LOADER_PATH:
      return { kind: "loader", file: "production" };
    case DEV_LOADER_PATH:
      return { kind: "loader", file: "development" };
    case LOADER_EXTRAS_PATH:
      return { kind: "loader", file: "extras" };
    case LOADER_LIVE_PATH:
      return { kind: "loader", file: "live" };
    case ISLANDS_SCRIPT_PATH:
      return { kind: "loader", file: "islands" };
    case REFRESH_RUNTIME_PATH:
      return { kind: "loader", file: "refresh" };
    case ESM_LOADER_PATH:
      return { kind: "esmLoader" };
    case EVENTS_PATH:
      return { kind: "events" };
    case HEALTH_PATH:
      return { kind: "health" };
    case ISLANDS_PATH:
      return { kind: "islands" };
    default:
      return undefined;
  }
}

/**
 * The endpoint a path below the mount prefix names (without its query), or undefined: the one
 * place a path is mapped to an endpoint.
 */
export function parseRoute(path: string): Route | undefined {
  if (path === LIST_PATH || path === BUNDLES) return { kind: "list" };
  if (path.startsWith(BUNDLES)) return bundleRoute(path.slice(BUNDLES.length));
  const fixed = fixedRoute(path);
  if (fixed !== undefined) return fixed;
  if (path.startsWith(VENDOR_PATH)) return { kind: "vendor", file: path.slice(VENDOR_PATH.length) };
  if (path.startsWith(STATIC_PATH)) return { kind: "static", path: path.slice(STATIC_PATH.length) };
  return undefined;
}

/** A route's path with its variable parts named (`/bundles/{name}.js`), as spans are named. */
export function routeTemplate(route: Route | undefined, path: string): string {
  switch (route?.kind) {
    case undefined:
      return "(unknown)";
    case "list":
      return LIST_PATH;
    case "bundle":
      return `${BUNDLES}{name}.js`;
    case "stylesheet":
      return `${BUNDLES}{name}.css`;
    case "file":
      return `${BUNDLES}{file}`;
    case "metadata":
      return `${BUNDLES}{name}${METADATA}`;
    case "island":
      return `${BUNDLES}{name}${HTML}`;
    case "vendor":
      return `${VENDOR_PATH}{file}`;
    case "static":
      return `${STATIC_PATH}{path}`;
    default:
      return path;
  }
}
