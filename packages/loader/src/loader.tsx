/**
 * The standalone svc loader: one classic script for server-rendered pages.
 *
 * ```html
 * <div data-svc-component="counter" data-svc-props='{"initialValue":3}'></div>
 * <script src="/svc/loader.js"></script>
 * ```
 *
 * It renders every `[data-svc-component]` container in its own React root, inside Suspense
 * and an error boundary, and exposes `window.svc = { render, update, load, reload, unmount }`.
 * With `data-svc-live` on the script or a container it follows `svc serve`'s live-reload
 * stream (`{apiBase}/events`): changed components re-render in place. The hydration strategies
 * of islands and the live-reload client are `loader.extras.js` (extras.ts), fetched only by a
 * page that has an island or follows live reload.
 *
 * `loader.js` carries React, ReactDOM and `@svc/runtime`, and renders top-level components
 * without TanStack Query. The other shared modules (`@svc/react` with TanStack Query, goober)
 * are vendor files the runtime fetches only for a bundle that imports them; a component that
 * imports `@svc/react` is rendered inside its `SvcProvider`, so `useComponent` works below it.
 */
import {
  ISLAND_ATTRIBUTES,
  type KnownName,
  LOADER_EXTRAS_FILE,
  LOADER_EXTRAS_PATH,
  type PropsFor,
  type SvcComponentName,
  type SvcProps,
} from "@svc/protocol";
import type * as SvcReact from "@svc/react";
import * as svcReactModule from "@svc/react";
import { validateProps } from "@svc/react";
import * as runtime from "@svc/runtime";
import {
  adoptStylesheets,
  type ComponentModule,
  type ComponentStylesheet,
  createSvcClient,
  getComponentExport,
  getModuleRegistry,
  importCode,
  installModules,
  isSvcError,
  RenderError,
  SchemaValidationError,
  type SvcClient,
  stylesheetsOf,
} from "@svc/runtime";
import * as tanstackQuery from "@tanstack/react-query";
import * as goober from "goober";
import * as React from "react";
import * as jsxRuntime from "react/jsx-runtime";
import * as ReactDOM from "react-dom";
import * as ReactDOMClient from "react-dom/client";

/** Set by the build from `package.json` (see build.ts). */
declare const __SVC_LOADER_VERSION__: string;
const VERSION = __SVC_LOADER_VERSION__;
/**
 * Set by the build: `"url"` in `loader.esm.js`, an ES module whose React, `@svc/react` etc.
 * are the page's import map's, importing each bundle by its own URL (no `blob:`).
 */
declare const __SVC_MODULE_LOADING__: "blob" | "url";
// Replaced by the build.
declare const process: { env: { NODE_ENV?: string } };

/** `loader.extras.js`: island hydration strategies and the live-reload client (extras.ts). */
type LoaderExtras = typeof import("./extras.ts");

export interface SvcLoadOptions {
  /** API base to load from. Default: the script's `data-svc-api`, else `/api`. */
  apiBase?: string;
  /** Content hash to request. */
  hash?: string;
}

/** `window.svc`. */
export interface SvcGlobal {
  readonly version: string;
  /**
   * Renders every `[data-svc-component]` container in `root` (and `root` itself), skipping
   * those already rendered. Default root: the document. Returns the containers found.
   */
  render(root?: ParentNode): Element[];
  /**
   * Re-renders a container with new props and writes them to its `data-svc-props`. Props are
   * checked against the declared components (`SvcComponents`); name the component to check
   * against its props alone: `svc.update<"counter">(el, { step: 2 })`.
   */
  update<N extends SvcComponentName = SvcComponentName>(
    container: Element,
    props: SvcProps<N>,
  ): void;
  /**
   * Loads a component's module (shared cache with the rendered containers). A declared name
   * types its default export; a name typed `string` is let through (see `KnownName`).
   */
  load<P extends object = never, N extends string = string>(
    name: KnownName<N>,
    options?: SvcLoadOptions,
  ): Promise<SvcModule<PropsFor<P, N>>>;
  /** Unmounts a container's React root. */
  unmount(container: Element): void;
  /**
   * Fetches a component again (its source changed) and re-renders it wherever it is shown;
   * other components keep their state. `hash`: its new content hash, when known.
   */
  reload<N extends string>(name: KnownName<N>, options?: { hash?: string }): Promise<void>;
}

