import { createSvcClient, type SvcClient } from "@svc/runtime";
import { QueryClient, QueryClientContext } from "@tanstack/react-query";
import {
  createElement,
  type ReactNode,
  useContext,
  useEffect,
  useMemo,
  useRef,
  useState,
} from "react";
import { connectLive, type LiveOptions } from "./connectLive.ts";
import { exposeToComponents, installReactModules } from "./installReactModules.ts";
import { type ErrorFallback, SvcContext, type SvcContextValue } from "./svcContext.ts";

export interface SvcProviderProps {
  /** Base URL of the svc API. Default `"/api"`. */
  apiBase?: string;
  /**
   * URL of the build's `manifest.json` (e.g. `"/static/svc/manifest.json"`): static mode,
   * bundles come from the files it names. Default: none (bundles from the API).
   */
  manifestUrl?: string;
  /** Known content hashes by component name (cache busting). Default: none. */
  hashes?: Readonly<Record<string, string>>;
  /**
   * QueryClient for the component cache. Default: the surrounding QueryClientProvider's, or
   * one of the provider's own. It is passed to the hooks directly, never provided to your tree.
   */
  queryClient?: QueryClient;
  /** A ready svc client; overrides `apiBase`, `manifestUrl` and `hashes`. */
  client?: SvcClient;
  /**
   * More runtime modules for `window.__MODULES__`, e.g.
   * `{ "react-dom": ReactDOM, "react-dom/client": ReactDOMClient, goober }`. React,
   * `react/jsx-runtime` and `@svc/react` are installed anyway. Modules already present stay.
   */
  modules?: Readonly<Record<string, object>>;
  /**
   * Live reload (development, with `svc serve`): `true` or options. Subscribes to
   * `{apiBase}/events`; a changed component is fetched again and re-rendered in place, the
   * others keep their state. Default: off.
   */
  live?: boolean | LiveOptions;
  /**
   * What `SvcErrorBoundary` and `ServerComponent` below show after an error when given no
   * `fallback` / `errorFallback` of their own: one place for the app's error display. Default:
   * in development the message and the error overlay, in production a neutral placeholder.
   * (The standalone loader passes its own, so a component nested in one it renders fails
   * as that one would.)
   */
  errorFallback?: ErrorFallback;
  children?: ReactNode;
}

/** Configures where `useComponent` and `ServerComponent` below it load components from. */
export function SvcProvider({
  apiBase,
  manifestUrl,
  hashes,
  queryClient,
  client,
  modules,
  live,
  errorFallback,
  children,
}: SvcProviderProps): ReactNode {
  const ambient = useContext(QueryClientContext);
  const [own] = useState(() => {
    // Before any child can load a bundle: bundles are rewritten against the registry. (Not
    // on the server, where an island's components come from their server bundles.)
    if (typeof window !== "undefined") installReactModules(modules);
    return new QueryClient();
  });
  // biome-ignore lint/correctness/useExhaustiveDependencies: hashes are initial values; later ones go through client.setHash.
  const svcClient = useMemo(
    () => client ?? createSvcClient({ apiBase, manifestUrl, hashes }),
    [client, apiBase, manifestUrl],
  );
  const resolvedQueryClient = queryClient ?? ambient ?? own;
  const value = useMemo<SvcContextValue>(
    () => ({ client: svcClient, queryClient: resolvedQueryClient, errorFallback }),
    [svcClient, resolvedQueryClient, errorFallback],
  );
  useLive(live, value);
  return createElement(SvcContext.Provider, { value }, children);
}

// Components get `@svc/react` from installReactModules.ts, which cannot import this module
// (it installs through that one): this module adds its part.
exposeToComponents({ SvcProvider });

/** One live-reload connection while `live` is on; callbacks may change without reconnecting. */
function useLive(live: SvcProviderProps["live"], { client, queryClient }: SvcContextValue) {
  const options = typeof live === "object" ? live : {};
  const callbacks = useRef(options);
  callbacks.current = options;
  const enabled = live !== undefined && live !== false;
  const url = options.url;
  useEffect(() => {
    if (!enabled) return;
    return connectLive({
      client,
      queryClient,
      url,
      onEvent: (event) => callbacks.current.onEvent?.(event),
      onStatus: (status) => callbacks.current.onStatus?.(status),
    });
  }, [enabled, url, client, queryClient]);
}
