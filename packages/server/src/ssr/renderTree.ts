/**
 * Rendering an island's tree, wherever it runs: in the server's own thread (the default) or in
 * the render worker (`renderIsolation: "worker"`). Both load the same peers, evaluate server
 * bundles the same way and render the same tree — the one the browser hydrates,
 * `<SvcProvider><ServerComponent name props /></SvcProvider>` — so their HTML is the same.
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { createRequire } from "node:module";
import type { ComponentMetadata } from "@svc/protocol";
import { checkPeer, requirePeer } from "../util/peer.ts";
import { type EvaluatedBundle, evaluateServerBundle, type SharedModules } from "./serverModule.ts";
import { RENDER_PEERS } from "./workerMessages.ts";

/** The server's own React and svc's React layer, loaded once per process (or worker). */
export interface Peers {
  shared: SharedModules;
  createElement: typeof import("react").createElement;
  Fragment: typeof import("react").Fragment;
  prerender: typeof import("react-dom/static").prerender;
  renderToString: typeof import("react-dom/server").renderToString;
  QueryClient: typeof import("@tanstack/react-query").QueryClient;
  svc: typeof import("@svc/react");
}

let peers: Promise<Peers> | undefined;

/**
 * React, `react-dom/server`, TanStack Query and `@svc/react`, loaded on first use and shared by
 * every handler set of the process. A missing one rejects with the one line that says what to
 * install (and the next call tries again).
 */
export function loadPeers(): Promise<Peers> {
  if (peers === undefined) {
    peers = importPeers();
    peers.catch(() => {
      peers = undefined;
    });
  }
  return peers;
}

async function importPeers(): Promise<Peers> {
  try {
    return await importAll();
  } catch (error) {
    // A package is missing: the one line that says what to install, not a resolution error
    // (svc's React layer first, which a server without any of them misses first).
    for (const id of ["@svc/react", "react", "react-dom", "@tanstack/react-query"]) {
      checkPeer(id, "server-side rendering", RENDER_PEERS);
    }
    throw error;
  }
}

async function importAll(): Promise<Peers> {
  const need = <T>(id: string) => requirePeer<T>(id, "server-side rendering", RENDER_PEERS);
  const react = need<typeof import("react")>("react");
  const staticDom = need<typeof import("react-dom/static")>("react-dom/static");
  const serverDom = need<typeof import("react-dom/server")>("react-dom/server");
  // ES modules, so that svc's React layer and TanStack Query are the very copies that
  // `@svc/react` itself imports.
  const [svc, query] = await Promise.all([import("@svc/react"), import("@tanstack/react-query")]);
  const shared: Record<string, unknown> = {
    react: watchingIds(react),
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
    Fragment: react.Fragment,
    prerender: staticDom.prerender,
    renderToString: serverDom.renderToString,
    QueryClient: query.QueryClient,
    svc,
  };
}

/** How many times server bundles have called `useId` (see {@link watchingIds}). */
let idCalls = 0;

/**
 * React as server bundles get it: the same module, its `useId` counted. An id depends on the
 * component's place in React's tree, so a component that asks for one is never rendered in a
 * batch with others (see {@link renderBatch}), where its place differs from the one it has
 * when the browser hydrates it alone.
 */
function watchingIds(react: typeof import("react")): typeof import("react") {
  const useId = react.useId;
  return {
    ...react,
    useId() {
      idCalls++;
      return useId();
    },
  };
}

/** The style sheet of the render under way: what goober writes its rules to on the server. */
const renderSheet = new AsyncLocalStorage<{ data: string }>();

/**
 * The sheet of the synchronous render (`renderToString`) under way, if any: nothing else runs
 * on this thread until it returns, so a variable set around it does what `renderSheet` does
 * for `prerender`, which waits — without `AsyncLocalStorage.run`'s cost on every warm render.
 */
let syncSheet: { data: string } | undefined;

