/**
 * The render worker: renders islands in a thread of its own, so that
 *
 * - every version of a component it ever evaluated goes when the worker does: V8 keeps the
 *   source and code of each script it compiles in an isolate-wide cache (whatever evaluates it —
 *   `vm.Script`, a `vm` context, `new Function`, `import()` of a new URL), which only an isolate
 *   of its own lets svc drop; the island renderer replaces the worker once enough versions
 *   were replaced in it;
 * - a component that never returns (a loop) is stopped by terminating the worker, and the
 *   server's thread stays free for requests meanwhile.
 *
 * It asks the server's thread for server bundles and metadata (see `renderProtocol.ts`) and
 * renders `<SvcProvider><ServerComponent name props /></SvcProvider>` with React's `prerender`,
 * so `useComponent` works on the server as in the browser.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";
import type { ComponentMetadata } from "@svc/protocol";
import { requirePeer } from "../util/peer.ts";
import type { FromWorker, ModuleVersion, RenderFailure, ToWorker } from "./renderProtocol.ts";
import { type EvaluatedBundle, evaluateServerBundle, type SharedModules } from "./serverModule.ts";

/** The server's own React and svc's React layer, loaded once per worker. */
interface Peers {
  shared: SharedModules;
  createElement: typeof import("react").createElement;
  prerender: typeof import("react-dom/static").prerender;
  QueryClient: typeof import("@tanstack/react-query").QueryClient;
  svc: typeof import("@svc/react");
}

const INSTALL = "react react-dom @tanstack/react-query @svc/react";

async function loadPeers(): Promise<Peers> {
  const need = <T>(id: string) => requirePeer<T>(id, "server-side rendering", INSTALL);
  const react = need<typeof import("react")>("react");
  const staticDom = need<typeof import("react-dom/static")>("react-dom/static");
  // ES modules, so that svc's React layer and TanStack Query are the very copies that
  // `@svc/react` itself imports.
  const [svc, query] = await Promise.all([import("@svc/react"), import("@tanstack/react-query")]);
  const shared: Record<string, unknown> = {
    react,
    "react/jsx-runtime": need("react/jsx-runtime"),
    "react-dom": need("react-dom"),
    "@svc/react": svc,
  };
  const optional = createRequire(import.meta.url);
  for (const id of ["react-dom/client", "goober"]) {
    try {
      shared[id] = optional(id);
    } catch {
      // not installed: a component that imports it fails with a clear message
    }
  }
  const goober = shared.goober as typeof import("goober") | undefined;
  if (goober !== undefined) {
    // goober renders through whatever `setup` gave it, as the loader does in the browser.
    goober.setup(react.createElement);
    shared.goober = perRenderGoober(goober);
  }
  return {
    shared,
    createElement: react.createElement,
    prerender: staticDom.prerender,
    QueryClient: query.QueryClient,
    svc,
  };
}

/** The style sheet of the render under way: what goober writes its rules to on the server. */
const renderSheet = new AsyncLocalStorage<{ data: string }>();

/**
 * goober as server bundles get it: the rules a render's components make go to that render's
 * own sheet (goober's target, found through the render's async context), never to goober's one
 * global server sheet, which only grows and which concurrent renders would share. Outside a
 * render (a module's top level), rules go to a sheet that is dropped.
 */
function perRenderGoober(goober: typeof import("goober")): typeof import("goober") {
  const sheet = () => renderSheet.getStore() ?? { data: "" };
  const css = (flags: object) =>
    function (this: object | undefined, ...args: unknown[]) {
      return (goober.css as (...a: unknown[]) => string).apply(
        { ...this, ...flags, target: sheet() },
        args,
      );
    };
  return {
    ...goober,
    css: css({}) as typeof goober.css,
    glob: css({ g: 1 }) as typeof goober.glob,
    keyframes: css({ k: 1 }) as typeof goober.keyframes,
    styled: function (this: object | undefined, ...args: unknown[]) {
      // goober reads its context's `target` on every render of the styled component.
      const context = {
        ...this,
        get target() {
          return sheet();
        },
      };
      return (goober.styled as (...a: unknown[]) => unknown).apply(context, args);
    } as typeof goober.styled,
    extractCss: () => "",
  };
}

/** Each component's newest version this worker evaluated. */
interface Evaluated {
  serverHash: string;
  hash: string;
  bundle: EvaluatedBundle;
}

/** A request of the worker's the server's thread refused (not found, a bundle error, …). */
class Refused extends Error {
  readonly request: number;
  constructor(request: number, message: string) {
    super(message);
    this.request = request;
  }
}

const port = parentPort;
if (port === null) throw new Error("renderWorker.ts runs as a worker thread");
const post = (message: FromWorker) => port.postMessage(message);

const evaluated = new Map<string, Evaluated>();
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
const renders = new Map<number, AbortController>();
let nextRequest = 1;
let peers: Promise<Peers> | undefined;

