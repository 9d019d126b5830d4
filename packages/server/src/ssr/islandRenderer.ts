import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import {
  type ComponentMetadata,
  type ComponentName,
  DEFAULT_HYDRATE,
  type HydrateStrategy,
  InvalidPropsError,
  ISLAND_ATTRIBUTES,
  SvcError,
} from "@svc/protocol";
import { escapeHtml } from "../util/html.ts";
import { requirePeer } from "../util/peer.ts";
import {
  type FromWorker,
  type ModuleVersion,
  RENDER_PEERS,
  type ToWorker,
} from "./renderProtocol.ts";

export interface IslandOptions {
  /** When the browser hydrates it. Default: `"load"`. */
  hydrate?: HydrateStrategy;
  /** API base the browser loads the bundles from (`data-svc-api`). Default: the loader's. */
  apiBase?: string;
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
}

export interface IslandRendererOptions {
  /** How long one render may take before it fails with `RenderTimeout`. Default: 5000 ms. */
  timeoutMs?: number;
  /**
   * The render worker is replaced once the versions replaced in it (a component edited, a new
   * build) add up to this many bytes of code, which its isolate keeps. Default: 16 MiB.
   */
  recycleBytes?: number;
  /**
   * The API base pages load svc from (see `HandlerOptions.apiBase`), for the island's
   * stylesheet links and asset URLs when the island names none of its own. Default: `/api`.
   */
  apiBase?: string;
}

/** The component threw while it rendered on the server. */
export class RenderError extends SvcError {
  constructor(name: string, message: string, stack: string | undefined, cause?: unknown) {
    // Only frames in the component's own files: nothing of the machine's layout.
    const frames = (stack ?? "")
      .split("\n")
      .filter((line) => line.includes("component://"))
      .join("\n");
    super(
      "RenderError",
      `Component "${name}" threw while rendering on the server: ${message}${frames ? `\n${frames}` : ""}`,
      {
        component: name,
        cause,
      },
    );
    this.name = "RenderError";
  }
}

/**
 * Rendering on the server cannot start: a package it needs is not installed. A `RenderError`
 * (500) whose message is the one line that says what to install.
 */
export class RenderSetupError extends SvcError {
  constructor(name: string, message: string, cause?: unknown) {
    super("RenderError", message, { component: name, cause });
    this.name = "RenderSetupError";
  }
}

export class RenderTimeoutError extends SvcError {
  constructor(name: string, ms: number) {
    super(
      "RenderTimeout",
      `Component "${name}" did not finish rendering on the server within ${ms / 1000} s — does it wait on something that never comes?`,
      { component: name },
    );
    this.name = "RenderTimeoutError";
  }
}

/** CSS for a `<style>` element: no `</style` can end it early. */
function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, "<\\/$1");
}

/** What a render in the worker gives back. */
interface Rendered {
  html: string;
  styles: string;
  loaded: Record<string, string>;
}

/** A render sent to a worker and not answered yet. */
interface InFlight {
  name: ComponentName;
  props: Record<string, unknown>;
  own: ServerBundle;
  metadata: ComponentMetadata;
  /** The API base its asset URLs and stylesheet links start with. */
  apiBase: string;
  /** Every component the worker loaded for it, its own first: their stylesheets are linked. */
  bundles: Map<string, ServerBundle>;
  thread: RenderThread;
  /** What the handler set refused the worker's requests with, by request: rethrown as it is. */
  refusals: Map<number, unknown>;
  /** Sent again once already, after a worker stopped for another render's sake. */
  retried: boolean;
  /** The worker took it up. */
  started: boolean;
  /** Its time ran out; what happens to it waits on whether the worker still answers. */
  expired: boolean;
  timer: NodeJS.Timeout | undefined;
  resolve(rendered: Rendered): void;
  reject(error: unknown): void;
}

