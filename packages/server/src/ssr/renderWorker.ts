/**
 * The render worker (`renderIsolation: "worker"`): renders islands in a thread of its own, so
 * that
 *
 * - a component that never returns (a loop) is stopped by terminating the worker, and the
 *   server's thread stays free for requests meanwhile;
 * - whatever a component's versions leave behind (module-level state, timers, anything V8
 *   keeps of them) goes when the worker does: the island renderer replaces it once enough
 *   versions were replaced in it.
 *
 * It asks the server's thread for server bundles and metadata (see `renderProtocol.ts`) and
 * renders them as the server's thread does in the default mode (see `renderTree.ts`).
 */
import { parentPort } from "node:worker_threads";
import type { ComponentMetadata } from "@svc/protocol";
import type { FromWorker, ModuleVersion, ToWorker } from "./renderProtocol.ts";
import {
  type Evaluated,
  Evaluations,
  failureOf,
  loadPeers,
  type Peers,
  Refused,
  renderTree,
} from "./renderTree.ts";

const port = parentPort;
if (port === null) throw new Error("renderWorker.ts runs as a worker thread");
/** Messages of this turn, posted together once it ends (see `renderProtocol.ts`). */
let outbox: FromWorker[] = [];
function post(message: FromWorker): void {
  if (outbox.push(message) === 1) queueMicrotask(flush);
}
function flush(): void {
  const batch = outbox;
  outbox = [];
  port?.postMessage(batch);
}

const evaluations = new Evaluations();
/** The newest code of each component this worker got, to evaluate it for another API base. */
const codes = new Map<string, { serverHash: string; code: string }>();
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
const renders = new Map<number, AbortController>();
let nextRequest = 1;

/** Evaluates `module` for `apiBase` unless this worker has that version already. */
function evaluate(module: ModuleVersion, peers: Peers, apiBase: string): Evaluated {
  if (module.code !== undefined) {
    codes.set(module.name, { serverHash: module.serverHash, code: module.code });
  }
  return evaluations.get(peers.shared, module.name, module.serverHash, module.hash, apiBase, () => {
    const source = codes.get(module.name);
    if (source === undefined || source.serverHash !== module.serverHash) {
      throw new Error(`svc: the render worker lacks ${module.name}@${module.serverHash}`);
    }
    return source.code;
  });
}

function ask<T>(message: (request: number) => FromWorker): Promise<T> {
  const request = nextRequest++;
  return new Promise<T>((resolve, reject) => {
    pending.set(request, { resolve: resolve as (value: unknown) => void, reject });
    post(message(request));
  });
}

async function render(
  id: number,
  props: Record<string, unknown>,
  module: ModuleVersion,
  metadata: unknown,
  apiBase: string,
) {
  const controller = new AbortController();
  renders.set(id, controller);
  let peers: Peers;
  try {
    peers = await loadPeers();
  } catch (error) {
    post({ type: "failed", id, failure: { setup: (error as Error).message } });
    renders.delete(id);
    return;
  }
  let loaded: ReadonlyMap<string, Evaluated> = new Map();
  try {
    const own = evaluate(module, peers, apiBase);
    loaded = new Map([[module.name, own]]);
    const rendered = await renderTree(peers, {
      name: module.name,
      props,
      own,
      metadata,
      apiBase,
      async load(other) {
        const version = await ask<ModuleVersion>((request) => ({
          type: "load",
          request,
          render: id,
          name: other,
          have: codes.get(other)?.serverHash,
        }));
        return evaluate(version, peers, apiBase);
      },
      loadMetadata: (other) =>
        ask<ComponentMetadata>((request) => ({
          type: "loadMetadata",
          request,
          render: id,
          name: other,
        })),
      // The server's thread keeps the time and tells the worker to abort.
      waits: () => controller.signal,
    });
    loaded = rendered.loaded;
    post({
      type: "rendered",
      id,
      html: rendered.html,
      styles: rendered.styles,
      loaded: Object.fromEntries([...loaded].map(([name, { hash }]) => [name, hash])),
    });
  } catch (error) {
    if (!controller.signal.aborted) {
      const failure = failureOf(error, loaded);
      post({
        type: "failed",
        id,
        failure: "refused" in failure ? { refused: failure.refused as number } : failure,
      });
    }
  } finally {
    renders.delete(id);
  }
}

port.on("message", (batch: ToWorker[]) => {
  for (const message of batch) receive(message);
});

function receive(message: ToWorker): void {
  switch (message.type) {
    case "render":
      post({ type: "started", id: message.id });
      void render(message.id, message.props, message.module, message.metadata, message.apiBase);
      break;
    case "abort":
      renders.get(message.id)?.abort();
      break;
    case "ping":
      post({ type: "pong", id: message.id });
      break;
    default: {
      const waiting = pending.get(message.request);
      if (waiting === undefined) break;
      pending.delete(message.request);
      if (message.type === "refused") waiting.reject(new Refused(message.message, message.request));
      else waiting.resolve(message.type === "module" ? message.module : message.metadata);
    }
  }
}

// Load the peers at once, so the first render does not wait for them (a failure is reported
// to the first render that needs them).
loadPeers().then(
  () => post({ type: "ready" }),
  () => post({ type: "ready" }),
);
