/**
 * One render worker of the pool, as the server's thread sees it (`renderPool.ts`): the worker,
 * the shared memory it writes which render it runs to, the versions of components it has, and
 * the renders on it.
 */
import { fileURLToPath } from "node:url";
import { Worker } from "node:worker_threads";
import type { Rendered, RenderJob, ServerBundle } from "./renderEngine.ts";
import { RenderError, RenderSetupError, RenderTimeoutError } from "./renderErrors.ts";
import type { ModuleVersion, RenderFailure, ToWorker, WorkerStart } from "./workerMessages.ts";

const WORKER = new URL(
  `./renderWorker${import.meta.url.endsWith(".ts") ? ".ts" : ".js"}`,
  import.meta.url,
);

/** A render given to the pool and not answered yet. */
export interface PoolRender {
  readonly id: number;
  readonly job: RenderJob;
  /** The worker it is on; undefined while it waits in the queue. */
  thread: RenderThread | undefined;
  /** Times it was sent again (see {@link MAX_RETRIES}). */
  retries: number;
  /** It was on a worker that stopped in a batch: it goes alone, so it is not batched again. */
  alone: boolean;
  /** When its worker said it waits (the pool's clock); undefined while its code runs. */
  waitingSince: number | undefined;
  resolve(rendered: Rendered): void;
  reject(error: unknown): void;
}

/** One render worker and what the server's thread knows of it. */
export class RenderThread {
  readonly worker: Worker;
  readonly slots: Int32Array;
  /** The newest version of each component sent to it, and its size. */
  readonly sent = new Map<string, { bundle: ServerBundle; bytes: number }>();
  /** Bytes of code of the versions replaced in it: what its isolate holds on to in vain. */
  replacedBytes = 0;
  readonly renders = new Map<number, PoolRender>();
  /** What the handler set refused the worker's requests with, by request: rethrown as it is. */
  readonly refusals = new Map<number, unknown>();
  /** It has loaded React and the rest. */
  ready = false;
  /** It takes no new renders, and stops once its own are done. */
  retired = false;
  stopped = false;
  #outbox: ToWorker[] = [];

  constructor(start: WorkerStart, memoryMb: number) {
    this.slots = new Int32Array(start.slots);
    // From the sources (tests, `--conditions=source`), the worker resolves svc's packages
    // to their sources too. (Node's own options are inherited otherwise.)
    const execArgv = WORKER.pathname.endsWith(".ts") ? ["--conditions=source"] : undefined;
    this.worker = new Worker(fileURLToPath(WORKER), {
      execArgv,
      workerData: start,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb },
    });
    this.worker.unref();
  }

  /** Sends `message` with the others of this turn, in one message. */
  send(message: ToWorker): void {
    if (this.#outbox.push(message) === 1) setImmediate(() => this.#flush());
  }

  /** Sends `message` on its own: the worker takes it up in a turn of its own. */
  sendAlone(message: ToWorker): void {
    if (!this.stopped) this.worker.postMessage([message]);
  }

  #flush(): void {
    const batch = this.#outbox;
    this.#outbox = [];
    if (this.stopped) return;
    try {
      this.worker.postMessage(batch);
    } catch {
      // One message cannot be cloned (props holding a function): the others go on their
      // own, and that render fails instead of the server.
      for (const message of batch) {
        try {
          this.worker.postMessage([message]);
        } catch (error) {
          if (message.type === "render") this.unsendable(message.id, error);
        }
      }
    }
  }

  /** A render that could not be sent (set by the pool). */
  unsendable: (id: number, error: unknown) => void = () => {};

  /** `bundle` of `name` as the worker gets it: without the code when it has this version. */
  version(name: string, bundle: ServerBundle): ModuleVersion {
    const known = this.sent.get(name);
    const module: ModuleVersion = { name, serverHash: bundle.serverHash, hash: bundle.hash };
    if (known?.bundle.serverHash === bundle.serverHash) {
      known.bundle = bundle;
      return module;
    }
    if (known !== undefined) this.replacedBytes += known.bytes;
    this.sent.set(name, { bundle, bytes: bundle.code.byteLength });
    module.code = bundle.code;
    return module;
  }

  track(render: PoolRender): void {
    if (this.renders.size === 0) this.worker.ref();
    this.renders.set(render.id, render);
  }

  untrack(render: PoolRender): void {
    this.renders.delete(render.id);
    if (this.renders.size > 0) return;
    this.worker.unref();
    this.refusals.clear();
    if (this.retired) this.stop();
  }

  /** The error a render that failed in this worker rejects with. */
  errorOf(render: PoolRender, failure: RenderFailure): unknown {
    if ("refused" in failure) {
      const refusal = this.refusals.get(failure.refused);
      return (
        refusal ?? new RenderError(render.job.name, "a nested component was refused", undefined)
      );
    }
    if ("timeout" in failure) return new RenderTimeoutError(render.job.name, failure.timeout);
    if ("setup" in failure) return new RenderSetupError(render.job.name, failure.setup);
    return new RenderError(failure.component || render.job.name, failure.message, failure.stack);
  }

  /** The server bundle of every component a render loaded, as last sent to its worker. */
  bundlesOf(job: RenderJob, loaded: Readonly<Record<string, string>>): Map<string, ServerBundle> {
    const bundles = new Map<string, ServerBundle>([[job.name, job.own]]);
    for (const name in loaded) {
      if (name === job.name) continue;
      const sent = this.sent.get(name)?.bundle;
      if (sent !== undefined) bundles.set(name, sent);
    }
    return bundles;
  }

  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    void this.worker.terminate();
  }
}

/**
 * Milliseconds on a clock every thread reads alike: each thread's monotonic clock from its own
 * origin. (Not `Date.now()`: the wall clock jumps, and tests fake it.)
 */
export function clock(): number {
  return performance.timeOrigin + performance.now();
}
