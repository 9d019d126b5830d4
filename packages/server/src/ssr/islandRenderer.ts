import { AsyncLocalStorage } from "node:async_hooks";
import { createRequire } from "node:module";
import {
  type ComponentMetadata,
  type ComponentName,
  DEFAULT_HYDRATE,
  type HydrateStrategy,
  InvalidPropsError,
  ISLAND_ATTRIBUTES,
  SvcError,
} from "@svc/protocol";
import { escapeHtml } from "../util/html.ts";
import { requirePeer } from "../util/peer.ts";
import type { EvaluatedBundle, SharedModules } from "./serverModule.ts";

export interface IslandOptions {
  /** When the browser hydrates it. Default: `"load"`. */
  hydrate?: HydrateStrategy;
  /** API base the browser loads the bundles from (`data-svc-api`). Default: the loader's. */
  apiBase?: string;
}

/** What an island needs of the handler set: the component's server module, its metadata. */
export interface IslandSources {
  /** The server bundle of `name`, evaluated, and the hash of its browser bundle. */
  serverBundle(name: ComponentName): Promise<{ bundle: EvaluatedBundle; hash: string }>;
  metadata(name: ComponentName): Promise<ComponentMetadata>;
}

export interface IslandRendererOptions {
  /** How long one render may take before it fails with `RenderTimeout`. Default: 5000 ms. */
  timeoutMs?: number;
}

/** The component threw while it rendered on the server. */
export class RenderError extends SvcError {
  constructor(name: string, message: string, stack: string | undefined, cause: unknown) {
    // Only frames in the component's own files: nothing of the machine's layout.
    const frames = (stack ?? "")
      .split("\n")
      .filter((line) => line.includes("component://"))
      .join("\n");
    super(
      "RenderError",
      `Component "${name}" threw while rendering on the server: ${message}${frames ? `\n${frames}` : ""}`,
      {
        component: name,
        cause,
      },
    );
    this.name = "RenderError";
  }
}

export class RenderTimeoutError extends SvcError {
  constructor(name: string, ms: number) {
    super(
      "RenderTimeout",
      `Component "${name}" did not finish rendering on the server within ${ms / 1000} s — does it wait on something that never comes?`,
      { component: name },
    );
    this.name = "RenderTimeoutError";
  }
}

/** The server's own React and svc's React layer, loaded on first use (they are peers). */
interface Peers {
  shared: SharedModules;
  createElement: typeof import("react").createElement;
  prerender: typeof import("react-dom/static").prerender;
  QueryClient: typeof import("@tanstack/react-query").QueryClient;
  svc: typeof import("@svc/react");
}

const INSTALL = "react react-dom @tanstack/react-query @svc/react";
let peers: Promise<Peers> | undefined;

function loadPeers(): Promise<Peers> {
  peers ??= (async () => {
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
  })();
  peers.catch(() => {
    peers = undefined;
  });
  return peers;
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

/** CSS for a `<style>` element: no `</style` can end it early. */
function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, "<\\/$1");
}

/** The modules server bundles share with the renderer (for evaluating them). */
export async function sharedServerModules(): Promise<SharedModules> {
  return (await loadPeers()).shared;
}

/**
 * Renders components to islands: the container `@svc/loader` and `@svc/react` hydrate, with
 * the server-rendered HTML inside. The tree is the one the browser hydrates —
 * `<SvcProvider><ServerComponent name props /></SvcProvider>` — rendered with React's
 * `prerender`, so `useComponent` works: a nested component's server bundle is loaded and
 * rendered too, and the island lists it (with its hash) so the browser fetches every bundle it
 * needs at once before hydrating.
 */
export class IslandRenderer {
  readonly #sources: IslandSources;
  readonly #timeoutMs: number;

  constructor(sources: IslandSources, options: IslandRendererOptions = {}) {
    this.#sources = sources;
    this.#timeoutMs = options.timeoutMs ?? 5000;
  }

