/**
 * Rendering an island's tree, wherever it runs: in the server's own thread (the default) or in
 * the render worker (`renderIsolation: "worker"`). Both load the same peers, evaluate server
 * bundles the same way and render the same tree — the one the browser hydrates,
 * `<SvcProvider><ServerComponent name props /></SvcProvider>` — so their HTML is the same.
 */
import { type ComponentMetadata, ISLAND_ATTRIBUTES } from "@svc/protocol";
import type { Evaluated } from "./evaluations.ts";
import type { Peers } from "./peers.ts";
import {
  BOUNDARY_END,
  BOUNDARY_START,
  CLIENT_RENDERED,
  HINT_START,
  idCount,
  LEADING_HINTS,
  renderSheet,
  renderToSheet,
  SPLIT_HTML,
  SPLIT_VALUE,
} from "./reactInterop.ts";

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
  const ids = idCount();
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
  own.batchable = own.batchable !== false && hints === "" && sheet.data === "" && idCount() === ids;
  return {
    html: hints + BOUNDARY_START + html.slice(hints.length) + BOUNDARY_END,
    styles: sheet.data,
  };
}

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
  const split = createElement("template", { [ISLAND_ATTRIBUTES.split]: SPLIT_VALUE });
  for (const { own, props } of items) {
    // One before each: whatever React hoists ahead of the first (hints, titles, styles with a
    // precedence, for the whole render) shows before the first of them.
    children.push(split);
    const component = own.bundle.module.default as Parameters<typeof createElement>[0];
    children.push(createElement(component, props as never));
  }
  const sheet = { data: "" };
  const ids = idCount();
  let html: string;
  try {
    html = renderToSheet(renderToString, createElement(Fragment, null, ...children), sheet);
  } catch {
    return undefined;
  }
  if (idCount() !== ids || sheet.data !== "" || !html.startsWith(SPLIT_HTML)) return undefined;
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
