import { componentMetadataQueryOptions, ServerComponent, useSvc } from "@svc/react";
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, type RefObject, useCallback, useMemo, useRef } from "react";
import { ErrorView } from "./ErrorView.tsx";
import type { LiveState } from "./liveState.ts";
import { PropsPanel } from "./PropsPanel.tsx";
import { type Route, sameJson } from "./route.ts";
import { StageToolbar } from "./StageToolbar.tsx";
import { defaultsOf, fieldsOf } from "./schema.ts";
import { WorkbenchHeader } from "./WorkbenchHeader.tsx";

export interface WorkbenchProps {
  route: Route & { name: string };
  navigate: (route: Route, mode: "push" | "replace") => void;
  live: LiveState;
  /** Set to the retry of the error shown, for the `r` key. */
  retryRef: RefObject<(() => void) | undefined>;
}

/** One component: its header, the stage with the live render, and the props panel. */
export function Workbench({ route, navigate, live, retryRef }: WorkbenchProps): ReactNode {
  const { client } = useSvc();
  const { name } = route;
  const { data: metadata } = useQuery(componentMetadataQueryOptions(name, { client }));
  // While the component does not build its metadata is unavailable: keep the last schema,
  // so the form stays as it was.
  const lastGood = useRef(metadata);
  if (metadata) lastGood.current = metadata;
  const shown = metadata ?? lastGood.current;
  const fields = useMemo(() => fieldsOf(shown), [shown]);
  const defaults = useMemo(() => defaultsOf(fields), [fields]);
  const values = route.props ?? defaults;
  const setValues = useCallback(
    (next: Record<string, unknown>) =>
      navigate({ ...route, props: sameJson(next, defaults) ? undefined : next }, "replace"),
    [navigate, route, defaults],
  );
  const reset = useCallback(
    () => navigate({ ...route, props: undefined }, "replace"),
    [navigate, route],
  );

  return (
    <main className="pg-workbench">
      <WorkbenchHeader name={name} shown={shown} hash={metadata?.hash} live={live} />
      <StageToolbar route={route} navigate={navigate} />
      <section className={`pg-stage pg-bg-${route.background}`} aria-label="Preview">
        <div
          className="pg-canvas"
          style={{ width: route.width === undefined ? "100%" : `${route.width}px` }}
          data-width={route.width ?? "full"}
        >
          {metadata === undefined ? (
            <div className="pg-loading">Loading…</div>
          ) : (
            <ServerComponent
              // Mounted afresh when the props change, so initial-value props (a counter's
              // initialValue) take effect and the view is exactly what the URL describes.
              key={JSON.stringify(values)}
              name={name}
              props={values}
              fallback={<div className="pg-loading">Loading…</div>}
              errorFallback={(error, reset) => (
                <ErrorView
                  name={name}
                  error={error}
                  // The failing component's own positions: it may be one this one loads.
                  locations={live.broken.get(error.component ?? name)?.locations}
                  retry={reset}
                  retryRef={retryRef}
                />
              )}
            />
          )}
        </div>
      </section>
      <PropsPanel
        name={name}
        fields={fields}
        values={values}
        defaults={defaults}
        onChange={setValues}
        onReset={route.props === undefined ? undefined : reset}
        metadata={metadata}
        shown={shown}
        broken={live.broken.get(name)}
        urlError={route.propsError}
      />
    </main>
  );
}
