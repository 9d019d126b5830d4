import type { BundleOptions, Bundler } from "../bundling/bundler.ts";
import type { Logger } from "../logger.ts";
import type { RenderIsolation } from "../ssr/islandRenderer.ts";

export interface HandlerOptions {
  /** Bundles components on request. Default: esbuild, in-process. */
  bundler?: Bundler;
  /**
   * Options for live bundles. Default: not minified, inline source maps, development, with
   * React Fast Refresh registrations (`refresh: false` leaves them out; a bridge leaves them
   * out when it has no live reload, as no page could get a new version to refresh).
   */
  bundleOptions?: BundleOptions;
  /** Upper bound on cached bundle bytes (LRU). Default: 256 MiB. */
  cacheMaxBytes?: number;
  /**
   * How long one build may take before its request is answered with a `BundleError` (an import
   * of a FIFO, a plugin that hangs). Default: 30 000 ms.
   */
  buildTimeoutMs?: number;
  /**
   * Keep the registry current without a restart: a listing re-scans the sources (without
   * blocking the event loop), an unknown name is looked up on disk (a stat per source), and a
   * component is re-checked before it is built again. Default: true.
   */
  autoRefresh?: boolean;
  /**
   * Let directory watches vouch for a cached bundle, and for a build directory's
   * `manifest.json`, between stat checks (Linux, local file systems; see docs/DECISIONS.md):
   * a warm bundle is then answered without a stat. False: every check stats the files, once
   * per turn of the event loop. Default: true.
   */
  watchFiles?: boolean;
  /**
   * Directory written by `svc build`. Components its `manifest.json` lists are served from
   * its files (read once, kept in memory); others fall back to live bundling. The manifest is
   * read at once, so a missing or malformed one throws here. Default: none (see
   * `resolveBuildDir` for the `SVC_BUILD_DIR` convention).
   */
  buildDir?: string;
  /**
   * Production static mode: `getBundle` rejects with `StaticModeError` (HTTP 404), because
   * clients fetch bundles as static files named by the manifest; `getMetadata` still answers,
   * with the manifest's hash. Default: false.
   */
  staticMode?: boolean;
  /**
   * How long rendering one island on the server may take before it fails with
   * `RenderTimeout` (HTTP 500). Default: 5000 ms.
   */
  renderTimeoutMs?: number;
  /**
   * Where islands render. `"worker"`: in a pool of worker threads — every core renders, and a
   * component that loops or exhausts memory loses its worker (replaced at once), never the
   * server; a render's time counts from when a worker takes it up. `"none"`: in the server's
   * own thread, sharing its React — the lowest latency, for components you trust: a render
   * that waits past `renderTimeoutMs` is aborted, but one stuck in a synchronous loop blocks
   * the server. Default: `"worker"`.
   */
  renderIsolation?: RenderIsolation;
  /** Workers in the render pool. Default: the cores the process may use (`availableParallelism`). */
  renderWorkers?: number;
  /**
   * Renders that may wait for a free worker; past that a render fails at once with
   * `Overloaded` (503, `Retry-After`), so latency never grows without bound. Default: 1024.
   */
  renderQueue?: number;
  /**
   * Each render worker's heap limit, in MiB: a component that allocates without bound fails
   * with `RenderError` ("out of memory") and its worker is replaced. Default: 512.
   */
  renderMemoryMb?: number;
  /**
   * A render worker is replaced once the component versions replaced in it (edits, new
   * builds) add up to this many bytes of code. Default: 16 MiB.
   */
  renderRecycleBytes?: number;
  /**
   * The URL at which browsers reach this API — its prefix as a page sees it:
   * `http://127.0.0.1:8000/api` when svc runs on another origin than the pages,
   * `https://shop.example/svc` (or just `/svc`) behind a proxy that maps `/svc/` to svc's
   * `/api/`. Every URL svc writes for a browser starts with it: an island names it
   * (`data-svc-api`, so the loader on any page finds svc), its stylesheet links and its
   * components' asset URLs start with it (in static mode with `staticUrl`). An island's own
   * `apiBase` overrides it. Default: `/api`, and islands name none (the loader's default).
   */
  publicUrl?: string;
  /** @deprecated The same as `publicUrl` (its old name). */
  apiBase?: string;
  /**
   * Static mode: where browsers reach the build directory (`buildDir`) — `manifest.json` and
   * `bundles/`. Islands name its manifest (`data-svc-manifest`), and their stylesheet links
   * and asset URLs are the build's files, as the browser bundle makes them. Default:
   * `{publicUrl}/static` (the API serves the build there); a CDN's URL when the build is
   * uploaded to one.
   */
  staticUrl?: string;
  logger?: Logger;
}
