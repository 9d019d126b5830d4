import type { ComponentName } from "@svc/protocol";
import { OverloadedError } from "../errors.ts";
import { observeQueue } from "../telemetry.ts";
import { checkPeer } from "../util/peer.ts";
import type {
  IslandSources,
  PropsValidator,
  RenderEngine,
  Rendered,
  RenderJob,
} from "./renderEngine.ts";
import { RenderError, RenderSetupError, RenderTimeoutError } from "./renderErrors.ts";
import {
  CLOSE_GRACE_MS,
  MAX_RETRIES,
  PER_WORKER,
  type RenderPoolOptions,
  WATCH_MS,
} from "./renderPoolOptions.ts";
import { clock, type PoolRender, RenderThread } from "./renderThread.ts";
import {
  type FromWorker,
  RENDER_PEERS,
  SLOT,
  SLOTS,
  type ToWorker,
  type WorkerStart,
} from "./workerMessages.ts";

/**
 * Renders islands in a pool of worker threads (`renderIsolation: "worker"`, the default; see
 * `renderWorker.ts`): every core renders, and no component can take the server down.
 *
 * - A render's time runs from when its worker takes it up, not while it waits for one. Each
 *   worker says in shared memory which render's code it runs; the pool looks every
 *   {@link WATCH_MS} ms. A render whose code runs past the time limit (a loop) — or a worker
 *   whose event loop stops turning outside any render's code — stops the worker: that render
 *   fails with `RenderTimeout`, the worker is replaced, and the worker's other renders are sent
 *   again to another, never blamed. A render that *waits* past the limit is aborted by its
 *   worker, which stays.
 * - Each worker has a heap limit: a render that exhausts it fails with `RenderError` ("out of
 *   memory"), and its worker is replaced.
 * - At most {@link PER_WORKER} renders are on a worker at once; the others wait in a queue of
 *   at most `queueLimit`, past which new renders fail at once with `Overloaded` (503,
 *   `Retry-After`) instead of waiting without bound.
 * - A worker is replaced once the versions replaced in it reach `recycleBytes`, so whatever
 *   they left behind goes with it.
 *
 * Why not a pool library: see docs/DECISIONS.md ("The render pool").
 */
export class RenderPool implements RenderEngine {
  readonly #sources: IslandSources;
  readonly #options: RenderPoolOptions;
  readonly #epoch = clock();
  readonly #threads: RenderThread[] = [];
  readonly #queue: PoolRender[] = [];
  readonly #renders = new Map<number, PoolRender>();
  #nextId = 1;
  #watch: NodeJS.Timeout | undefined;
  #validate: PropsValidator | undefined;
  /** Closing: no new renders are taken; `close` waits for the others. */
  #closing: Promise<void> | undefined;
  #drained: (() => void) | undefined;

  constructor(sources: IslandSources, options: RenderPoolOptions) {
    this.#sources = sources;
    this.#options = options;
    observeQueue(this);
  }

  /** Workers in the pool, started or not. */
  get size(): number {
    return this.#options.size;
  }

  /** Renders waiting for a worker. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Renders on a worker. */
  get running(): number {
    return this.#renders.size - this.#queue.length;
  }

  prepare(name: ComponentName): PropsValidator | Promise<PropsValidator> {
    // The workers start while the bundles are built.
    this.#fill();
    return this.#validate ?? this.#validator(name);
  }

