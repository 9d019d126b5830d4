import {
  type ComponentMetadata,
  type ComponentName,
  DEFAULT_HYDRATE,
  type HydrateStrategy,
  InvalidPropsError,
  ISLAND_ATTRIBUTES,
  propsShapeIssue,
} from "@svc/protocol";
import { errorKindOf, inSpan, instruments, type Span } from "../telemetry.ts";
import { escapeHtml, escapeSingleQuoted } from "../util/html.ts";
import { InProcessRenderer } from "./inProcessRenderer.ts";
import type {
  Health,
  IslandSources,
  PropsValidator,
  RenderEngine,
  Rendered,
  ServerBundle,
} from "./renderEngine.ts";
import { RenderError, RenderSetupError, unmappedOf } from "./renderErrors.ts";
import { POOL_DEFAULTS, RenderPool } from "./renderPool.ts";
import { CLIENT_RENDERED } from "./renderTree.ts";

export type { IslandSource, IslandSources, ServerBundle } from "./renderEngine.ts";
export { RenderError, RenderSetupError, RenderTimeoutError } from "./renderErrors.ts";

export interface IslandOptions {
  /** When the browser hydrates it. Default: `"load"`. */
  hydrate?: HydrateStrategy;
  /** API base the browser loads the bundles from (`data-svc-api`). Default: the loader's. */
  apiBase?: string;
}

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
   * The API base pages load svc from (see `HandlerOptions.apiBase`), for the island's
   * stylesheet links and asset URLs when the island names none of its own. Default: `/api`.
   */
  apiBase?: string;
}

