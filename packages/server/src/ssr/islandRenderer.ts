import {
  type ComponentMetadata,
  type ComponentName,
  InvalidPropsError,
  parseHydrate,
  propsShapeIssue,
} from "@svc/protocol";
import { consoleLogger, type Logger } from "../logger.ts";
import { errorKindOf, inSpan, instruments, type Span } from "../telemetry.ts";
import { InProcessRenderer } from "./inProcessRenderer.ts";
import { IslandMarkup } from "./islandMarkup.ts";
import type { IslandOptions } from "./islandOptions.ts";
import { CLIENT_RENDERED } from "./reactInterop.ts";
import type {
  Health,
  IslandSources,
  PropsValidator,
  RenderEngine,
  Rendered,
  ServerBundle,
} from "./renderEngine.ts";
import { RenderError, RenderSetupError, RenderTimeoutError, unmappedOf } from "./renderErrors.ts";
import { RenderPool } from "./renderPool.ts";
import { POOL_DEFAULTS } from "./renderPoolOptions.ts";

export type { IslandOptions } from "./islandOptions.ts";
export type { IslandSource, IslandSources, ServerBundle } from "./renderEngine.ts";
export { RenderError, RenderSetupError, RenderTimeoutError } from "./renderErrors.ts";

/** What `fallback: "client"` stands in for (a render's own failures, not the caller's). */
const FALLBACK_KINDS = new Set(["RenderError", "RenderTimeout", "Overloaded"]);

/**
 * Where islands render: `"worker"`, in a pool of worker threads (every core renders; a
 * component that loops or exhausts memory loses its worker, not the server); `"none"`, in the
 * server's own thread (the lowest latency, for components you trust).
 */
export type RenderIsolation = "none" | "worker";

export interface IslandRendererOptions {
  /** How long one render may take before it fails with `RenderTimeout`. Default: 5000 ms. */
  timeoutMs?: number;
  /** Where islands render. Default: `"worker"`, in a pool of worker threads. */
  isolation?: RenderIsolation;
  /** With `isolation: "worker"`: how many workers. Default: the cores the process may use. */
  workers?: number;
  /**
   * With `isolation: "worker"`: how many renders may wait for a worker; past that, a render
   * fails at once with `Overloaded` (503, `Retry-After`). Default: 1024.
   */
  queueLimit?: number;
  /** With `isolation: "worker"`: each worker's heap limit, in MiB. Default: 512. */
  memoryMb?: number;
  /**
   * With `isolation: "worker"`: a worker is replaced once the versions replaced in it (a
   * component edited, a new build) add up to this many bytes of code. Default: 16 MiB.
   */
  recycleBytes?: number;
  /**
   * The URL at which browsers reach svc's API (`HandlerOptions.publicUrl`): the island's
   * stylesheet links and asset URLs start with it (in static mode, with `staticUrl`), and an
   * island names it (`data-svc-api`) when it was given. Default: `/api`, named by no island.
   */
  publicUrl?: string;
  /**
   * Static mode: where browsers reach the build directory (its `manifest.json` and
   * `bundles/`). Each island names its manifest (`data-svc-manifest`), and its files' URLs
   * are the build's, as the browser bundle loaded through that manifest makes them.
   */
  staticUrl?: string;
  /** Where a fallback's error is logged. Default: the console. */
  logger?: Logger;
}

/**
 * Renders components to islands: the container `@svc/loader` and `@svc/react` hydrate, with
 * the server-rendered HTML inside. The tree is the one the browser hydrates —
 * `<SvcProvider><ServerComponent name props /></SvcProvider>` (see `renderTree.ts`) — so
 * `useComponent` works: a nested component's server bundle is loaded and rendered too, and the
 * island lists it (with its hash) so the browser fetches every bundle it needs at once before
 * hydrating. It renders in the server's own thread (`InProcessRenderer`), or in a worker
 * thread with `isolation: "worker"` (`WorkerRenderer`).
 */
