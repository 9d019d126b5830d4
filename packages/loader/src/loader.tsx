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
 * stream (`{apiBase}/events`): changed components re-render in place.
 */
import * as svcReact from "@svc/react";
import {
  type ComponentModule,
  getModuleRegistry,
  installModules,
  type KnownName,
  type PropsFor,
  type SvcClient,
  type SvcComponentName,
  type SvcProps,
} from "@svc/react";
import { QueryClient } from "@tanstack/react-query";
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
const BY_URL = __SVC_MODULE_LOADING__ === "url";

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

// The build also wraps this file in a guard, so a second copy never even evaluates its React;
// this check keeps the rule when the file is bundled some other way.
if (window.svc === undefined) window.svc = createLoader();

function createLoader(): SvcGlobal {
  const script =
    document.currentScript instanceof HTMLScriptElement
      ? document.currentScript
      : // A module script has no currentScript: its data-svc-* attributes are looked up.
        BY_URL
        ? document.querySelector<HTMLScriptElement>(
            'script[type="module"]:is([data-svc-api],[data-svc-manifest],[data-svc-live])',
          )
        : null;
  const manifestUrl =
    script?.dataset.svcManifest ??
    document.querySelector<HTMLScriptElement>("script[data-svc-manifest]")?.dataset.svcManifest;
  const defaultApi = script?.dataset.svcApi ?? "/api";
  const liveEverywhere = isLive(script);

  const { R, createRoot, hydrateRoot, S, problem } = resolveModules();

  const clients = new Map<
    string,
    { client: SvcClient; queryClient: QueryClient; disconnect?: () => void }
  >();
  const clientFor = (apiBase: string) => {
    const key = `${manifestUrl ?? ""}\n${apiBase}`;
    let entry = clients.get(key);
    if (entry === undefined) {
      // One QueryClient per API: the query key is `['component', name]`, without the API.
      entry = {
        client: S.createSvcClient({ apiBase, manifestUrl, moduleLoading: __SVC_MODULE_LOADING__ }),
        queryClient: new QueryClient(),
      };
      clients.set(key, entry);
    }
    return entry;
  };

  interface Mounted {
    /** Undefined while a server-rendered island waits for its hydration. */
    root: Pick<ReactDOMClient.Root, "render" | "unmount"> | undefined;
    name: string;
    client: SvcClient;
    queryClient: QueryClient;
    placeholder: string;
    props: Record<string, unknown> | undefined;
    propsError: string | undefined;
    /** Stops waiting to hydrate (an island whose strategy has not fired yet). */
    cancel?: () => void;
  }
  const mounted = new WeakMap<Element, Mounted>();

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

  function draw(state: Mounted) {
    if (state.root === undefined) return; // an island not hydrated yet: it takes the props then
    const h = R.createElement;
    let content: React.ReactNode;
    if (problem !== undefined) {
      content = h(S.SvcErrorMessage, { error: new Error(problem) });
    } else if (state.propsError !== undefined) {
      content = h(S.SvcErrorMessage, {
        error: new Error(
          `Invalid data-svc-props for component "${state.name}": ${state.propsError}`,
        ),
      });
    } else {
      content = h(S.ServerComponent, {
        name: state.name,
        props: state.props,
        // Keep the server-rendered placeholder on screen until the component is ready.
        fallback: h("div", {
          "data-svc-loading": "",
          style: { display: "contents" },
          dangerouslySetInnerHTML: { __html: state.placeholder },
        }),
      });
    }
    state.root.render(
      h(S.SvcProvider, { client: state.client, queryClient: state.queryClient }, content),
    );
  }

  /**
   * A container the server rendered (`data-svc-ssr`): hydrated by its strategy, not replaced;
   * `none` never loads anything.
   */
  function hydrate(container: Element, state: Mounted) {
    if (typeof S.hydrateIsland !== "function") return false; // an older @svc/react
    const hydratedWith = state.props;
    state.cancel = S.hydrateIsland(container, {
      client: state.client,
      queryClient: state.queryClient,
      hydrateRoot,
      props: state.props,
      onHydrated: (root) => {
        state.root = root;
        // Props changed (svc.update) while it waited: hydrated as rendered, now updated.
        if (state.props !== hydratedWith) draw(state);
      },
    });
    return true;
  }

  function mount(container: Element) {
    if (mounted.has(container)) return;
    const name = container.getAttribute("data-svc-component") ?? "";
    const entry = clientFor(container.getAttribute("data-svc-api") ?? defaultApi);
    const { client, queryClient } = entry;
    const hash = container.getAttribute("data-svc-hash");
    if (hash) client.setHash(name, hash);
    if (liveEverywhere || isLive(container)) follow(entry);
    const island = container.hasAttribute("data-svc-ssr") && problem === undefined;
    const state: Mounted = {
      root: island ? undefined : createRoot(container),
      name,
      client,
      queryClient,
      placeholder: container.innerHTML,
      props: undefined,
      propsError: undefined,
    };
    mounted.set(container, state);
    readProps(container, state);
    if (island && state.propsError === undefined && hydrate(container, state)) return;
    state.root ??= createRoot(container);
    draw(state);
  }

  /** One live-reload connection per API (static mode has no event stream). */
  function follow(entry: { client: SvcClient; queryClient: QueryClient; disconnect?: () => void }) {
    if (entry.disconnect !== undefined || manifestUrl !== undefined) return;
    // A page that registered an older @svc/react of its own may lack connectLive.
    if (typeof S.connectLive !== "function") return;
    entry.disconnect = S.connectLive({ client: entry.client, queryClient: entry.queryClient });
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
      const client = clientFor(options.apiBase ?? defaultApi).client;
      return client.load(name, { hash: options.hash }) as Promise<never>;
    },

    async reload(name, options = {}) {
      await Promise.all(
        [...clients.values()].map((entry) =>
          S.reloadComponent(name, { ...entry, hash: options.hash }),
        ),
      );
    },

    unmount(container) {
      const state = mounted.get(container);
      if (state === undefined) return;
      mounted.delete(container);
      state.cancel?.();
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

/** `data-svc-live` (any value but "false") on the script or a container. */
function isLive(element: Element | null): boolean {
  const value = element?.getAttribute("data-svc-live");
  return value !== null && value !== undefined && value !== "false";
}

/**
 * Installs the bundled modules, unless the page already registered a React: then that React
 * and its `react-dom/client` and `@svc/react` are used, since two Reacts on one page break
 * hooks. Everything is rendered through the registry's modules, never around them.
 */
function resolveModules() {
  if (BY_URL) {
    // Imported through the import map: these are the very modules bundles get.
    goober.setup(React.createElement);
    return {
      R: React,
      createRoot: ReactDOMClient.createRoot,
      hydrateRoot: ReactDOMClient.hydrateRoot,
      S: svcReact,
      problem: undefined,
    };
  }
  const registry = getModuleRegistry();
  const foreign = registry.react !== undefined && registry.react !== React;
  installModules(
    foreign
      ? { goober }
      : {
          react: React,
          "react/jsx-runtime": jsxRuntime,
          "react-dom": ReactDOM,
          "react-dom/client": ReactDOMClient,
          "@svc/react": svcReact,
          goober,
        },
  );
  const R = registry.react as typeof React;
  if (registry.goober === goober) goober.setup(R.createElement);
  const client = registry["react-dom/client"] as typeof ReactDOMClient | undefined;
  const registered = registry["@svc/react"] as typeof svcReact | undefined;
  let problem: string | undefined;
  if (foreign && (client === undefined || registered === undefined)) {
    problem =
      "svc loader: the page registered its own React in window.__MODULES__ but not " +
      "react-dom/client and @svc/react; register all three (or none).";
  }
  return {
    R,
    createRoot: client?.createRoot ?? ReactDOMClient.createRoot,
    hydrateRoot: client?.hydrateRoot ?? ReactDOMClient.hydrateRoot,
    S: registered ?? svcReact,
    problem,
  };
}
