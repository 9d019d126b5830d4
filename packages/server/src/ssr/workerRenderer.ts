import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { ComponentName } from "@svc/protocol";
import { requirePeer } from "../util/peer.ts";
import type {
  IslandSources,
  PropsValidator,
  RenderEngine,
  Rendered,
  RenderJob,
  ServerBundle,
} from "./renderEngine.ts";
import { RenderError, RenderSetupError, RenderTimeoutError } from "./renderErrors.ts";
import {
  type FromWorker,
  type ModuleVersion,
  RENDER_PEERS,
  type ToWorker,
} from "./renderProtocol.ts";

export interface WorkerRendererOptions {
  /** How long one render may take before it fails with `RenderTimeout`. */
  timeoutMs: number;
  /**
   * The render worker is replaced once the versions replaced in it (a component edited, a new
   * build) add up to this many bytes of code.
   */
  recycleBytes: number;
}

/** A render sent to a worker and not answered yet. */
interface InFlight extends RenderJob {
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
 * Renders islands in a worker thread (`renderIsolation: "worker"`, see `renderWorker.ts`), for
 * the protection it gives: a render that overruns the time limit is aborted, and a worker that
 * does not answer then (a component stuck in a loop) is stopped, its other renders sent once
 * more to a new one; the server's thread stays free meanwhile. The worker is replaced once the
 * versions replaced in it reach `recycleBytes`, so whatever they left behind goes with it.
 */
export class WorkerRenderer implements RenderEngine {
  readonly #sources: IslandSources;
  readonly #timeoutMs: number;
  readonly #recycleBytes: number;
  #thread: RenderThread | undefined;
  #nextId = 1;
  readonly #renders = new Map<number, InFlight>();
  #validate: PropsValidator | undefined;

  constructor(sources: IslandSources, options: WorkerRendererOptions) {
    this.#sources = sources;
    this.#timeoutMs = options.timeoutMs;
    this.#recycleBytes = options.recycleBytes;
  }

  prepare(name: ComponentName): PropsValidator | Promise<PropsValidator> {
    // A new worker starts while the bundles are built.
    this.#current();
    return this.#validate ?? this.#validator(name);
  }

  render(job: RenderJob): Promise<Rendered> {
    return new Promise<Rendered>((resolve, reject) => {
      this.#dispatch({
        ...job,
        bundles: new Map([[job.name as string, job.own]]),
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

  /** `@svc/react`'s validator, imported in the server's thread: props are checked here. */
  async #validator(name: ComponentName): Promise<PropsValidator> {
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
      case "rendered": {
        const render = this.#settle(message.id);
        render?.resolve({ ...message, bundles: render.bundles });
        return;
      }
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
   * {@link WorkerRenderer.#answered} and {@link WorkerRenderer.#stuck}): it is pinged.
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
