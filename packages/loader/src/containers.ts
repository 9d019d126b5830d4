/**
 * The page's containers (`[data-svc-component]`): each rendered in its own React root, or, for
 * an island the server rendered, hydrated when its strategy says so.
 */
import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import type * as ReactDOMClient from "react-dom/client";
import { type ContainerState, containerTree } from "./containerTree.ts";
import { follow } from "./liveReload.ts";
import { extrasFor } from "./loaderExtras.ts";
import { isLive, type LoaderScript } from "./loaderScript.ts";
import { createRoot, hydrateRoot, problem } from "./pageModules.ts";
import { metadataOf, moduleOf, queryClientOf, sourceFor } from "./sources.ts";

// Replaced by the build.
declare const process: { env: { NODE_ENV?: string } };

interface Mounted extends ContainerState {
  /** Undefined while a server-rendered island waits for its hydration. */
  root: Pick<ReactDOMClient.Root, "render" | "unmount"> | undefined;
  /** Stops waiting to hydrate (an island whose strategy has not fired yet). */
  cancel?: () => void;
}

/** The rendered containers. */
const mounted = new Map<Element, Mounted>();

/** Renders `container` (a server-rendered island: waits to hydrate it), unless it is already. */
export function mount(container: Element, script: LoaderScript): void {
  if (mounted.has(container)) return;
  const name = container.getAttribute(ISLAND_ATTRIBUTES.component) ?? "";
  // An island names where its svc is (a page of another origin, a static build's manifest).
  const source = sourceFor(
    container.getAttribute(ISLAND_ATTRIBUTES.api) ?? script.api,
    container.getAttribute(ISLAND_ATTRIBUTES.manifest) ?? script.manifestUrl,
  );
  const hash = container.getAttribute(ISLAND_ATTRIBUTES.hash);
  if (hash) source.client.setHash(name, hash);
  if (script.live || isLive(container)) follow(source, redrawAll);
  const island = container.hasAttribute(ISLAND_ATTRIBUTES.ssr) && problem === undefined;
  const state: Mounted = {
    root: undefined,
    name,
    source,
    placeholder: island ? undefined : container.innerHTML,
    props: undefined,
    propsError: undefined,
  };
  mounted.set(container, state);
  readProps(container, state);
  if (island && state.propsError === undefined) {
    hydrate(container, state);
    return;
  }
  // A server-rendered island rendered anew instead (its props or React unusable): the
  // clicks it held go to the page.
  if (island || container.hasAttribute(ISLAND_ATTRIBUTES.ssr)) releaseClicks(container);
  state.root = createRoot(container);
  draw(state);
}

/** Renders a container again with its `data-svc-props` (or mounts it, if it is not yet). */
export function update(container: Element, script: LoaderScript): void {
  const state = mounted.get(container);
  if (state === undefined) {
    mount(container, script);
    return;
  }
  readProps(container, state);
  draw(state);
}

/** Unmounts a container's React root, or stops its wait to hydrate. */
export function unmount(container: Element): void {
  const state = mounted.get(container);
  if (state === undefined) return;
  mounted.delete(container);
  state.cancel?.();
  // Unmounted before it hydrated: nothing will replay what it held.
  if (state.root === undefined) releaseClicks(container);
  state.root?.unmount();
}

/** Every container again, after a reload (the others render as they were: same elements). */
export function redrawAll(): void {
  for (const state of mounted.values()) draw(state);
}

function draw(state: Mounted) {
  // An island not hydrated yet takes the props when it hydrates.
  state.root?.render(containerTree(state));
}

function readProps(container: Element, state: Mounted) {
  const raw = container.getAttribute(ISLAND_ATTRIBUTES.props);
  state.props = undefined;
  state.propsError = undefined;
  if (raw === null || raw.trim() === "") {
    state.props = {};
    return;
  }
  try {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error("expected a JSON object");
    }
    state.props = value as Record<string, unknown>;
  } catch (error) {
    state.propsError = (error as Error).message;
  }
}

/**
 * A container the server rendered (`data-svc-ssr`): hydrated when its strategy says so
 * (`loader.extras.js`), not replaced; `none` never loads anything, not even the extras.
 */
function hydrate(container: Element, state: Mounted) {
  const { source, name } = state;
  if (container.getAttribute(ISLAND_ATTRIBUTES.hydrate) === "none") return;
  let cancelled = false;
  state.cancel = () => {
    cancelled = true;
  };
  extrasFor(source).then(
    ({ hydrateIsland }) => {
      if (cancelled) return;
      state.cancel = hydrateIsland(container, name, {
        client: source.client,
        load: (other) =>
          process.env.NODE_ENV !== "production"
            ? Promise.all([moduleOf(source, other), metadataOf(source, other)]).then(([m]) => m)
            : moduleOf(source, other),
        queryClient: () => queryClientOf(source),
        hydrate(onRecoverableError) {
          // Unmounted while its bundles loaded: nothing to hydrate any more.
          if (mounted.get(container) !== state) return;
          const hydratedWith = state.props;
          state.root = hydrateRoot(container, containerTree(state), { onRecoverableError });
          // Props changed (svc.update) while it waited: hydrated as rendered, now updated.
          if (state.props !== hydratedWith) draw(state);
        },
      });
    },
    (error: unknown) => {
      releaseClicks(container);
      console.error(`svc: island "${name}":`, error);
    },
  );
}

/**
 * Hands back the clicks an `interaction` island held while it waited to hydrate, when it will
 * not be hydrated after all (see `replayInteraction` in `@svc/runtime/islands`, whose watch
 * sits on the element under this symbol: the loader itself does not bundle that module).
 */
function releaseClicks(container: Element): void {
  (container as unknown as Record<symbol, { release?: () => void } | undefined>)[
    Symbol.for("svc.interaction")
  ]?.release?.();
}