  /**
   * The island of `name` with `props`.
   * @throws InvalidPropsError (props not an object, or failing `schema.json`), RenderError,
   * RenderTimeoutError, and what loading the component throws (not found, bundle error)
   */
  async render(name: ComponentName, props: unknown, options: IslandOptions = {}): Promise<string> {
    if (typeof props !== "object" || props === null || Array.isArray(props)) {
      throw new InvalidPropsError(name, "props must be a JSON object", { malformed: true });
    }
    const { createElement, prerender, QueryClient, svc } = await loadPeers();
    const [own, metadata] = await Promise.all([
      this.#sources.serverBundle(name),
      this.#sources.metadata(name),
    ]);
    const issues = svc.validateProps(metadata.props, props as Record<string, unknown>);
    if (issues.length > 0) {
      throw new InvalidPropsError(
        name,
        issues.map((i) => (i.prop ? `${i.prop}: ${i.message}` : i.message)).join("; "),
      );
    }

    // Every component the render loads, with its browser hash and its version's stack mapper.
    const loaded = new Map<string, { hash: string; bundle: EvaluatedBundle }>([[name, own]]);
    const sources = this.#sources;
    const client = {
      apiBase: options.apiBase ?? "/api",
      manifestUrl: undefined,
      source: "server",
      async load(other: string) {
        const known = loaded.get(other);
        if (known !== undefined) return known.bundle.module;
        const found = await sources.serverBundle(other as ComponentName);
        loaded.set(other, found);
        return found.bundle.module;
      },
      loadMetadata: (other: string) => sources.metadata(other as ComponentName),
      loadManifest: () => Promise.reject(new Error("no manifest on the server")),
      setHash() {},
      invalidate() {},
    };

    let failure: unknown;
    const controller = new AbortController();
    const tree = createElement(
      svc.SvcProvider,
      { client, queryClient: new QueryClient() },
      createElement(svc.ServerComponent, { name, props: props as Record<string, unknown> }),
    );
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<"timeout">((resolve) => {
      timer = setTimeout(() => resolve("timeout"), this.#timeoutMs);
    });
    const sheet = { data: "" };
    const rendering = renderSheet.run(sheet, () =>
      prerender(tree, {
        signal: controller.signal,
        onError: (error) => {
          failure ??= error;
        },
      }),
    );
    const result = await Promise.race([rendering, timedOut]).finally(() => clearTimeout(timer));
    if (result === "timeout") {
      controller.abort();
      rendering.catch(() => {});
      throw new RenderTimeoutError(name, this.#timeoutMs);
    }
    if (failure !== undefined) throw this.#renderError(name, failure, loaded);
    const html = await new Response(result.prelude).text();

    const deps: Record<string, string> = {};
    for (const [other, { hash }] of loaded) if (other !== name) deps[other] = hash;
    const attributes: [string, string][] = [
      [ISLAND_ATTRIBUTES.component, name],
      [ISLAND_ATTRIBUTES.props, JSON.stringify(props)],
      [ISLAND_ATTRIBUTES.ssr, ""],
      [ISLAND_ATTRIBUTES.hash, own.hash],
      [ISLAND_ATTRIBUTES.hydrate, options.hydrate ?? DEFAULT_HYDRATE],
    ];
    if (Object.keys(deps).length > 0)
      attributes.push([ISLAND_ATTRIBUTES.deps, JSON.stringify(deps)]);
    if (options.apiBase !== undefined) attributes.push(["data-svc-api", options.apiBase]);
    const open = attributes.map(([key, value]) => ` ${key}="${escapeHtml(value)}"`).join("");
    // The island's CSS-in-JS rules go before it, so the HTML is styled before any script runs.
    const styles =
      sheet.data === ""
        ? ""
        : `<style data-svc-styles="${escapeHtml(name)}">${styleText(sheet.data)}</style>`;
    return `${styles}<div${open}>${html}</div>`;
  }

  /** The error a failed render answers: svc's own errors as they are, others as RenderError. */
  #renderError(
    name: string,
    error: unknown,
    loaded: Map<string, { bundle: EvaluatedBundle }>,
  ): SvcError {
    const original = (error as { cause?: unknown })?.cause ?? error;
    if (original instanceof SvcError && original.kind !== "Render") return original;
    const cause = (original as { cause?: unknown })?.cause ?? original;
    const thrown = cause instanceof Error ? cause : new Error(String(cause));
    const component = (original as { component?: string }).component ?? name;
    let stack = thrown.stack;
    for (const { bundle } of loaded.values()) stack = stack && bundle.mapStack(stack);
    return new RenderError(component, thrown.message, stack, thrown);
  }
}