/** A component's module namespace as `window.svc.load` gives it: its default export typed. */
export type SvcModule<P> = ComponentModule & { readonly default?: React.ComponentType<P> };

declare global {
  interface Window {
    svc?: SvcGlobal;
  }
}

/** A promise React's `use` reads without suspending once it has settled. */
type Tracked<T> = Promise<T> & { status?: string; value?: T; reason?: unknown };

function track<T>(promise: Promise<T>): Tracked<T> {
  const tracked = promise as Tracked<T>;
  tracked.then(
    (value) => {
      tracked.status = "fulfilled";
      tracked.value = value;
    },
    (reason: unknown) => {
      tracked.status = "rejected";
      tracked.reason = reason;
    },
  );
  return tracked;
}

/** What the loader needs of TanStack Query's `QueryClient` (the vendor module's, on demand). */
type QueryClientLike = SvcReact.SvcProviderProps["queryClient"] & object;

/** One API (or manifest): its client, and the modules the loader rendered from it. */
interface Source {
  client: SvcClient;
  modules: Map<string, Tracked<ComponentModule>>;
  metadata: Map<string, Tracked<{ props?: unknown } | null>>;
  /** Bumped at every reload: error boundaries showing a failure start over. */
  revision: number;
  /** Created with the first component that imports `@svc/react` (for its `SvcProvider`). */
  queryClient?: QueryClientLike;
  /** Content hashes seen, by name (live reload compares them after a reconnect). */
  known: Map<string, string>;
  live?: boolean;
  disconnect?: () => void;
}

// The build also wraps this file in a guard, so a second copy never even evaluates its React;
// this check keeps the rule when the file is bundled some other way.
if (window.svc === undefined) window.svc = createLoader();

/**
 * The API a loader that svc serves to a page of another origin belongs to: its script's
 * directory (`http://127.0.0.1:8000/api/loader.js` → `http://127.0.0.1:8000/api`), so the page
 * needs nothing but the script tag. On the page's own origin `/api` stays the default: a copy
 * of the loader may be served from anywhere there.
 */
