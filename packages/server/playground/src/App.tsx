import { type LiveEvent, type LiveStatus, SvcProvider } from "@svc/react";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { type ReactNode, useCallback, useEffect, useMemo, useRef, useState } from "react";
import type { LiveState } from "./liveState.ts";
import { formatHash, type Route } from "./route.ts";
import { Sidebar, visibleOrder } from "./Sidebar.tsx";
import { LIST_KEY, useComponentList } from "./useComponentList.ts";
import { useHashRoute } from "./useHashRoute.ts";
import { useShortcuts } from "./useShortcuts.ts";
import { Workbench } from "./Workbench.tsx";

/**
 * The playground: providers, live-reload state, then the page. With `manifestUrl` (static
 * mode) components load through the build's manifest, and nothing is live.
 */
export function App({
  modules,
  manifestUrl,
}: {
  modules: Readonly<Record<string, object>>;
  manifestUrl?: string;
}): ReactNode {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { refetchOnWindowFocus: false } } }),
  );
  const [live, setLive] = useState<LiveState>({
    status: "connecting",
    broken: new Map(),
    changed: new Map(),
  });
  const liveOptions = useMemo(
    () => ({
      onStatus: (status: LiveStatus) => setLive((state) => ({ ...state, status })),
      onEvent: (event: LiveEvent) => {
        if (event.type === "list") void queryClient.invalidateQueries({ queryKey: LIST_KEY });
        if (event.type === "error") {
          setLive((state) => ({ ...state, broken: new Map(state.broken).set(event.name, event) }));
        }
        if (event.type === "change") {
          setLive((state) => {
            // The same map while nothing in it changed, so what shows it is not drawn again.
            let { broken } = state;
            if (broken.has(event.name)) {
              broken = new Map(broken);
              (broken as Map<string, unknown>).delete(event.name);
            }
            const changed = new Map(state.changed).set(event.name, Date.now());
            return { ...state, broken, changed };
          });
        }
      },
    }),
    [queryClient],
  );
  return (
    <QueryClientProvider client={queryClient}>
      <SvcProvider
        queryClient={queryClient}
        modules={modules}
        manifestUrl={manifestUrl}
        live={manifestUrl === undefined ? liveOptions : false}
      >
        <Playground live={live} />
      </SvcProvider>
    </QueryClientProvider>
  );
}

function Playground({ live }: { live: LiveState }): ReactNode {
  const [route, navigate] = useHashRoute();
  const list = useComponentList();
  const [filter, setFilter] = useState("");
  const filterRef = useRef<HTMLInputElement>(null);
  const retryRef = useRef<(() => void) | undefined>(undefined);

  const hrefFor = useCallback(
    (name: string) =>
      formatHash({ name, props: undefined, background: route.background, width: route.width }),
    [route.background, route.width],
  );
  const select = useCallback(
    (name: string) =>
      navigate(
        { name, props: undefined, background: route.background, width: route.width },
        "push",
      ),
    [navigate, route.background, route.width],
  );
  const step = useCallback(
    (by: number) => {
      const order = visibleOrder(list.items, filter);
      if (order.length === 0) return;
      const at = route.name === undefined ? -1 : order.indexOf(route.name);
      const next =
        at === -1
          ? by < 0
            ? order.length - 1
            : 0
          : Math.min(order.length - 1, Math.max(0, at + by));
      const name = order[next];
      if (name !== undefined && name !== route.name) select(name);
    },
    [list.items, filter, route.name, select],
  );

  // Open the first component when the URL names none.
  const first = list.items[0]?.name;
  useEffect(() => {
    if (route.name === undefined && first !== undefined)
      navigate({ ...route, name: first }, "replace");
  }, [route, first, navigate]);

  useShortcuts({ route, navigate, step, filterRef, retryRef });

  // Renamed or deleted (or never there): said in place, until a list has it again.
  const missing =
    route.name !== undefined && list.names !== undefined && !list.names.includes(route.name);
  return (
    <div className="pg">
      <Sidebar
        items={list.items}
        selected={route.name}
        filter={filter}
        onFilter={setFilter}
        hrefFor={hrefFor}
        onStep={step}
        broken={live.broken}
        loading={list.loading}
        error={list.error}
        filterRef={filterRef}
      />
      {missing ? (
        <main className="pg-empty" role="alert">
          <p>
            No such component: <code>{route.name}</code>. It may have been renamed or deleted; it
            shows here again once it is back.
          </p>
        </main>
      ) : route.name !== undefined ? (
        <Workbench
          key={route.name}
          route={route as Route & { name: string }}
          navigate={navigate}
          live={live}
          retryRef={retryRef}
        />
      ) : (
        <main className="pg-empty">
          {list.loading ? "Loading components…" : "No components to show yet."}
        </main>
      )}
    </div>
  );
}