const WORKER = new URL(
  `./renderWorker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);
/** How long a worker may take to answer a ping after a render timed out before it is stopped. */
const PING_MS = 1000;

/** One render worker and what the server's thread knows of it. */
class RenderThread {
  readonly worker: Worker;
  /** The version of each component the worker has, and its size. */
  readonly versions = new Map<string, { serverHash: string; bytes: number }>();
  /** Bytes of code of the versions replaced in it: what its isolate holds on to in vain. */
  replacedBytes = 0;
  readonly renders = new Set<InFlight>();
  /** A ping is out: whether the worker still answers, or is stuck in a component's loop. */
  checking = false;
  /** Called when the ping is answered. */
  answered: (() => void) | undefined;
  retired = false;
  stopped = false;
  /** The worker has loaded its peers: before, its renders' time does not run out. */
  ready = false;
  /** Messages of this turn, posted together once it ends (see `renderProtocol.ts`). */
  #outbox: ToWorker[] = [];

  constructor() {
    // From the sources (tests, `--conditions=source`), the worker resolves svc's packages
    // to their sources too.
    // (Node's own options are inherited; not all of them may be passed on explicitly.)
    const execArgv = WORKER.pathname.endsWith(".ts") ? ["--conditions=source"] : undefined;
    this.worker = new Worker(fileURLToPath(WORKER), { execArgv });
    this.worker.unref();
  }

  send(message: ToWorker): void {
    if (this.#outbox.push(message) === 1) queueMicrotask(() => this.#flush());
  }

  #flush(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    if (!this.stopped) this.worker.postMessage(batch);
  }

  /** `bundle` of `name` as the worker gets it: without the code when it has this version. */
  version(name: string, bundle: ServerBundle): ModuleVersion {
    const known = this.versions.get(name);
    const module: ModuleVersion = { name, serverHash: bundle.serverHash, hash: bundle.hash };
    if (known?.serverHash === bundle.serverHash) return module;
    if (known !== undefined) this.replacedBytes += known.bytes;
    this.versions.set(name, { serverHash: bundle.serverHash, bytes: bundle.code.byteLength });
    module.code = Buffer.from(bundle.code).toString("utf8");
    return module;
  }

  track(render: InFlight): void {
    if (this.renders.size === 0) this.worker.ref();
    this.renders.add(render);
  }

  untrack(render: InFlight): void {
    this.renders.delete(render);
    if (this.renders.size > 0) return;
    this.worker.unref();
    if (this.retired) this.stop();
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    void this.worker.terminate();
  }
}

/**
 * Renders components to islands: the container `@svc/loader` and `@svc/react` hydrate, with
 * the server-rendered HTML inside. The tree is the one the browser hydrates —
 * `<SvcProvider><ServerComponent name props /></SvcProvider>` — rendered with React's
 * `prerender` in a worker thread (see `renderWorker.ts`), so `useComponent` works: a nested
 * component's server bundle is loaded and rendered too, and the island lists it (with its
 * hash) so the browser fetches every bundle it needs at once before hydrating.
 *
 * The worker is replaced once the versions replaced in it reach `recycleBytes`, so memory
 * stays bounded across any number of edits; a render that overruns the time limit is aborted,
 * and a worker that does not answer then (a component stuck in a loop) is stopped.
 */
export class IslandRenderer {
  readonly #sources: IslandSources;
  readonly #timeoutMs: number;
  readonly #recycleBytes: number;
  readonly #apiBase: string;
  #thread: RenderThread | undefined;
  #nextId = 1;
  readonly #renders = new Map<number, InFlight>();
  #validate: typeof import("@svc/react").validateProps | undefined;

  constructor(sources: IslandSources, options: IslandRendererOptions = {}) {
    this.#sources = sources;
    this.#timeoutMs = options.timeoutMs ?? 5000;
    this.#recycleBytes = options.recycleBytes ?? 16 * 1024 * 1024;
    this.#apiBase = options.apiBase ?? "/api";
  }

  /**
   * The island of `name` with `props`.
   * @throws InvalidPropsError (props not an object, or failing `schema.json`), RenderError,
   * RenderTimeoutError, and what loading the component throws (not found, bundle error)
   */
  async render(name: ComponentName, props: unknown, options: IslandOptions = {}): Promise<string> {
    if (typeof props !== "object" || props === null || Array.isArray(props)) {
      throw new InvalidPropsError(name, "props must be a JSON object", { malformed: true });
    }
    // A new worker starts while the bundles are built.
    this.#current();
    const [own, metadata, validate] = await Promise.all([
      this.#sources.serverBundle(name),
      this.#sources.metadata(name),
      this.#validator(name),
    ]);
    const issues = validate(metadata.props, props as Record<string, unknown>);
    if (issues.length > 0) {
      throw new InvalidPropsError(
        name,
        issues.map((i) => (i.prop ? `${i.prop}: ${i.message}` : i.message)).join("; "),
      );
    }
    const apiBase = (options.apiBase ?? this.#apiBase).replace(/\/+$/, "");
    const bundles = new Map([[name as string, own]]);
    const { html, styles, loaded } = await new Promise<Rendered>((resolve, reject) => {
      this.#dispatch({
        name,
        props: props as Record<string, unknown>,
        own,
        metadata,
        apiBase,
        bundles,
        thread: undefined as unknown as RenderThread,
        refusals: new Map(),
        retried: false,
        started: false,
        expired: false,
        timer: undefined,
        resolve,
        reject,
      });
    });

    const deps: Record<string, string> = {};
    for (const [other, hash] of Object.entries(loaded)) if (other !== name) deps[other] = hash;
    const attributes: [string, string][] = [
      [ISLAND_ATTRIBUTES.component, name],
      [ISLAND_ATTRIBUTES.props, JSON.stringify(props)],
      [ISLAND_ATTRIBUTES.ssr, ""],
      [ISLAND_ATTRIBUTES.hash, own.hash],
      [ISLAND_ATTRIBUTES.hydrate, options.hydrate ?? DEFAULT_HYDRATE],
    ];
    if (Object.keys(deps).length > 0) {
      attributes.push([ISLAND_ATTRIBUTES.deps, JSON.stringify(deps)]);
    }
    if (options.apiBase !== undefined) attributes.push(["data-svc-api", options.apiBase]);
    const open = attributes.map(([key, value]) => ` ${key}="${escapeHtml(value)}"`).join("");
    // The island's CSS-in-JS rules go before it, so the HTML is styled before any script runs.
    const style =
      styles === ""
        ? ""
        : `<style data-svc-styles="${escapeHtml(name)}">${styleText(styles)}</style>`;
    // The stylesheets of every component it rendered (each file once, in the order they were
    // loaded), linked before it: the HTML is styled before any script runs, under a CSP of
    // `style-src 'self'` (the files are content-addressed: their names change with their bytes).
    const sheets = new Set<string>();
    for (const [component, bundle] of bundles) {
      if (component !== name && !Object.hasOwn(loaded, component)) continue;
      for (const sheet of bundle.stylesheets) sheets.add(sheet);
    }
    const links = [...sheets]
      .map(
        (sheet) =>
          `<link rel="stylesheet" href="${escapeHtml(`${apiBase}/bundles/${sheet}`)}" data-svc-css="${escapeHtml(name)}">`,
      )
      .join("");
    return `${links}${style}<div${open}>${html}</div>`;
  }

  /** Stops the render worker (a new one starts with the next render). */
  close(): Promise<void> {
    const thread = this.#thread;
    this.#thread = undefined;
    if (thread === undefined) return Promise.resolve();
    thread.retired = true;
    if (thread.renders.size === 0) thread.stop();
    return Promise.resolve();
  }

  async #validator(name: ComponentName) {
    if (this.#validate === undefined) {
      const svc = await import("@svc/react").catch((error: unknown) => {
        // The one-line "install …" message, not a resolution error.
        try {
          requirePeer("@svc/react", "server-side rendering", RENDER_PEERS);
        } catch (missing) {
          throw new RenderSetupError(name, (missing as Error).message, error);
        }
        throw error;
      });
      this.#validate = svc.validateProps;
    }
    return this.#validate;
  }

  /** The worker renders go to: the current one, or a new one. */
  #current(): RenderThread {
    if (this.#thread === undefined || this.#thread.stopped) {
      const thread = new RenderThread();
      thread.worker.on("message", (batch: FromWorker[]) => {
        for (const message of batch) this.#receive(thread, message);
      });
      thread.worker.on("error", (error) => this.#lost(thread, error));
      thread.worker.on("exit", () => this.#lost(thread, undefined));
      this.#thread = thread;
    }
    return this.#thread;
  }

  #dispatch(render: InFlight): void {
    const thread = this.#current();
    const id = this.#nextId++;
    render.thread = thread;
    render.started = false;
    render.expired = false;
    this.#renders.set(id, render);
    thread.track(render);
    thread.send({
      type: "render",
      id,
      props: render.props,
      apiBase: render.apiBase,
      module: thread.version(render.name, render.own),
      metadata: render.metadata,
    });
    this.#recycleIfFull(thread);
    render.timer = setTimeout(() => this.#expired(id, render), this.#timeoutMs);
  }

  /** Retires `thread` once the versions replaced in it are too many: new renders get a new one. */
  #recycleIfFull(thread: RenderThread): void {
    if (thread.replacedBytes < this.#recycleBytes || thread.retired) return;
    thread.retired = true;
    if (this.#thread === thread) this.#thread = undefined;
    if (thread.renders.size === 0) thread.stop();
    // Its successor starts now, so it is ready by the next render.
    this.#current();
  }

  #settle(id: number): InFlight | undefined {
    const render = this.#renders.get(id);
    if (render === undefined) return undefined;
    this.#renders.delete(id);
    clearTimeout(render.timer);
    render.thread.untrack(render);
    return render;
  }

  #receive(thread: RenderThread, message: FromWorker): void {
    switch (message.type) {
      case "rendered":
        this.#settle(message.id)?.resolve(message);
        return;
      case "failed": {
        const render = this.#settle(message.id);
        if (render === undefined) return;
        const { failure } = message;
        if ("refused" in failure) render.reject(render.refusals.get(failure.refused));
        else if ("setup" in failure)
          render.reject(new RenderSetupError(render.name, failure.setup));
        else render.reject(new RenderError(failure.component, failure.message, failure.stack));
        return;
      }
      case "started": {
        const render = this.#renders.get(message.id);
        if (render !== undefined) render.started = true;
        return;
      }
      case "pong":
        this.#answered(thread);
        return;
      case "ready":
        thread.ready = true;
        return;
      case "load":
      case "loadMetadata":
        void this.#answer(thread, message);
    }
  }

  /** Answers a worker's request for a component's server bundle or metadata. */
  async #answer(
    thread: RenderThread,
    message: Extract<FromWorker, { type: "load" | "loadMetadata" }>,
  ): Promise<void> {
    const { request } = message;
    const name = message.name as ComponentName;
    try {
      if (message.type === "load") {
        const bundle = await this.#sources.serverBundle(name);
        this.#renders.get(message.render)?.bundles.set(name, bundle);
        thread.send({ type: "module", request, module: thread.version(name, bundle) });
        this.#recycleIfFull(thread);
      } else {
        const metadata = await this.#sources.metadata(name);
        thread.send({ type: "metadata", request, metadata });
      }
    } catch (error) {
      this.#renders.get(message.render)?.refusals.set(request, error);
      thread.send({ type: "refused", request, message: (error as Error).message });
    }
  }

  /**
   * A render's time ran out. Whether the worker still answers decides what that means (see
   * {@link IslandRenderer.#answered} and {@link IslandRenderer.#stuck}): it is pinged.
   */
  #expired(id: number, render: InFlight): void {
    if (this.#renders.get(id) !== render) return;
    const { thread } = render;
    if (!thread.ready && !thread.stopped) {
      // Still starting (loading React on a busy machine may block it for seconds): its
      // renders have not begun, so their time starts again.
      render.timer = setTimeout(() => this.#expired(id, render), this.#timeoutMs);
      return;
    }
    render.expired = true;
    if (thread.checking || thread.stopped) return;
    thread.checking = true;
    const ping = this.#nextId++;
    const deadline = setTimeout(() => this.#stuck(thread), PING_MS);
    thread.answered = () => clearTimeout(deadline);
    thread.send({ type: "ping", id: ping });
  }

  /**
   * The worker answered the ping: it is not stuck. Its expired renders that it took up are too
   * slow (waiting on something that never comes): they fail, and it is told to abort them. One
   * it had not taken up yet gets its time again.
   */
  #answered(thread: RenderThread): void {
    if (!thread.checking) return;
    thread.checking = false;
    thread.answered?.();
    for (const [id, render] of [...this.#renders]) {
      if (render.thread !== thread || !render.expired) continue;
      if (render.started) {
        this.#settle(id);
        render.reject(new RenderTimeoutError(render.name, this.#timeoutMs));
        thread.send({ type: "abort", id });
      } else {
        render.expired = false;
        render.timer = setTimeout(() => this.#expired(id, render), this.#timeoutMs);
      }
    }
  }

  /**
   * The worker did not answer the ping: a component is stuck in a loop. The worker is stopped;
   * the renders it took up whose time ran out fail with `RenderTimeout`, the others are sent
   * once more, to a new worker.
   */
  #stuck(thread: RenderThread): void {
    thread.checking = false;
    if (this.#thread === thread) this.#thread = undefined;
    thread.retired = true;
    thread.stop();
    for (const [id, render] of [...this.#renders]) {
      if (render.thread !== thread) continue;
      this.#settle(id);
      if ((render.started && render.expired) || render.retried) {
        render.reject(new RenderTimeoutError(render.name, this.#timeoutMs));
      } else {
        render.retried = true;
        this.#dispatch(render);
      }
    }
  }

  /** The worker stopped on its own (it crashed): the renders it had fail. */
  #lost(thread: RenderThread, error: Error | undefined): void {
    const wasStopped = thread.stopped;
    thread.stopped = true;
    if (this.#thread === thread) this.#thread = undefined;
    if (wasStopped && error === undefined) return;
    for (const [id, render] of [...this.#renders]) {
      if (render.thread !== thread) continue;
      this.#settle(id);
      render.reject(
        new RenderError(
          render.name,
          `the render worker stopped${error === undefined ? "" : `: ${error.message}`}`,
          error?.stack,
          error,
        ),
      );
    }
  }
}