  /**
   * Starts the workers (if they are not yet) and resolves once each has loaded React and is
   * ready to render; rejects when they cannot be started.
   */
  async ready(): Promise<void> {
    this.#fill();
    await this.#validator("" as ComponentName);
    await Promise.all(
      this.#threads.map(
        (thread) =>
          new Promise<void>((resolve, reject) => {
            if (thread.ready) {
              resolve();
              return;
            }
            // Waited for, the worker keeps the process alive until it is ready.
            thread.worker.ref();
            const onMessage = (batch: FromWorker[]) => {
              if (batch.some((m) => m.type === "ready")) done();
            };
            const onExit = () => {
              done();
              reject(new Error("svc: a render worker stopped while starting"));
            };
            const done = () => {
              thread.worker.off("message", onMessage);
              thread.worker.off("exit", onExit);
              // Listening reffed it: idle, it keeps nothing alive.
              if (thread.renders.size === 0) thread.worker.unref();
              resolve();
            };
            thread.worker.on("message", onMessage);
            thread.worker.on("exit", onExit);
          }),
      ),
    );
  }

  /** Workers (live ones, ready ones) and renders (on a worker, waiting for one). */
  stats(): { workers: number; ready: number; running: number; queued: number } {
    const live = this.#threads.filter((thread) => !thread.retired && !thread.stopped);
    return {
      workers: this.#options.size,
      ready: live.filter((thread) => thread.ready).length,
      running: this.running,
      queued: this.queued,
    };
  }

  /** Whether every worker is started and ready. */
  get isReady(): boolean {
    const live = this.#threads.filter((thread) => !thread.retired && !thread.stopped);
    return (
      this.#closing === undefined &&
      live.length === this.#options.size &&
      live.every((thread) => thread.ready)
    );
  }

  render(job: RenderJob): Promise<Rendered> {
    if (this.#closing !== undefined) {
      return Promise.reject(new OverloadedError("The server is shutting down", 1));
    }
    if (this.#queue.length >= this.#options.queueLimit) {
      return Promise.reject(
        new OverloadedError(
          `Too many islands are waiting to render (${this.#queue.length}, the limit of renderQueue)`,
          1,
        ),
      );
    }
    return new Promise<Rendered>((resolve, reject) => {
      const render: PoolRender = {
        id: this.#nextId++,
        job,
        thread: undefined,
        retries: 0,
        alone: false,
        waitingSince: undefined,
        resolve,
        reject,
      };
      this.#renders.set(render.id, render);
      this.#queue.push(render);
      this.#pump();
    });
  }

  /**
   * Stops taking renders, waits for those in flight (at most `graceMs`), then stops the
   * workers; renders still unfinished then fail with `Overloaded`.
   */
  close(graceMs = CLOSE_GRACE_MS): Promise<void> {
    this.#closing ??= (async () => {
      if (this.#renders.size > 0) {
        await new Promise<void>((resolve) => {
          this.#drained = resolve;
          const timer = setTimeout(resolve, graceMs);
          timer.unref();
        });
      }
      for (const render of [...this.#renders.values()]) {
        this.#settle(render);
        render.reject(new OverloadedError("The server shut down before the island rendered", 1));
      }
      this.#queue.length = 0;
      for (const thread of this.#threads.splice(0)) thread.stop();
      clearInterval(this.#watch);
      this.#watch = undefined;
    })();
    return this.#closing;
  }

  /** `@svc/react`'s validator, imported in the server's thread: props are checked here. */
  async #validator(name: ComponentName): Promise<PropsValidator> {
    // What the workers load, looked for here: the one line that says what to install, not a
    // resolution error from a worker (svc's React layer first, which a server without any of
    // them misses first).
    const setup = (error: unknown) => {
      for (const id of ["@svc/react", "react", "react-dom", "@tanstack/react-query"]) {
        try {
          checkPeer(id, "server-side rendering", RENDER_PEERS);
        } catch (missing) {
          throw new RenderSetupError(name, (missing as Error).message, error);
        }
      }
    };
    const svc = await import("@svc/react").catch((error: unknown) => {
      setup(error);
      throw error;
    });
    setup(undefined);
    this.#validate = svc.validateProps;
    return this.#validate;
  }

  /** Starts workers until the pool has its size. */
  #fill(): void {
    if (this.#closing !== undefined) return;
    while (this.#threads.filter((t) => !t.retired && !t.stopped).length < this.#options.size) {
      this.#threads.push(this.#spawn());
    }
  }

  #spawn(): RenderThread {
    const start: WorkerStart = {
      slots: new SharedArrayBuffer(SLOTS * Int32Array.BYTES_PER_ELEMENT),
      epoch: this.#epoch,
      timeoutMs: this.#options.timeoutMs,
    };
    const thread = new RenderThread(start, this.#options.memoryMb);
    thread.unsendable = (id, error) => {
      const render = thread.renders.get(id);
      if (render === undefined) return;
      this.#settle(render);
      render.reject(
        new RenderError(
          render.job.name,
          `its props cannot be sent to a render worker (${(error as Error)?.message ?? error})`,
          undefined,
        ),
      );
    };
    thread.worker.on("message", (batch: FromWorker[]) => {
      for (const message of batch) this.#receive(thread, message);
    });
    thread.worker.on("error", (error: Error & { code?: string }) => this.#crashed(thread, error));
    thread.worker.on("exit", () => this.#crashed(thread, undefined));
    // Listening refs the worker's port again: until it has renders, it keeps nothing alive.
    thread.worker.unref();
    return thread;
  }

  /** Sends queued renders to the least busy workers that have room. */
  #pump(): void {
    this.#fill();
    while (this.#queue.length > 0) {
      let best: RenderThread | undefined;
      for (const thread of this.#threads) {
        if (thread.retired || thread.stopped || thread.renders.size >= PER_WORKER) continue;
        if (best === undefined || thread.renders.size < best.renders.size) best = thread;
      }
      if (best === undefined) break;
      const render = this.#queue.shift() as PoolRender;
      this.#send(best, render);
    }
    if (this.#renders.size > 0 && this.#watch === undefined) {
      this.#watch = setInterval(() => this.#look(), WATCH_MS);
      this.#watch.unref();
    }
  }

  #send(thread: RenderThread, render: PoolRender): void {
    const { job } = render;
    render.thread = thread;
    render.waitingSince = undefined;
    thread.track(render);
    const message: ToWorker = {
      type: "render",
      id: render.id,
      props: job.props,
      filesRoot: job.filesRoot,
      module: thread.version(job.name, job.own),
      metadata: job.metadata,
    };
    if (render.alone) thread.sendAlone(message);
    else thread.send(message);
    this.#recycleIfFull(thread);
  }

  /** The render is answered (or failed): off its worker, out of the pool. */
  #settle(render: PoolRender): void {
    this.#renders.delete(render.id);
    render.thread?.untrack(render);
    if (this.#renders.size === 0) {
      clearInterval(this.#watch);
      this.#watch = undefined;
      this.#drained?.();
    }
  }

  #receive(thread: RenderThread, message: FromWorker): void {
    switch (message.type) {
      case "rendered": {
        const render = thread.renders.get(message.id);
        if (render === undefined) return;
        this.#settle(render);
        render.resolve({
          html: message.html,
          styles: message.styles,
          loaded: message.loaded,
          bundles: thread.bundlesOf(render.job, message.loaded),
        });
        this.#pump();
        return;
      }
      case "failed": {
        const render = thread.renders.get(message.id);
        if (render === undefined) return;
        this.#settle(render);
        render.reject(thread.errorOf(render, message.failure));
        this.#pump();
        return;
      }
      case "waiting": {
        const render = thread.renders.get(message.id);
        if (render !== undefined) render.waitingSince = this.#now();
        return;
      }
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
        thread.send({ type: "module", request, module: thread.version(name, bundle) });
        this.#recycleIfFull(thread);
      } else {
        const metadata = await this.#sources.metadata(name);
        thread.send({ type: "metadata", request, metadata });
      }
    } catch (error) {
      thread.refusals.set(request, error);
      thread.send({
        type: "refused",
        request,
        message: (error as Error)?.message ?? String(error),
      });
    }
  }

  /** Retires `thread` once the versions replaced in it are too many: new renders go elsewhere. */
  #recycleIfFull(thread: RenderThread): void {
    if (thread.replacedBytes < this.#options.recycleBytes || thread.retired) return;
    thread.retired = true;
    if (thread.renders.size === 0) thread.stop();
    // Its successor starts now, so it is ready by the next render.
    this.#fill();
  }

  /** Milliseconds since the pool began, as the workers write them: wrapping as 32-bit integers. */
  #now(): number {
    return Math.trunc(clock() - this.#epoch) | 0;
  }

  /** Looks at each worker with renders on it: is one stuck? (see the class's comment) */
  #look(): void {
    const now = this.#now();
    const limit = this.#options.timeoutMs;
    for (const thread of [...this.#threads]) {
      if (thread.stopped || thread.renders.size === 0) continue;
      const running = Atomics.load(thread.slots, SLOT.running);
      const since = Atomics.load(thread.slots, SLOT.since);
      const beat = Atomics.load(thread.slots, SLOT.beat);
      // Ages, not times: the slots wrap (as 32-bit integers) every 24 days.
      if (running !== 0 && ((now - since) | 0) > limit) {
        this.#stopped(thread, running > 0 ? { looped: running } : {});
      } else if (
        running === 0 &&
        thread.ready &&
        ((now - since) | 0) > limit &&
        ((now - beat) | 0) > limit
      ) {
        // Stuck outside the code of a render it knows: in a render that waited, resumed by
        // React or a timer. The renders that waited longer than the limit are the suspects.
        this.#stopped(thread, { waitedLongerThan: limit });
      }
    }
  }

  /** The worker stopped (out of memory, crashed) or was found stuck (see {@link #stopped}). */
  #crashed(thread: RenderThread, error: (Error & { code?: string }) | undefined): void {
    if (thread.stopped) {
      this.#remove(thread);
      return;
    }
    const running = Atomics.load(thread.slots, SLOT.running);
    const why =
      error?.code === "ERR_WORKER_OUT_OF_MEMORY"
        ? `ran out of memory (a render worker's heap is limited to ${this.#options.memoryMb} MiB: renderMemoryMb)`
        : `stopped its render worker${error === undefined ? "" : `: ${error.message}`}`;
    this.#stopped(thread, running > 0 ? { crashed: running, why } : { why });
  }

  /**
   * Stops `thread` and deals with its renders: the one to blame fails; the others are sent
   * again, alone, to another worker.
   */
  #stopped(
    thread: RenderThread,
    blame: { looped?: number; crashed?: number; why?: string; waitedLongerThan?: number },
  ): void {
    thread.stop();
    this.#remove(thread);
    const limit = this.#options.timeoutMs;
    const now = this.#now();
    for (const render of [...thread.renders.values()]) {
      thread.renders.delete(render.id);
      render.thread = undefined;
      const suspect =
        blame.waitedLongerThan !== undefined &&
        render.waitingSince !== undefined &&
        ((now - render.waitingSince) | 0) > blame.waitedLongerThan;
      if (render.id === blame.looped || suspect) {
        this.#settle(render);
        render.reject(new RenderTimeoutError(render.job.name, limit));
      } else if (render.id === blame.crashed) {
        this.#settle(render);
        render.reject(new RenderError(render.job.name, blame.why ?? "crashed", undefined));
      } else if (render.retries >= MAX_RETRIES) {
        this.#settle(render);
        render.reject(
          new RenderError(
            render.job.name,
            `${blame.why ?? "its render worker was stopped"} ${render.retries + 1} times while it rendered`,
            undefined,
          ),
        );
      } else {
        render.retries++;
        render.alone = true;
        this.#queue.unshift(render);
      }
    }
    this.#pump();
  }

  #remove(thread: RenderThread): void {
    const index = this.#threads.indexOf(thread);
    if (index >= 0) this.#threads.splice(index, 1);
  }
}
