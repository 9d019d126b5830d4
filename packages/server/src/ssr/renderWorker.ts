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
 * so `useComponent` works on the server as in the browser. The island's own module and
 * metadata come with the render, so a component that loads no other never suspends: it is
 * rendered with `renderToString` at once, without `prerender`'s streams and task scheduling.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import { parentPort } from "node:worker_threads";
import type { ComponentMetadata } from "@svc/protocol";
import { requirePeer } from "../util/peer.ts";
import {
  type FromWorker,
  type ModuleVersion,
  RENDER_PEERS,
  type RenderFailure,
  type ToWorker,
} from "./renderProtocol.ts";
import { type EvaluatedBundle, evaluateServerBundle, type SharedModules } from "./serverModule.ts";

/** The server's own React and svc's React layer, loaded once per worker. */
interface Peers {
  shared: SharedModules;
  createElement: typeof import("react").createElement;
  prerender: typeof import("react-dom/static").prerender;
  renderToString: typeof import("react-dom/server").renderToString;
  QueryClient: typeof import("@tanstack/react-query").QueryClient;
  svc: typeof import("@svc/react");
}

async function loadPeers(): Promise<Peers> {
  const need = <T>(id: string) => requirePeer<T>(id, "server-side rendering", RENDER_PEERS);
  const react = need<typeof import("react")>("react");
  const staticDom = need<typeof import("react-dom/static")>("react-dom/static");
  const serverDom = need<typeof import("react-dom/server")>("react-dom/server");
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
    renderToString: serverDom.renderToString,
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
  /**
   * Rendering this version loaded another component (`useComponent`) last time: it suspends,
   * so it goes to `prerender` straight away.
   */
  suspends: boolean;
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

/** Evaluated versions, by API base and name (asset URLs differ per API base). */
const evaluated = new Map<string, Evaluated>();
/** The newest code of each component this worker got, to evaluate it for another API base. */
const codes = new Map<string, { serverHash: string; code: string }>();
const pending = new Map<number, { resolve(value: unknown): void; reject(error: Error): void }>();
const renders = new Map<number, AbortController>();
let nextRequest = 1;
let peers: Promise<Peers> | undefined;

/**
 * The URL of a file a component imports (`./assets/logo-24WHYHIF.png`) as its browser bundle
 * makes it when loaded from `apiBase`: a path below a path, the full URL below a full URL.
 */
function assetUrlOf(apiBase: string): (path: string) => string {
  const bundles = `${apiBase}/bundles/`;
  if (/^[a-z][a-z\d+.-]*:/i.test(apiBase)) return (path) => new URL(path, bundles).href;
  const root = bundles.startsWith("/") ? bundles : `/${bundles}`;
  return (path) => new URL(path, `file://${root}`).pathname;
}

/** Evaluates `module` for `apiBase` unless this worker has that version already. */
function evaluate(module: ModuleVersion, shared: SharedModules, apiBase: string): Evaluated {
  const key = `${apiBase}\n${module.name}`;
  const known = evaluated.get(key);
  if (known !== undefined && known.serverHash === module.serverHash) {
    known.hash = module.hash;
    return known;
  }
  if (module.code !== undefined) {
    codes.set(module.name, { serverHash: module.serverHash, code: module.code });
  }
  const source = codes.get(module.name);
  if (source === undefined || source.serverHash !== module.serverHash) {
    throw new Error(`svc: the render worker lacks ${module.name}@${module.serverHash}`);
  }
  const bundle = evaluateServerBundle(source.code, module.name, shared, assetUrlOf(apiBase));
  const fresh = { serverHash: module.serverHash, hash: module.hash, bundle, suspends: false };
  // Older versions (and other API bases' copies of them) go, so memory stays bounded.
  for (const [other, version] of evaluated) {
    if (other.endsWith(`\n${module.name}`) && version.serverHash !== module.serverHash) {
      evaluated.delete(other);
    }
  }
  evaluated.set(key, fresh);
  return fresh;
}

function ask<T>(message: (request: number) => FromWorker): Promise<T> {
  const request = nextRequest++;
  return new Promise<T>((resolve, reject) => {
    pending.set(request, { resolve: resolve as (value: unknown) => void, reject });
    post(message(request));
  });
}

/**
 * Whether `renderToString` left a Suspense boundary to the browser: something suspended (it
 * does not wait) or threw. Text and attributes are escaped, so only React writes these markers.
 */
const CLIENT_RENDERED = /<!--\$[!?]-->/;

async function render(
  id: number,
  props: Record<string, unknown>,
  module: ModuleVersion,
  metadata: unknown,
  apiBase: string,
) {
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
    const { createElement, prerender, renderToString, QueryClient, shared, svc } = ready;
    const own = evaluate(module, shared, apiBase);
    loaded.set(module.name, own);
    /** The render asked for another component or metadata: it suspended. */
    let asked = false;
    const client = {
      apiBase,
      manifestUrl: undefined,
      source: "server",
      async load(other: string) {
        const known = loaded.get(other);
        if (known !== undefined) return known.bundle.module;
        asked = true;
        const version = await ask<ModuleVersion>((request) => ({
          type: "load",
          request,
          render: id,
          name: other,
          have: codes.get(other)?.serverHash,
        }));
        const found = evaluate(version, shared, apiBase);
        loaded.set(other, found);
        return found.bundle.module;
      },
      loadMetadata: (other: string) => {
        asked = true;
        return ask<ComponentMetadata>((request) => ({
          type: "loadMetadata",
          request,
          render: id,
          name: other,
        }));
      },
      loadManifest: () => Promise.reject(new Error("no manifest on the server")),
      // Each component is loaded from the main thread as it renders: nothing is fetched ahead.
      loadPreloaded: () => Promise.resolve(new Map()),
      setHash() {},
      invalidate() {},
    };
    const queryClient = new QueryClient();
    // What the island's own component needs is at hand: nothing to suspend for.
    queryClient.setQueryData(svc.svcQueryKeys.component(client, module.name), own.bundle.module);
    queryClient.setQueryData(svc.svcQueryKeys.metadata(client, module.name), metadata);
    const tree = createElement(
      svc.SvcProvider,
      { client, queryClient },
      createElement(svc.ServerComponent, { name: module.name, props }),
    );
    let html: string | undefined;
    let sheet = { data: "" };
    if (!own.suspends) {
      const attempt = renderSheet.run(sheet, () => renderToString(tree));
      if (!CLIENT_RENDERED.test(attempt)) html = attempt;
      else {
        // It suspended (or threw): `prerender` waits for what it asked for (the same query
        // client, so nothing is asked twice) and reports what it threw.
        own.suspends = asked;
        sheet = { data: "" };
      }
    }
    if (html === undefined) {
      let failure: unknown;
      const result = await renderSheet.run(sheet, () =>
        prerender(tree, {
          signal: controller.signal,
          onError: (error) => {
            failure ??= error;
          },
        }),
      );
      if (failure !== undefined) throw failure;
      html = await new Response(result.prelude).text();
    }
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
      if (message.type === "refused") waiting.reject(new Refused(message.request, message.message));
      else waiting.resolve(message.type === "module" ? message.module : message.metadata);
    }
  }
}

// Load the peers at once, so the first render does not wait for them (a failure is reported
// to the first render that needs them).
peers = loadPeers();
peers.then(
  () => post({ type: "ready" }),
  () => post({ type: "ready" }),
);