/** Evaluates `module` unless this worker has its version already; its newest version. */
function evaluate(module: ModuleVersion, shared: SharedModules): Evaluated {
  const known = evaluated.get(module.name);
  if (known !== undefined && known.serverHash === module.serverHash) {
    known.hash = module.hash;
    return known;
  }
  if (module.code === undefined) {
    throw new Error(`svc: the render worker lacks ${module.name}@${module.serverHash}`);
  }
  const bundle = evaluateServerBundle(module.code, module.name, shared);
  const fresh = { serverHash: module.serverHash, hash: module.hash, bundle };
  evaluated.set(module.name, fresh);
  return fresh;
}

function ask<T>(message: (request: number) => FromWorker): Promise<T> {
  const request = nextRequest++;
  return new Promise<T>((resolve, reject) => {
    pending.set(request, { resolve: resolve as (value: unknown) => void, reject });
    post(message(request));
  });
}

async function render(id: number, props: Record<string, unknown>, module: ModuleVersion) {
  const controller = new AbortController();
  renders.set(id, controller);
  // Every component the render loads, with its browser hash and its version's stack mapper.
  const loaded = new Map<string, Evaluated>();
  let ready: Peers;
  try {
    peers ??= loadPeers();
    ready = await peers;
  } catch (error) {
    peers = undefined;
    post({ type: "failed", id, failure: { setup: (error as Error).message } });
    renders.delete(id);
    return;
  }
  try {
    const { createElement, prerender, QueryClient, shared, svc } = ready;
    const own = evaluate(module, shared);
    loaded.set(module.name, own);
    const client = {
      apiBase: "/api",
      manifestUrl: undefined,
      source: "server",
      async load(other: string) {
        const known = loaded.get(other);
        if (known !== undefined) return known.bundle.module;
        const version = await ask<ModuleVersion>((request) => ({
          type: "load",
          request,
          render: id,
          name: other,
          have: evaluated.get(other)?.serverHash,
        }));
        const found = evaluate(version, shared);
        loaded.set(other, found);
        return found.bundle.module;
      },
      loadMetadata: (other: string) =>
        ask<ComponentMetadata>((request) => ({
          type: "loadMetadata",
          request,
          render: id,
          name: other,
        })),
      loadManifest: () => Promise.reject(new Error("no manifest on the server")),
      // Each component is loaded from the main thread as it renders: nothing is fetched ahead.
      loadPreloaded: () => Promise.resolve(new Map()),
      setHash() {},
      invalidate() {},
    };
    let failure: unknown;
    const sheet = { data: "" };
    const tree = createElement(
      svc.SvcProvider,
      { client, queryClient: new QueryClient() },
      createElement(svc.ServerComponent, { name: module.name, props }),
    );
    const result = await renderSheet.run(sheet, () =>
      prerender(tree, {
        signal: controller.signal,
        onError: (error) => {
          failure ??= error;
        },
      }),
    );
    if (failure !== undefined) throw failure;
    const html = await new Response(result.prelude).text();
    post({
      type: "rendered",
      id,
      html,
      styles: sheet.data,
      loaded: Object.fromEntries([...loaded].map(([name, { hash }]) => [name, hash])),
    });
  } catch (error) {
    if (!controller.signal.aborted) post({ type: "failed", id, failure: failureOf(error, loaded) });
  } finally {
    renders.delete(id);
  }
}

/** What went wrong, for the server's thread: a refusal of its own, or the component's throw. */
function failureOf(error: unknown, loaded: Map<string, Evaluated>): RenderFailure {
  // React wraps what a lazy component threw; useComponent's errors carry the component's name.
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== null && typeof current === "object" && !seen.has(current)) {
    if (current instanceof Refused) return { refused: current.request };
    seen.add(current);
    current = (current as { cause?: unknown }).cause;
  }
  const original = (error as { cause?: unknown })?.cause ?? error;
  const cause = (original as { cause?: unknown })?.cause ?? original;
  const thrown = cause instanceof Error ? cause : new Error(String(cause));
  const component =
    (original as { component?: string } | undefined)?.component ??
    [...loaded.keys()][0] ??
    "unknown";
  let stack = thrown.stack;
  for (const { bundle } of loaded.values()) stack = stack && bundle.mapStack(stack);
  return { component, message: thrown.message, stack };
}

port.on("message", (message: ToWorker) => {
  switch (message.type) {
    case "render":
      post({ type: "started", id: message.id });
      void render(message.id, message.props, message.module);
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
      if (message.type === "refused") waiting.reject(new Refused(message.request, message.message));
      else waiting.resolve(message.type === "module" ? message.module : message.metadata);
    }
  }
});

// Load the peers at once, so the first render does not wait for them (a failure is reported
// to the first render that needs them).
peers = loadPeers();
peers.catch(() => {});