function apiOfScript(script: HTMLScriptElement | null): string | undefined {
  if (!script?.src) return undefined;
  const url = new URL(script.src, document.baseURI);
  if (url.origin === location.origin) return undefined;
  return new URL(".", url).href.replace(/\/+$/, "");
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

function createLoader(): SvcGlobal {
  const script =
    document.currentScript instanceof HTMLScriptElement
      ? document.currentScript
      : // A module script has no currentScript: its data-svc-* attributes are looked up.
        __SVC_MODULE_LOADING__ === "url"
        ? document.querySelector<HTMLScriptElement>(
            'script[type="module"]:is([data-svc-api],[data-svc-manifest],[data-svc-live])',
          )
        : null;
  const manifestUrl =
    script?.dataset.svcManifest ??
    document.querySelector<HTMLScriptElement>("script[data-svc-manifest]")?.dataset.svcManifest;
  const defaultApi = script?.dataset.svcApi ?? apiOfScript(script) ?? "/api";
  const liveEverywhere = isLive(script);

  const { R, createRoot, hydrateRoot, problem } = resolveModules();
  const h = R.createElement;
  const registry = getModuleRegistry();

  /** `@svc/react` once a bundle needed it (or the page registered its own). */
  const svcReact = (): typeof SvcReact | undefined =>
    registry["@svc/react"] as typeof SvcReact | undefined;
  /** goober's `setup`, done once goober is there (its `styled` needs React's createElement). */
  let gooberReady = false;
  const setUpGoober = () => {
    const goober = registry.goober as { setup?: (h: unknown) => void } | undefined;
    if (gooberReady || typeof goober?.setup !== "function") return;
    gooberReady = true;
    goober.setup(h);
  };

  const sources = new Map<string, Source>();
  /** The source of `apiBase` (and `manifest`: a static build's, the page's by default). */
  const sourceFor = (apiBase: string, manifest = manifestUrl): Source => {
    const key = `${manifest ?? ""}\n${apiBase}`;
    let source = sources.get(key);
    if (source === undefined) {
      source = {
        client: createSvcClient({
          apiBase,
          manifestUrl: manifest,
          moduleLoading: __SVC_MODULE_LOADING__,
        }),
        modules: new Map(),
        metadata: new Map(),
        revision: 0,
        known: new Map(),
      };
      sources.set(key, source);
    }
    return source;
  };

  let extras: Promise<LoaderExtras> | undefined;
  /**
   * `loader.extras.js`, fetched (once per page, again after a failure) when a page first has
   * an island to hydrate or follows live reload: from `source`'s API, or in static mode from
   * beside the manifest. `loader.esm.js` has it bundled in.
   */
  function extrasFor(source: Source): Promise<LoaderExtras> {
    if (extras === undefined) {
      const pending =
        __SVC_MODULE_LOADING__ === "url"
          ? // `.js`: a consumer's type check reaches this file, and may not allow `.ts` here.
            import("./extras.js")
          : importExtras(
              source.client.manifestUrl === undefined
                ? `${source.client.apiBase}${LOADER_EXTRAS_PATH}`
                : new URL(LOADER_EXTRAS_FILE, new URL(source.client.manifestUrl, document.baseURI))
                    .href,
            );
      extras = pending;
      pending.catch(() => {
        if (extras === pending) extras = undefined;
      });
    }
    return extras;
  }

  /** The QueryClient of `source` for `@svc/react`: one per API, as `useComponent` keys by name. */
  function queryClientOf(source: Source): QueryClientLike | undefined {
    if (source.queryClient === undefined) {
      const QueryClient = (
        registry["@tanstack/react-query"] as { QueryClient?: new () => QueryClientLike } | undefined
      )?.QueryClient;
      if (QueryClient !== undefined) source.queryClient = new QueryClient();
    }
    return source.queryClient;
  }

  /** Which `@svc/react` (if any) wraps each module: decided once, so its tree stays put. */
  const providers = new WeakMap<ComponentModule, typeof SvcReact | undefined>();

  /** `name`'s module, loaded once per source (with the components it preloaded). */
  function moduleOf(source: Source, name: string): Tracked<ComponentModule> {
    let module = source.modules.get(name);
    if (module === undefined) {
      module = track(
        source.client.load(name).then(async (loaded) => {
          setUpGoober();
          const S = svcReact();
          providers.set(loaded, S);
          const queryClient = S === undefined ? undefined : queryClientOf(source);
          if (S !== undefined && queryClient !== undefined) {
            // What it preloads goes where its `useComponent` looks: one render pass.
            for (const [other, preloaded] of await source.client.loadPreloaded(name)) {
              const key = S.svcQueryKeys.component(source.client, other);
              if (queryClient.getQueryData(key) === undefined) {
                queryClient.setQueryData(key, preloaded);
              }
            }
          }
          if (source.live) {
            source.client.loadMetadata(name).then(
              (metadata) => source.known.set(name, metadata.hash),
              () => {},
            );
          }
          return loaded;
        }),
      );
      source.modules.set(name, module);
    }
    return module;
  }

  /** `name`'s metadata (development: its props schema), fetched alongside the bundle. */
  function metadataOf(source: Source, name: string) {
    let metadata = source.metadata.get(name);
    if (metadata === undefined) {
      metadata = track(source.client.loadMetadata(name).catch(() => null));
      source.metadata.set(name, metadata);
    }
    return metadata;
  }

  /** The default error display: the message, as text, in an element marked `role="alert"`. */
  const ErrorMessage = ({ error }: { error: Error }) =>
    h(
      "div",
      {
        role: "alert",
        className: "svc-error",
        "data-svc-error": isSvcError(error) ? error.kind : "Error",
      },
      error.message,
    );

  interface FrameProps {
    source: Source;
    name: string;
    props: Record<string, unknown>;
    revision: number;
    children?: React.ReactNode;
  }

  /**
   * A container's error boundary: shows the failure, and starts over when the props change or
   * a component was fetched again (live reload, `svc.reload`).
   */
  class Frame extends R.Component<FrameProps, { error: unknown }> {
    override state = { error: null as unknown };
    static getDerivedStateFromError(error: unknown) {
      return { error };
    }
    override componentDidUpdate(previous: FrameProps, before: { error: unknown }) {
      const { props, revision, name, source } = this.props;
      const { error } = this.state;
      // An error shown before this update, not one this update's render just threw.
      if (
        before.error !== null &&
        error !== null &&
        (previous.props !== props || previous.revision !== revision || previous.name !== name)
      ) {
        // The failed load it shows is tried again; one made since (a reload's) is shown as is.
        const module = source.modules.get(name);
        if (module?.status === "rejected" && module.reason === error) source.modules.delete(name);
        this.setState({ error: null });
      }
    }
    override render() {
      const { error } = this.state;
      if (error === null) return this.props.children;
      return h(ErrorMessage, {
        error: isSvcError(error) ? error : new RenderError(this.props.name, error),
      });
    }
  }

  /** The component with its stylesheets applied while it is mounted. */
  function Styled({
    component,
    props,
    sheets,
  }: {
    component: React.ComponentType<object>;
    props: object;
    sheets: readonly ComponentStylesheet[];
  }) {
    R.useInsertionEffect(() => adoptStylesheets(sheets), [sheets]);
    return h(component, props);
  }

  function Loaded({ source, name, props }: FrameProps) {
    const module = R.use(moduleOf(source, name) as Promise<ComponentModule>);
    if (process.env.NODE_ENV !== "production") {
      const schema = R.use(metadataOf(source, name) as Promise<{ props?: unknown } | null>)
        ?.props as Parameters<typeof validateProps>[0] | undefined;
      const issues = schema ? validateProps(schema, props) : [];
      if (issues.length > 0) throw new SchemaValidationError(name, issues);
    }
    const component = getComponentExport(module, name) as React.ComponentType<object>;
    // A plain error it throws is named (a `RenderError`) by the container's `Frame`.
    const content = h(Styled, { component, props, sheets: stylesheetsOf(module) });
    const S = providers.get(module);
    const queryClient = S === undefined ? undefined : queryClientOf(source);
    return S === undefined
      ? content
      : h(S.SvcProvider, { client: source.client, queryClient }, content);
  }

  interface Mounted {
    /** Undefined while a server-rendered island waits for its hydration. */
    root: Pick<ReactDOMClient.Root, "render" | "unmount"> | undefined;
    name: string;
    source: Source;
    placeholder: string | undefined;
    props: Record<string, unknown> | undefined;
    propsError: string | undefined;
    /** Stops waiting to hydrate (an island whose strategy has not fired yet). */
    cancel?: () => void;
  }
  const mounted = new Map<Element, Mounted>();

  function readProps(container: Element, state: Mounted) {
    const raw = container.getAttribute("data-svc-props");
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

  function tree(state: Mounted): React.ReactNode {
    if (problem !== undefined) return h(ErrorMessage, { error: new Error(problem) });
    if (state.propsError !== undefined) {
      return h(ErrorMessage, {
        error: new Error(
          `Invalid data-svc-props for component "${state.name}": ${state.propsError}`,
        ),
      });
    }
    const { source, name } = state;
    const frame = { source, name, props: state.props ?? {}, revision: source.revision };
    return h(
      Frame,
      frame,
      h(
        R.Suspense,
        {
          // Keep the server-rendered placeholder on screen until the component is ready (an
          // island hydrates the server's HTML instead).
          fallback:
            state.placeholder === undefined
              ? null
              : h("div", {
                  "data-svc-loading": "",
                  style: { display: "contents" },
                  dangerouslySetInnerHTML: { __html: state.placeholder },
                }),
        },
        h(Loaded, frame),
      ),
    );
  }

  function draw(state: Mounted) {
    // An island not hydrated yet takes the props when it hydrates.
    state.root?.render(tree(state));
  }

  /**
   * A container the server rendered (`data-svc-ssr`): hydrated when its strategy says so
   * (`loader.extras.js`), not replaced; `none` never loads anything, not even the extras.
   */
  function hydrate(container: Element, state: Mounted) {
    const { source, name } = state;
    if (container.getAttribute("data-svc-hydrate") === "none") return;
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
            state.root = hydrateRoot(container, tree(state), { onRecoverableError });
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

  function mount(container: Element) {
    if (mounted.has(container)) return;
    const name = container.getAttribute("data-svc-component") ?? "";
    // An island names where its svc is (a page of another origin, a static build's manifest).
    const source = sourceFor(
      container.getAttribute(ISLAND_ATTRIBUTES.api) ?? defaultApi,
      container.getAttribute(ISLAND_ATTRIBUTES.manifest) ?? manifestUrl,
    );
    const hash = container.getAttribute("data-svc-hash");
    if (hash) source.client.setHash(name, hash);
    if (liveEverywhere || isLive(container)) follow(source);
    const island = container.hasAttribute("data-svc-ssr") && problem === undefined;
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
    if (island || container.hasAttribute("data-svc-ssr")) releaseClicks(container);
    state.root = createRoot(container);
    draw(state);
  }

  /** Every container again, after a reload (the others render as they were: same elements). */
  function redrawAll() {
    for (const state of mounted.values()) draw(state);
  }

  /**
   * Fetches `name` again for every source that has it and re-renders in place; with `hash`
   * that version, without one (a failed build) whatever is current — its failure shows.
   */
  async function reloadIn(source: Source, name: string, hash: string | undefined) {
    const { client } = source;
    client.setHash(name, hash);
    const S = svcReact();
    const queryClient = source.queryClient;
    if (S !== undefined && queryClient !== undefined) {
      // Components loaded through `useComponent` (nested) live in its cache; without a hash
      // their failure shows where they are nested too (a page's own older copy lacks it).
      await ((hash === undefined && S.showComponentFailure) || S.reloadComponent)(name, {
        client,
        queryClient,
        hash,
      });
    } else {
      client.invalidate(name);
    }
    if (source.modules.has(name)) {
      source.modules.delete(name);
      // Fetched before the redraw, a new version or a failed build's error alike: the render
      // finds it settled and shows it at once (React holds back a render that waited, up to
      // 300 ms), and every container shows the same one, fetched once.
      await moduleOf(source, name).catch(() => {});
    }
    source.revision++;
    redrawAll();
  }

  /** One live-reload connection per API (static mode has no event stream). */
  function follow(source: Source) {
    if (source.live || source.client.manifestUrl !== undefined) return;
    source.live = true;
    extrasFor(source).then(
      ({ followLive }) => {
        source.disconnect = followLive(source, (name, hash) => void reloadIn(source, name, hash));
      },
      (error: unknown) => console.error("svc: live reload is off:", error),
    );
  }

  const svc: SvcGlobal = {
    version: VERSION,

    render(root: ParentNode = document) {
      const found: Element[] = [];
      if (root instanceof Element && root.matches("[data-svc-component]")) found.push(root);
      found.push(...root.querySelectorAll("[data-svc-component]"));
      for (const container of found) mount(container);
      return found;
    },

    update(container, props) {
      if (!(container instanceof Element)) throw new TypeError("svc.update: not an element");
      container.setAttribute("data-svc-props", JSON.stringify(props ?? {}));
      const state = mounted.get(container);
      if (state === undefined) {
        mount(container);
        return;
      }
      readProps(container, state);
      draw(state);
    },

    load(name, options = {}) {
      return sourceFor(options.apiBase ?? defaultApi).client.load(name, {
        hash: options.hash,
      }) as Promise<never>;
    },

    async reload(name, options = {}) {
      await Promise.all(
        [...sources.values()].map((source) => reloadIn(source, name, options.hash)),
      );
    },

    unmount(container) {
      const state = mounted.get(container);
      if (state === undefined) return;
      mounted.delete(container);
      state.cancel?.();
      // Unmounted before it hydrated: nothing will replay what it held.
      if (state.root === undefined) releaseClicks(container);
      state.root?.unmount();
    },
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => svc.render(), { once: true });
  } else {
    svc.render();
  }
  return svc;
}

/**
 * `loader.extras.js` from `url`, imported from `blob:` as bundles are (so the page's CSP needs
 * nothing more, whatever origin the API is on).
 */
async function importExtras(url: string): Promise<LoaderExtras> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`svc loader: request to ${url} failed: ${(error as Error).message}`, {
      cause: error,
    });
  }
  if (!response.ok) {
    throw new Error(
      `svc loader: GET ${url} → ${response.status}: serve ${LOADER_EXTRAS_FILE} (islands, live reload) as the svc API does, or from svc build's output`,
    );
  }
  const extras = (await importCode(await response.text())) as unknown as LoaderExtras;
  // The loader lends the extras its own parts: both must come from one svc.
  if (extras.version !== VERSION) {
    throw new Error(
      `svc loader: ${url} is version ${extras.version}, this loader ${VERSION}: serve both from one svc`,
    );
  }
  return extras;
}

