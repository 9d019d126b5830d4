/**
 * What the island renderer asks of the part that renders: in the server's own thread
 * (`InProcessRenderer`) or in a pool of worker threads (`RenderPool`, the default).
 */
import type { ComponentMetadata, ComponentName } from "@svc/protocol";

/** What `GET {prefix}/health` says (see `Handlers.health`). */
export interface Health {
  ready: boolean;
  /** Why it is not ready (`render workers starting (1 of 2 ready)`, `shutting down`). */
  reason?: string;
  /** The render pool, with `renderIsolation: "worker"`. */
  render?: { workers: number; ready: number; running: number; queued: number };
}

/** A component's server bundle, as the handler set gives it to the renderer. */
export interface ServerBundle {
  /** The server bundle (CommonJS for Node). */
  code: Uint8Array;
  /** Its content hash: the version. */
  serverHash: string;
  /** The browser bundle's hash, which the island names for hydration. */
  hash: string;
  /**
   * The browser bundle's stylesheets, in cascade order, as paths below `bundles/`
   * (`card-3f2a9c0b1d4e.css`): the island links them.
   */
  stylesheets: readonly string[];
}

/** What an island needs of the handler set: the component's server bundle, its metadata. */
export interface IslandSources {
  serverBundle(name: ComponentName): Promise<ServerBundle>;
  metadata(name: ComponentName): Promise<ComponentMetadata>;
  /**
   * Both at once, without waiting, when they are at hand and fresh by the handler set's own
   * checks (undefined otherwise: then the two above are asked). While nothing changes, the
   * very same objects each time, so the renderer can keep what it derives from them.
   */
  atHand?(name: ComponentName): IslandSource | undefined;
  /**
   * Both at once, the long way (when not at hand): what {@link serverBundle} and
   * {@link metadata} give, found together. Without it those two are asked.
   */
  island?(name: ComponentName): Promise<IslandSource>;
  /**
   * `stack` with the frames of server bundles built without a source map
   * (`svc-server:<name>@<serverHash>.cjs:line:column`) mapped to the component's files
   * (`component://<name>/<file>:line:column`), where the handler set can still tell where
   * they came from: a render error's stack, before it becomes a `RenderError`. Without it such
   * frames are left out of the error.
   */
  mapServerStack?(stack: string): Promise<string>;
}

/** A component's server bundle and metadata (see {@link IslandSources.atHand}). */
export interface IslandSource {
  bundle: ServerBundle;
  metadata: ComponentMetadata;
}

/** Checks props against a component's `schema.json` (`@svc/react`'s `validateProps`). */
export type PropsValidator = typeof import("@svc/react").validateProps;

/** One island to render, its props checked. */
export interface RenderJob {
  name: ComponentName;
  props: Record<string, unknown>;
  own: ServerBundle;
  metadata: ComponentMetadata;
  /**
   * The URL below which browsers find the bundles and their files (`{filesRoot}/bundles/…`):
   * the API's public URL, or the build directory's in static mode. Asset URLs and stylesheet
   * links start with it.
   */
  filesRoot: string;
  /** Identifies the render to whoever watches the thread it runs in (see `renderPool.ts`). */
  id?: number;
}

/** What a render gives back. */
export interface Rendered {
  html: string;
  /** CSS-in-JS rules the render made (goober's), for a `<style>` before the island. */
  styles: string;
  /** The browser bundle hash of every component the render loaded, the island's own too. */
  loaded: Readonly<Record<string, string>>;
  /** The server bundle of every component it loaded, by name: their stylesheets are linked. */
  bundles: ReadonlyMap<string, ServerBundle>;
}

export interface RenderEngine {
  /**
   * The props validator, once what renders is ready to (peers loaded, a worker started): called
   * as a render begins, while the bundles are built.
   * @throws RenderSetupError when a package rendering needs is not installed
   */
  prepare(name: ComponentName): PropsValidator | Promise<PropsValidator>;
  /**
   * The render's result, or a promise of it when the render waits.
   * @throws RenderError, RenderTimeoutError, and what loading a nested component throws
   */
  render(job: RenderJob): Rendered | Promise<Rendered>;
  /** Stops taking renders; resolves once those in flight are done (at most `graceMs`). */
  close(graceMs?: number): Promise<void>;
}