export class IslandRenderer {
  readonly #sources: IslandSources;
  readonly #markup: IslandMarkup;
  readonly #logger: Logger;
  readonly #engine: RenderEngine;
  readonly #timeoutMs: number;
  readonly #isolation: RenderIsolation;
  /**
   * Each component's props schema as first seen, by its `properties` (the schema reader's own
   * object, the same while `schema.json` is unchanged). Metadata is built anew per call, and
   * `validateProps` keeps its compiled validator per schema object: handing it the same object
   * saves compiling the schema again on every render.
   */
  readonly #schemas = new WeakMap<object, ComponentMetadata["props"]>();

  constructor(sources: IslandSources, options: IslandRendererOptions = {}) {
    this.#sources = sources;
    this.#markup = new IslandMarkup(options.publicUrl, options.staticUrl);
    this.#logger = options.logger ?? consoleLogger;
    const timeoutMs = options.timeoutMs ?? 5000;
    this.#timeoutMs = timeoutMs;
    const isolation = options.isolation ?? "worker";
    if (isolation !== "none" && isolation !== "worker") {
      throw new TypeError(
        `svc: renderIsolation must be "worker" or "none", not ${JSON.stringify(isolation)}`,
      );
    }
    this.#isolation = isolation;
    this.#engine =
      isolation === "worker"
        ? new RenderPool(sources, {
            timeoutMs,
            size: positive("renderWorkers", options.workers) ?? POOL_DEFAULTS.size(),
            queueLimit: positive("renderQueue", options.queueLimit, 0) ?? POOL_DEFAULTS.queueLimit,
            memoryMb: positive("renderMemoryMb", options.memoryMb) ?? POOL_DEFAULTS.memoryMb,
            recycleBytes: options.recycleBytes ?? POOL_DEFAULTS.recycleBytes,
          })
        : new InProcessRenderer(sources, { timeoutMs });
  }

  /**
   * The island of `name` with `props`. A warm render — both bundles and the schema at hand and
   * fresh, nothing to wait for in the render — runs start to end without awaiting anything;
   * or, asked for together with others (`Promise.all` of a page's islands), waits only for the
   * end of that burst of calls, to be rendered with them in one batch (`InProcessRenderer`).
   * @throws InvalidPropsError (props not an object, or failing `schema.json`), RenderError,
   * RenderTimeoutError, and what loading the component throws (not found, bundle error)
   */
  render(name: ComponentName, props: unknown, options: IslandOptions = {}): Promise<string> {
    const started = performance.now();
    const attributes = { "svc.component": name, "svc.isolation": this.#isolation };
    const rendering = inSpan("svc.render", attributes, (span) =>
      this.#render(name, props, options, span).then(
        (html) => {
          instruments().renderDuration.record(performance.now() - started, {
            "svc.component": name,
            "svc.outcome": "ok",
          });
          return html;
        },
        (error: unknown) => {
          instruments().renderDuration.record(performance.now() - started, {
            "svc.component": name,
            "svc.outcome": errorKindOf(error),
          });
          throw error;
        },
      ),
    );
    if (options.fallback !== "client") return rendering;
    return rendering.catch((error: unknown) => {
      if (!FALLBACK_KINDS.has(errorKindOf(error))) throw error;
      return this.#fallback(name, props, options, error);
    });
  }

