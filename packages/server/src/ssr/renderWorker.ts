/**
 * A render worker of the pool (`renderPool.ts`): renders islands in a thread of its own, as
 * the server's thread does with `renderIsolation: "none"` — the same `InProcessRenderer`, so
 * the same HTML, and islands that arrive together render in one batch — so that
 *
 * - a component that never returns (a loop) is stopped by terminating the worker, and the
 *   server's thread stays free for requests meanwhile;
 * - a component that allocates without bound exhausts this worker's heap, not the server's;
 * - whatever a component's versions leave behind goes when the worker does: the pool replaces
 *   it once enough versions were replaced in it.
 *
 * It asks the server's thread for nested components' server bundles and metadata (see
 * `workerMessages.ts`), and says in shared memory which render's code it is running, so the
 * server's thread can tell which render it is stuck in.
 */

import { parentPort, workerData } from "node:worker_threads";
import type { ComponentMetadata, ComponentName } from "@svc/protocol";
import { InProcessRenderer } from "./inProcessRenderer.ts";
import type { Rendered, ServerBundle } from "./renderEngine.ts";
import { RenderError, RenderSetupError, RenderTimeoutError } from "./renderErrors.ts";
import {
  type FromWorker,
  type ModuleVersion,
  type RenderFailure,
  SLOT,
  type ToWorker,
  type WorkerStart,
} from "./workerMessages.ts";

const port = parentPort;
if (port === null) throw new Error("renderWorker.ts runs as a worker thread");
const start = workerData as WorkerStart;
const slots = new Int32Array(start.slots);
/** Milliseconds since the pool began, wrapping as 32-bit integers (as the pool reads them). */
const now = () => Math.trunc(performance.timeOrigin + performance.now() - start.epoch) | 0;

/** Tells the pool which render's code runs now (see `SLOT`). */
function running(id: number): void {
  const at = now();
  Atomics.store(slots, SLOT.since, at);
  Atomics.store(slots, SLOT.running, id);
  if (id === 0) Atomics.store(slots, SLOT.beat, at);
}
// The event loop turns: a worker stuck outside any render's code is seen by this stopping.
Atomics.store(slots, SLOT.beat, now());
setInterval(() => Atomics.store(slots, SLOT.beat, now()), 100).unref();

/** Messages of this turn, posted together once it ends (see `workerMessages.ts`). */
let outbox: FromWorker[] = [];
function post(message: FromWorker): void {
  if (outbox.push(message) === 1) queueMicrotask(flush);
}
function flush(): void {
  const batch = outbox;
  outbox = [];
  port?.postMessage(batch);
}

/** The newest version of each component this worker got, as the renderer takes it. */
const versions = new Map<string, ServerBundle>();

function bundleOf(module: ModuleVersion): ServerBundle {
  const known = versions.get(module.name);
  if (known?.serverHash === module.serverHash && known.hash === module.hash) return known;
  const code = module.code ?? (known?.serverHash === module.serverHash ? known.code : undefined);
  if (code === undefined) {
    throw new Error(`svc: the render worker lacks ${module.name}@${module.serverHash}`);
  }
  // Stylesheets are linked by the server's thread, which has the bundle itself.
  const bundle: ServerBundle = {
    code,
    serverHash: module.serverHash,
    hash: module.hash,
    stylesheets: [],
  };
  versions.set(module.name, bundle);
  return bundle;
}

const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
let nextRequest = 1;

function ask<T>(message: (request: number) => FromWorker): Promise<T> {
  const request = nextRequest++;
  return new Promise<T>((resolve, reject) => {
    pending.set(request, { resolve: resolve as (value: unknown) => void, reject });
    post(message(request));
  });
}

/** A request of the worker's the server's thread refused: the render fails with its error. */
class Refused extends Error {
  readonly request: number;
  constructor(message: string, request: number) {
    super(message);
    this.request = request;
  }
}

const renderer = new InProcessRenderer(
  {
    serverBundle: (name) =>
      ask<ModuleVersion>((request) => ({ type: "load", request, name })).then(bundleOf),
    metadata: (name) =>
      ask<ComponentMetadata>((request) => ({ type: "loadMetadata", request, name })),
  },
  { timeoutMs: start.timeoutMs, running },
);

function render(message: Extract<ToWorker, { type: "render" }>): void {
  const { id } = message;
  let result: Rendered | Promise<Rendered>;
  try {
    const own = bundleOf(message.module);
    result = renderer.render({
      id,
      name: message.module.name as ComponentName,
      props: message.props,
      own,
      metadata: message.metadata as ComponentMetadata,
      filesRoot: message.filesRoot,
    });
  } catch (error) {
    fail(id, error);
    return;
  }
  if (result instanceof Promise) {
    post({ type: "waiting", id });
    result.then(
      (rendered) => done(id, rendered),
      (error: unknown) => fail(id, error),
    );
  } else {
    done(id, result);
  }
}

function done(id: number, rendered: Rendered): void {
  post({
    type: "rendered",
    id,
    html: rendered.html,
    styles: rendered.styles,
    loaded: rendered.loaded,
  });
}

function fail(id: number, error: unknown): void {
  post({ type: "failed", id, failure: failureOf(error) });
}

function failureOf(error: unknown): RenderFailure {
  // The renderer rethrows a refusal as its reason: here, the request's number.
  if (typeof error === "number") return { refused: error };
  if (error instanceof Refused) return { refused: error.request };
  if (error instanceof RenderTimeoutError) return { timeout: error.ms };
  if (error instanceof RenderSetupError) return { setup: error.message };
  if (error instanceof RenderError) return { ...error.thrown, component: error.thrown.name };
  const thrown = error instanceof Error ? error : new Error(String(error));
  return { component: "", message: thrown.message, stack: thrown.stack };
}

port.on("message", (batch: ToWorker[]) => {
  for (const message of batch) {
    if (message.type === "render") {
      render(message);
      continue;
    }
    const waiting = pending.get(message.request);
    if (waiting === undefined) continue;
    pending.delete(message.request);
    if (message.type === "refused") waiting.reject(new Refused(message.message, message.request));
    else waiting.resolve(message.type === "module" ? message.module : message.metadata);
  }
});

// React and the rest load at once, so the first render does not wait for them (a failure is
// reported by the first render that needs them).
void Promise.resolve(renderer.prepare("" as ComponentName)).then(
  () => post({ type: "ready" }),
  () => post({ type: "ready" }),
);