/** `data-svc-live` (any value but "false") on the script or a container. */
function isLive(element: Element | null): boolean {
  const value = element?.getAttribute("data-svc-live");
  return value !== null && value !== undefined && value !== "false";
}

/**
 * Installs the bundled modules, unless the page already registered a React: then that React
 * and its `react-dom/client` are used, since two Reacts on one page break hooks. Everything is
 * rendered through the registry's modules, never around them.
 */
function resolveModules() {
  const registry = getModuleRegistry();
  const foreign = registry.react !== undefined && registry.react !== React;
  // In `loader.esm.js` these are the import map's modules: the very ones bundles get, the
  // on-demand ones included (the import map resolves them; only `loader.js` fetches them
  // on demand). Only there: in `loader.js` the build drops them.
  if (__SVC_MODULE_LOADING__ === "url") {
    installModules({
      "@svc/react": svcReactModule,
      "@tanstack/react-query": tanstackQuery,
      goober,
    });
  }
  installModules(
    foreign
      ? { "@svc/runtime": runtime }
      : {
          react: React,
          "react/jsx-runtime": jsxRuntime,
          "react-dom": ReactDOM,
          "react-dom/client": ReactDOMClient,
          "@svc/runtime": runtime,
        },
  );
  const R = registry.react as typeof React;
  const client = registry["react-dom/client"] as typeof ReactDOMClient | undefined;
  return {
    R,
    createRoot: client?.createRoot ?? ReactDOMClient.createRoot,
    hydrateRoot: client?.hydrateRoot ?? ReactDOMClient.hydrateRoot,
    problem:
      foreign && client === undefined
        ? "svc loader: the page registered its own React in window.__MODULES__ but not react-dom/client; register both (or neither)."
        : undefined,
  };
}