  /**
   * Several islands, asked for together (so rendered in one batch where they can), within one
   * time limit for them all: each one's HTML or error, in order. An item's `options` may throw
   * (a bad name or strategy): that is its error, and it is not rendered.
   */
  async renderMany(
    items: readonly { name: string; props: unknown; options?: () => IslandOptions }[],
  ): Promise<({ html: string } | { error: unknown })[]> {
    let timer: NodeJS.Timeout | undefined;
    const expired = new Promise<"expired">((resolve) => {
      timer = setTimeout(() => resolve("expired"), this.#timeoutMs);
    });
    // Started in one burst of calls: the renders that may are batched.
    const started = items.map((item) => {
      let options: IslandOptions = {};
      try {
        options = item.options?.() ?? {};
        const result = this.render(item.name as ComponentName, item.props, options).then(
          (html) => ({ html }),
          (error: unknown) => ({ error }),
        );
        return { options, result };
      } catch (error) {
        return { options, result: Promise.resolve({ error }) };
      }
    });
    try {
      return await Promise.all(
        started.map(({ options, result }, index) =>
          Promise.race([result, expired]).then((settled) => {
            if (settled !== "expired") return settled;
            // Past the batch's time: as a render of its own past its limit would end.
            const name = (items[index] as { name: string }).name as ComponentName;
            const error = new RenderTimeoutError(name, this.#timeoutMs);
            if (options.fallback !== "client") return { error };
            return { html: this.#fallback(name, items[index]?.props, options, error) };
          }),
        ),
      );
    } finally {
      clearTimeout(timer);
    }
  }

  /** The container the browser renders itself, for a render that failed with `error`. */
  #fallback(name: ComponentName, props: unknown, options: IslandOptions, error: unknown): string {
    const kind = errorKindOf(error);
    this.#logger.error(
      `svc: island "${name}" could not be rendered on the server (${kind}); the browser renders it instead`,
      error,
    );
    const own = this.#sources.atHand?.(name)?.bundle;
    return this.#markup.fallback(name, own, props as Record<string, unknown>, options, kind);
  }

  async #render(
    name: ComponentName,
    props: unknown,
    options: IslandOptions,
    span: Span,
  ): Promise<string> {
    if (typeof props !== "object" || props === null || Array.isArray(props)) {
      throw new InvalidPropsError(name, "props must be a JSON object", { malformed: true });
    }
    if (options.hydrate !== undefined && parseHydrate(options.hydrate) === undefined) {
      throw new InvalidPropsError(
        name,
        `hydrate: ${JSON.stringify(String(options.hydrate).slice(0, 60))} is no strategy: use load, idle, visible, visible:<margin>, interaction, none or media:(<query>)`,
        { malformed: true },
      );
    }
    // Before anything runs: props that cannot cross to the browser as JSON, or that React
    // cannot pass as they are, whatever the schema says (see `propsShapeIssue`).
    const shape = propsShapeIssue(props);
    if (shape !== undefined) {
      throw new InvalidPropsError(name, `${shape.prop ? `${shape.prop}: ` : ""}${shape.message}`, {
        malformed: shape.keyword === "depth",
      });
    }
    const atHand = this.#sources.atHand?.(name);
    const ready = this.#engine.prepare(name);
    let own: ServerBundle;
    let metadata: ComponentMetadata;
    let validate: PropsValidator;
    if (atHand !== undefined && !(ready instanceof Promise)) {
      own = atHand.bundle;
      metadata = atHand.metadata;
      validate = ready;
    } else {
      const sources = this.#sources;
      const source =
        sources.island?.(name) ??
        Promise.all([sources.serverBundle(name), sources.metadata(name)]).then(
          ([bundle, metadata]) => ({ bundle, metadata }),
        );
      [{ bundle: own, metadata }, validate] = await Promise.all([source, ready]);
    }
    span.setAttribute("svc.hash", own.hash);
    const checked = props as Record<string, unknown>;
    // Metadata at hand is the same object while unchanged, its schema too.
    const schema = atHand?.metadata === metadata ? metadata.props : this.#schemaOf(metadata);
    const issues = validate(schema, checked);
    if (issues.length > 0) {
      throw new InvalidPropsError(
        name,
        issues.map((i) => (i.prop ? `${i.prop}: ${i.message}` : i.message)).join("; "),
      );
    }
    const bases = this.#markup.bases(options);
    const { filesRoot } = bases;
    let rendering: Rendered | Promise<Rendered>;
    try {
      rendering = this.#engine.render({ name, props: checked, own, metadata, filesRoot });
    } catch (error) {
      throw await this.#mapped(error);
    }
    const { html, styles, loaded, bundles } =
      rendering instanceof Promise
        ? await rendering.catch(async (error: unknown) => {
            throw await this.#mapped(error);
          })
        : rendering;
    // Every path waits for the component's own boundaries or fails (see `renderTree`); one left
    // to the browser would carry React's account of why — the server's message and stack —
    // into the page, so none ever goes out.
    if (CLIENT_RENDERED.test(html)) {
      throw new RenderError(
        name,
        "a Suspense boundary was left unfinished on the server",
        undefined,
      );
    }
    return this.#markup.island(
      name,
      own,
      checked,
      options,
      bases,
      { html, styles, loaded, bundles },
      atHand?.bundle === own,
    );
  }

  /**
   * `error`, or — a `RenderError` whose stack has frames of server bundles built without a
   * source map — the same error made again with those frames mapped by the handler set.
   */
  async #mapped(error: unknown): Promise<unknown> {
    const parts = unmappedOf(error);
    if (parts === undefined || this.#sources.mapServerStack === undefined) return error;
    let stack: string;
    try {
      stack = await this.#sources.mapServerStack(parts.stack);
    } catch {
      return error; // the frames stay out, as before
    }
    return new RenderError(parts.name, parts.message, stack, parts.cause);
  }

  #schemaOf(metadata: ComponentMetadata): ComponentMetadata["props"] {
    const { props, properties } = metadata;
    if (properties === null || typeof properties !== "object") return props;
    const known = this.#schemas.get(properties);
    const required = (props as { required?: string[] }).required ?? [];
    const knownRequired = (known as { required?: string[] } | undefined)?.required ?? [];
    if (
      known !== undefined &&
      required.length === knownRequired.length &&
      required.every((name, i) => name === knownRequired[i])
    ) {
      return known;
    }
    this.#schemas.set(properties, props);
    return props;
  }

  /**
   * Stops taking renders, lets those in flight finish (at most `graceMs`, default 10 s), and
   * stops the render workers.
   */
  close(graceMs?: number): Promise<void> {
    return this.#engine.close(graceMs);
  }

  /** Starts the render workers and resolves once they are ready (see `RenderPool.ready`). */
  async warm(): Promise<void> {
    if (this.#engine instanceof RenderPool) await this.#engine.ready();
  }

  /**
   * Whether islands can render now: always in the server's thread; in the pool, once every
   * worker has started (asking starts them). A server without React installed is ready:
   * it serves bundles, and each render says what to install.
   */
  health(): Health {
    const pool = this.#engine instanceof RenderPool ? this.#engine : undefined;
    if (pool === undefined) return { ready: true };
    const render = pool.stats();
    // One worker up is enough to render: a worker being replaced takes no instance out.
    if (render.ready > 0 || this.#setupFailed) return { ready: true, render };
    this.#warming ??= pool.ready().then(
      () => {
        this.#warming = undefined;
      },
      (error: unknown) => {
        this.#warming = undefined;
        if (error instanceof RenderSetupError) this.#setupFailed = true;
      },
    );
    return {
      ready: false,
      reason: `render workers starting (${render.ready} of ${render.workers} ready)`,
      render,
    };
  }

  #warming: Promise<void> | undefined;
  #setupFailed = false;

  /** The render pool (undefined with `isolation: "none"`). */
  get pool(): RenderPool | undefined {
    return this.#engine instanceof RenderPool ? this.#engine : undefined;
  }
}

/** `value` when it is a whole number of at least `least` (1 by default); undefined when unset. */
function positive(option: string, value: number | undefined, least = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < least) {
    throw new TypeError(`svc: ${option} must be a whole number of at least ${least}, not ${value}`);
  }
  return value;
}