/** `renderToString(element)`, goober's rules going to `sheet`. */
function renderToSheet(
  renderToString: Peers["renderToString"],
  element: Parameters<Peers["renderToString"]>[0],
  sheet: { data: string },
): string {
  const outer = syncSheet;
  syncSheet = sheet;
  try {
    return renderToString(element);
  } finally {
    syncSheet = outer;
  }
}

/**
 * goober as server bundles get it: the rules a render's components make go to that render's
 * own sheet (goober's target, found through the render's async context), never to goober's one
 * global server sheet, which only grows and which concurrent renders would share. Outside a
 * render (a module's top level), rules go to a sheet that is dropped.
 */
function perRenderGoober(goober: typeof import("goober")): typeof import("goober") {
  const sheet = () => syncSheet ?? renderSheet.getStore() ?? { data: "" };
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

/** A component's version, evaluated for one API base. */
export interface Evaluated {
  readonly serverHash: string;
  /** The browser bundle's hash, which the island names. */
  hash: string;
  readonly bundle: EvaluatedBundle;
  /**
   * Rendering this version loaded another component (`useComponent`) last time: it suspends,
   * so it goes to `prerender` straight away.
   */
  suspends: boolean;
  /**
   * Whether this version renders alone, without svc's tree around it: unknown until tried,
   * false once rendering it alone failed (it uses `useComponent`, `useSvc`, or suspends).
   */
  bare: boolean | undefined;
  /**
   * Whether this version may be rendered alone in a batch with others (see
   * {@link renderBatch}): unknown until rendered alone; true while every render alone gave
   * only its HTML — no resource hints, no goober rules, no `useId`; false for good after one
   * that did not.
   */
  batchable: boolean | undefined;
}

/**
 * The versions evaluated, by name and files root (asset URLs differ per root): only the
 * newest version of each component, so a replaced one can be collected.
 */
export class Evaluations {
  readonly #byName = new Map<string, { serverHash: string; byBase: Map<string, Evaluated> }>();

  /**
   * `name`'s version `serverHash` evaluated for `filesRoot`; `code` gives its code when it has
   * not been evaluated for that files root yet.
   */
  get(
    shared: SharedModules,
    name: string,
    serverHash: string,
    hash: string,
    filesRoot: string,
    code: () => string,
  ): Evaluated {
    let versions = this.#byName.get(name);
    if (versions?.serverHash !== serverHash) {
      // Older versions (and other API bases' copies of them) go, so memory stays bounded.
      versions = { serverHash, byBase: new Map() };
      this.#byName.set(name, versions);
    }
    const known = versions.byBase.get(filesRoot);
    if (known !== undefined) {
      known.hash = hash;
      return known;
    }
    const bundle = evaluateServerBundle(code(), name, serverHash, shared, assetUrlOf(filesRoot));
    const fresh: Evaluated = {
      serverHash,
      hash,
      bundle,
      suspends: false,
      bare: undefined,
      batchable: undefined,
    };
    versions.byBase.set(filesRoot, fresh);
    return fresh;
  }
}

/**
 * The URL of a file a component imports (`./assets/logo-24WHYHIF.png`) as its browser bundle
 * makes it when loaded from `filesRoot`: a path below a path, the full URL below a full URL.
 */
function assetUrlOf(filesRoot: string): (path: string) => string {
  const bundles = `${filesRoot}/bundles/`;
  if (/^[a-z][a-z\d+.-]*:/i.test(filesRoot)) return (path) => new URL(path, bundles).href;
  const root = bundles.startsWith("/") ? bundles : `/${bundles}`;
  return (path) => new URL(path, `file://${root}`).pathname;
}

/**
 * A request of the render's (another component's bundle or metadata) that the handler set
 * refused (not found, a bundle error, …): the render fails with the handler set's own error.
 */
export class Refused extends Error {
  /** What identifies the refusal to whoever rethrows it (the error, or a request's id). */
  readonly reason: unknown;
  constructor(message: string, reason: unknown) {
    super(message);
    this.reason = reason;
  }
}

/** What a render needs besides the peers. */
export interface TreeRender {
  name: string;
  props: Record<string, unknown>;
  own: Evaluated;
  /** The island's own metadata (read already, to check its props). */
  metadata: unknown;
  /** The URL below which the browser finds the bundles' files (`{filesRoot}/bundles/…`). */
  filesRoot: string;
  /** Another component, evaluated (`useComponent` on the server); rejects with `Refused`. */
  load(name: string): Promise<Evaluated>;
  loadMetadata(name: string): Promise<ComponentMetadata>;
  /**
   * The render has to wait (for a nested component, or on a promise of its own): the signal
   * that aborts it once its time runs out. Until then it runs synchronously, start to end.
   */
  waits(): AbortSignal;
  /**
   * Render the component without svc's tree around it when it may (see `renderTree`).
   * Default: true. (False in tests, to compare both.)
   */
  bare?: boolean;
  /** It was rendered alone already, and threw (see {@link renderAlone}): do not try again. */
  triedAlone?: boolean;
}

/** What a render gives back. */
export interface TreeRendered {
  html: string;
  /** CSS-in-JS rules the render made (goober's), for a `<style>` before the island. */
  styles: string;
  /** Every component the render loaded, its own first. */
  loaded: Map<string, Evaluated>;
}

/**
 * Whether `renderToString` left a Suspense boundary to the browser: something suspended (it
 * does not wait) or threw. Text and attributes are escaped, so only React writes these markers.
 */
export const CLIENT_RENDERED = /<!--\$[!?]-->/;

/** What React's `renderToString` writes around a Suspense boundary it completed. */
const BOUNDARY_START = "<!--$-->";
const BOUNDARY_END = "<!--/$-->";

/**
 * What React hoists ahead of everything else it writes: a preload hint per image, and the
 * `<link>`s (other than a stylesheet without `precedence`), `<meta>`s (without `itemProp`),
 * `<title>`s, async `<script>`s and `<style>`s with a `precedence` a component renders. In
 * svc's tree they come before the boundary, not inside it, and the browser hydrates the
 * boundary's content only. Attribute values and text are escaped (`&gt;`, `&lt;`), so none of
 * them holds a `>` or `<` of its own, and a style's CSS no `</style` (`</\73 tyle`).
 */
/** How each of {@link LEADING_HINTS} starts. */
const HINT_START = /^<(?:link |meta |title>|script |style )/;
const LEADING_HINTS =
  /^(?:<link (?![^>]*rel="stylesheet")[^>]*>|<link [^>]*data-precedence="[^>]*>|<meta (?![^>]*itemProp=)[^>]*>|<title>[^<]*<\/title>|<script async=""[^>]*><\/script>|<style data-precedence="[^>]*>[\s\S]*?<\/style>)*/;

/**
 * Renders the island's tree. Three ways, fastest first:
 *
 * - A component that names no other (`metadata.dependencies`) is rendered alone with
 *   `renderToString`, wrapped in the markers of the Suspense boundary `ServerComponent` puts
 *   around it (React's resource hints kept ahead of them, where the tree has them) — svc's
 *   tree writes nothing else, so the HTML is the same, and the tree's
 *   providers, boundaries and queries cost three times the component. If it cannot render
 *   alone (it uses `useComponent` with a name computed at run time, `useSvc`, or suspends),
 *   it is rendered as below, and once that succeeds the version is never tried alone again
 *   (a component that threw is tried alone again: it may have thrown for those props only).
 * - The tree with `renderToString`, its own module and metadata put in its query client so it
 *   does not suspend for them.
 * - When that left a boundary to the browser (something suspended or threw): `prerender`,
 *   which waits for what it asked for (the same query client, so nothing is asked twice) and
 *   reports what it threw. A version that loaded another component goes there at once next
 *   time.
 *
 * The first two are synchronous, and return the result itself, not a promise: a warm render
 * waits for nothing.
 */
export function renderTree(peers: Peers, render: TreeRender): TreeRendered | Promise<TreeRendered> {
  const { createElement, QueryClient, svc } = peers;
  const { name, own, props } = render;
  const loaded = new Map<string, Evaluated>().set(name, own);
  const sheet = { data: "" };
  /** It was tried alone and failed: if the tree renders, it needs the tree. */
  let needsTree = render.triedAlone === true;
  if (!needsTree && render.bare !== false && mayRenderAlone(own, render.metadata)) {
    const alone = renderAlone(peers, own, props);
    if (alone !== undefined) return { html: alone.html, styles: alone.styles, loaded };
    needsTree = true;
  }
  /** The render asked for another component or metadata: it suspended. */
  let asked = false;
  const client = {
    // The client's shape (`SvcClient`): its API base names its query keys.
    apiBase: render.filesRoot,
    manifestUrl: undefined,
    source: "server",
    async load(other: string) {
      const known = loaded.get(other);
      if (known !== undefined) return known.bundle.module;
      asked = true;
      const found = await render.load(other);
      loaded.set(other, found);
      return found.bundle.module;
    },
    loadMetadata(other: string) {
      asked = true;
      return render.loadMetadata(other);
    },
    loadManifest: () => Promise.reject(new Error("no manifest on the server")),
    // Each component is loaded as it renders: nothing is fetched ahead.
    loadPreloaded: () => Promise.resolve(new Map()),
    setHash() {},
    invalidate() {},
  };
  const queryClient = new QueryClient();
  // What the island's own component needs is at hand: nothing to suspend for.
  queryClient.setQueryData(svc.svcQueryKeys.component(client, name), own.bundle.module);
  queryClient.setQueryData(svc.svcQueryKeys.metadata(client, name), render.metadata);
  const tree = createElement(
    svc.SvcProvider,
    { client, queryClient },
    createElement(svc.ServerComponent, { name, props }),
  );
  if (!own.suspends) {
    const html = renderToSheet(peers.renderToString, tree, sheet);
    if (!CLIENT_RENDERED.test(html)) {
      if (needsTree) own.bare = false;
      return { html, styles: sheet.data, loaded };
    }
    own.suspends = asked;
  }
  // What that render wrote is dropped with it: `prerender` collects anew.
  return prerenderTree(peers, render, tree, needsTree, loaded);
}

/** The rest of {@link renderTree} when the tree has to wait: `prerender`, which waits. */
async function prerenderTree(
  { prerender }: Peers,
  render: TreeRender,
  tree: ReturnType<Peers["createElement"]>,
  needsTree: boolean,
  loaded: Map<string, Evaluated>,
): Promise<TreeRendered> {
  const sheet = { data: "" };
  const signal = render.waits();
  let failure: unknown;
  const result = await renderSheet.run(sheet, () =>
    prerender(tree, {
      signal,
      onError: (error) => {
        failure ??= error;
      },
    }),
  );
  if (failure !== undefined) throw failure;
  const html = await new Response(result.prelude).text();
  if (needsTree) render.own.bare = false;
  return { html, styles: sheet.data, loaded };
}

/**
 * Whether `own` may be rendered alone, without svc's tree (see {@link renderTree}): it names no
 * other component (`metadata.dependencies`), and rendering this version alone has not failed
 * where the tree succeeded.
 */
export function mayRenderAlone(own: Evaluated, metadata: unknown): boolean {
  return (
    own.bare !== false && (metadata as ComponentMetadata | undefined)?.dependencies?.length === 0
  );
}

/**
 * `own` rendered alone, as svc's tree renders it (see {@link renderTree}); undefined when it
 * threw: then it is rendered in the tree, which says why if it throws there too.
 */
export function renderAlone(
  { createElement, renderToString }: Peers,
  own: Evaluated,
  props: Record<string, unknown>,
): { html: string; styles: string } | undefined {
  const sheet = { data: "" };
  const ids = idCalls;
  let html: string;
  try {
    const component = own.bundle.module.default as Parameters<typeof createElement>[0];
    html = renderToSheet(renderToString, createElement(component, props as never), sheet);
  } catch {
    return undefined;
  }
  // A boundary of the component's own left to the browser (a child threw or suspended):
  // React wrote why into the HTML, and the tree's `prerender` waits for it or reports it.
  if (CLIENT_RENDERED.test(html)) return undefined;
  own.bare = true;
  // Most components start with an element of their own: no hint to look for.
  const hints = HINT_START.test(html) ? (LEADING_HINTS.exec(html)?.[0] ?? "") : "";
  own.batchable = own.batchable !== false && hints === "" && sheet.data === "" && idCalls === ids;
  return {
    html: hints + BOUNDARY_START + html.slice(hints.length) + BOUNDARY_END,
    styles: sheet.data,
  };
}

/**
 * Where {@link renderBatch} separates two components' HTML: an element no component renders
 * (its attribute's value is new in each process; text and attribute values are escaped, so
 * no component's output can hold it).
 */
const SPLIT_VALUE = randomUUID();
const SPLIT_HTML = `<template data-svc-split="${SPLIT_VALUE}"></template>`;

/**
 * Components rendered alone (see {@link renderAlone}), several in one `renderToString`: React
 * sets up and flushes a render once for all of them, not once each, which costs about as much
 * as rendering a small card. Each one's HTML is what it renders alone: they are siblings, each
 * after an element of svc's (no text of one runs into the next's), and only versions that
 * rendered alone without hints, goober rules or `useId` ({@link Evaluated.batchable}) are
 * batched. Undefined when this render is not the same as rendering each alone — something
 * threw, suspended, asked for an id, wrote a rule or a hint (all of them go first, for the
 * batch as a whole): then each is rendered alone.
 */
export function renderBatch(
  { createElement, Fragment, renderToString }: Peers,
  items: readonly { own: Evaluated; props: Record<string, unknown> }[],
): string[] | undefined {
  const children: ReturnType<Peers["createElement"]>[] = [];
  const split = createElement("template", { "data-svc-split": SPLIT_VALUE });
  for (const { own, props } of items) {
    // One before each: whatever React hoists ahead of the first (hints, titles, styles with a
    // precedence, for the whole render) shows before the first of them.
    children.push(split);
    const component = own.bundle.module.default as Parameters<typeof createElement>[0];
    children.push(createElement(component, props as never));
  }
  const sheet = { data: "" };
  const ids = idCalls;
  let html: string;
  try {
    html = renderToSheet(renderToString, createElement(Fragment, null, ...children), sheet);
  } catch {
    return undefined;
  }
  if (idCalls !== ids || sheet.data !== "" || !html.startsWith(SPLIT_HTML)) return undefined;
  if (CLIENT_RENDERED.test(html)) return undefined;
  const parts = html.slice(SPLIT_HTML.length).split(SPLIT_HTML);
  if (parts.length !== items.length) return undefined;
  return parts.map((part) => BOUNDARY_START + part + BOUNDARY_END);
}

/** Why a render failed. */
export type TreeFailure =
  /** A request the handler set refused: its reason (see `Refused`). */
  | { refused: unknown }
  /** The component threw: its message and stack, mapped to the component's files. */
  | { component: string; message: string; stack?: string };

/** What went wrong in a render: a refusal of the handler set's, or the component's throw. */
export function failureOf(error: unknown, loaded: ReadonlyMap<string, Evaluated>): TreeFailure {
  // React wraps what a lazy component threw; useComponent's errors carry the component's name.
  const seen = new Set<unknown>();
  let current: unknown = error;
  while (current !== null && typeof current === "object" && !seen.has(current)) {
    if (current instanceof Refused) return { refused: current.reason };
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