/** CSS for a `<style>` element: no `</style` can end it early. */
function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, "<\\/$1");
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
  readonly #apiBase: string;
  readonly #engine: RenderEngine;
  readonly #isolation: RenderIsolation;
  /**
   * Each component's props schema as first seen, by its `properties` (the schema reader's own
   * object, the same while `schema.json` is unchanged). Metadata is built anew per call, and
   * `validateProps` keeps its compiled validator per schema object: handing it the same object
   * saves compiling the schema again on every render.
   */
  readonly #schemas = new WeakMap<object, ComponentMetadata["props"]>();
  /** The container's fixed parts per bundle version (see `render`), by strategy and API base. */
  readonly #frames = new WeakMap<ServerBundle, Map<string | undefined, Map<string, Frame>>>();

  constructor(sources: IslandSources, options: IslandRendererOptions = {}) {
    this.#sources = sources;
    this.#apiBase = (options.apiBase ?? "/api").replace(/\/+$/, "");
    const timeoutMs = options.timeoutMs ?? 5000;
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
    return inSpan("svc.render", attributes, (span) =>
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
    const apiBase =
      options.apiBase === undefined ? this.#apiBase : options.apiBase.replace(/\/+$/, "");
    let rendering: Rendered | Promise<Rendered>;
    try {
      rendering = this.#engine.render({ name, props: checked, own, metadata, apiBase });
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
    // The container's parts that do not change with the props, kept per bundle version when
    // the bundle object is the handler set's own (at hand): built once, not per render.
    const frame =
      atHand?.bundle === own
        ? this.#frameOf(name, own, options, apiBase)
        : createFrame(name, own, options, apiBase);
    // The island's CSS-in-JS rules go before it, so the HTML is styled before any script runs.
    const style =
      styles === ""
        ? ""
        : `<style data-svc-styles="${escapeHtml(name)}">${styleText(styles)}</style>`;
    const escapedProps = escapeSingleQuoted(JSON.stringify(props));
    // It loaded no other component (each one loaded has its server bundle here).
    if (bundles.size === 1) {
      return `${frame.links}${style}${frame.open}${escapedProps}${frame.attributes}${frame.api}>${html}</div>`;
    }
    // Other components rendered inside: the island lists them and links their stylesheets.
    let deps: Record<string, string> | undefined;
    for (const other in loaded) {
      if (other === name) continue;
      deps ??= {};
      deps[other] = loaded[other] as string;
    }
    const list =
      deps === undefined
        ? ""
        : ` ${ISLAND_ATTRIBUTES.deps}='${escapeSingleQuoted(JSON.stringify(deps))}'`;
    const links = linksOf(name, own, bundles, loaded, apiBase);
    return `${links}${style}${frame.open}${escapedProps}${frame.attributes}${list}${frame.api}>${html}</div>`;
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

  #frameOf(name: ComponentName, own: ServerBundle, options: IslandOptions, apiBase: string): Frame {
    let byApiBase = this.#frames.get(own);
    if (byApiBase === undefined) {
      byApiBase = new Map();
      this.#frames.set(own, byApiBase);
    }
    let byStrategy = byApiBase.get(options.apiBase);
    if (byStrategy === undefined) {
      // Bounded: API bases and strategies are few (a page's own choices).
      if (byApiBase.size >= 16) byApiBase.clear();
      byStrategy = new Map();
      byApiBase.set(options.apiBase, byStrategy);
    }
    const hydrate = options.hydrate ?? DEFAULT_HYDRATE;
    let frame = byStrategy.get(hydrate);
    if (frame === undefined) {
      if (byStrategy.size >= 16) byStrategy.clear();
      frame = createFrame(name, own, options, apiBase);
      byStrategy.set(hydrate, frame);
    }
    return frame;
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
    if (render.ready === render.workers || this.#setupFailed) return { ready: true, render };
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

/** What an island's container holds besides its props, its dependencies and its HTML. */
interface Frame {
  /** The stylesheet links of the component alone (nothing else rendered inside). */
  links: string;
  /**
   * `<div` and the attributes before the props' value, up to its opening quote: a single
   * one, so the JSON's own `"` need no escaping (see `escapeSingleQuoted`).
   */
  open: string;
  /** From the props' closing quote to the strategy, inclusive. */
  attributes: string;
  /** `data-svc-api`, when the island names its API base. */
  api: string;
}

function createFrame(
  name: ComponentName,
  own: ServerBundle,
  options: IslandOptions,
  apiBase: string,
): Frame {
  const hydrate = options.hydrate ?? DEFAULT_HYDRATE;
  return {
    links: linksOf(name, own, new Map([[name, own]]), {}, apiBase),
    open: `<div ${ISLAND_ATTRIBUTES.component}="${escapeHtml(name)}" ${ISLAND_ATTRIBUTES.props}='`,
    attributes: `' ${ISLAND_ATTRIBUTES.ssr}="" ${ISLAND_ATTRIBUTES.hash}="${escapeHtml(own.hash)}" ${ISLAND_ATTRIBUTES.hydrate}="${escapeHtml(hydrate)}"`,
    api: options.apiBase === undefined ? "" : ` data-svc-api="${escapeHtml(options.apiBase)}"`,
  };
}

/**
 * The stylesheets of every component the island rendered (each file once, in the order they
 * were loaded), linked before it: the HTML is styled before any script runs, under a CSP of
 * `style-src 'self'` (the files are content-addressed: their names change with their bytes).
 */
function linksOf(
  name: ComponentName,
  own: ServerBundle,
  bundles: ReadonlyMap<string, ServerBundle>,
  loaded: Readonly<Record<string, string>>,
  apiBase: string,
): string {
  let links = "";
  if (own.stylesheets.length > 0 || bundles.size > 1) {
    const sheets = new Set<string>();
    for (const [component, bundle] of bundles) {
      if (component !== name && !Object.hasOwn(loaded, component)) continue;
      for (const sheet of bundle.stylesheets) sheets.add(sheet);
    }
    for (const sheet of sheets) {
      links += `<link rel="stylesheet" href="${escapeHtml(`${apiBase}/bundles/${sheet}`)}" data-svc-css="${escapeHtml(name)}">`;
    }
  }
  return links;
}

/** `value` when it is a whole number of at least `least` (1 by default); undefined when unset. */
function positive(option: string, value: number | undefined, least = 1): number | undefined {
  if (value === undefined) return undefined;
  if (!Number.isInteger(value) || value < least) {
    throw new TypeError(`svc: ${option} must be a whole number of at least ${least}, not ${value}`);
  }
  return value;
}
