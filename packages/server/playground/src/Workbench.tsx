import {
  componentMetadataQueryOptions,
  type LiveEvent,
  type LiveStatus,
  reloadComponent,
  ServerComponent,
  useSvc,
} from "@svc/react";
import { useQuery } from "@tanstack/react-query";
import { type ReactNode, type RefObject, useEffect, useMemo, useRef, useState } from "react";
import { ErrorView } from "./ErrorView.tsx";
import { JsonEditor, PropsForm } from "./PropsForm.tsx";
import { BACKGROUNDS, type Background, type Route, sameJson, WIDTHS } from "./route.ts";
import { defaultsOf, fieldsOf } from "./schema.ts";

export interface LiveState {
  status: LiveStatus;
  /** The last `error` event of each component that does not build now. */
  broken: ReadonlyMap<string, Extract<LiveEvent, { type: "error" }>>;
  /** When each component was last announced as changed (several can change at once). */
  changed: ReadonlyMap<string, number>;
}

export interface WorkbenchProps {
  route: Route & { name: string };
  navigate: (route: Route, mode: "push" | "replace") => void;
  live: LiveState;
  /** Set to the retry of the error shown, for the `r` key. */
  retryRef: RefObject<(() => void) | undefined>;
}

/** One component: its header, the stage with the live render, and the props panel. */
export function Workbench({ route, navigate, live, retryRef }: WorkbenchProps): ReactNode {
  const { client, queryClient } = useSvc();
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
  const setValues = (next: Record<string, unknown>) =>
    navigate({ ...route, props: sameJson(next, defaults) ? undefined : next }, "replace");
  const setBackground = (background: Background) => navigate({ ...route, background }, "replace");
  const [tab, setTab] = useState<"form" | "json">("form");
  const broken = live.broken.get(name);
  const bundleHref = useBundleHref(name);

  return (
    <main className="pg-workbench">
      <header className="pg-head">
        <div className="pg-title-row">
          <h1 className="pg-title">{shown?.title || name}</h1>
          <code className="pg-name">{name}</code>
          {shown?.version ? <span className="pg-badge">v{shown.version}</span> : null}
          {metadata?.hash ? (
            <span className="pg-badge pg-mono" title="Content hash of the bundle" data-hash="">
              #{metadata.hash}
            </span>
          ) : null}
          <Updated live={live} name={name} />
          {client.manifestUrl === undefined ? (
            <LiveBadge status={live.status} />
          ) : (
            <span
              className="pg-live pg-live-static"
              title={`Loaded through ${client.manifestUrl}: a build does not change`}
            >
              static build
            </span>
          )}
        </div>
        {shown?.description ? <p className="pg-desc">{shown.description}</p> : null}
      </header>

      <div className="pg-toolbar" role="toolbar" aria-label="Stage">
        <fieldset className="pg-segmented">
          <legend className="pg-visually-hidden">Background</legend>
          {BACKGROUNDS.map((background) => (
            <label key={background} title={`${background} background (b)`}>
              <input
                type="radio"
                name="background"
                value={background}
                checked={route.background === background}
                onChange={() => setBackground(background)}
              />
              <span className={`pg-swatch pg-swatch-${background}`} aria-hidden="true" />
              {background}
            </label>
          ))}
        </fieldset>
        <label className="pg-width" title="Stage width (w)">
          <span className="pg-visually-hidden">Width</span>
          <select
            className="pg-input"
            value={route.width === undefined ? "" : String(route.width)}
            onChange={(event) =>
              navigate(
                {
                  ...route,
                  width: event.target.value === "" ? undefined : Number(event.target.value),
                },
                "replace",
              )
            }
          >
            {WIDTHS.map((width) => (
              <option key={width.label} value={width.value === undefined ? "" : width.value}>
                {width.label}
              </option>
            ))}
            {route.width !== undefined && !WIDTHS.some((w) => w.value === route.width) ? (
              <option value={route.width}>{route.width} px</option>
            ) : null}
          </select>
        </label>
        <span className="pg-spacer" />
        <button
          type="button"
          className="pg-button pg-button-quiet"
          title="Fetch the bundle again"
          onClick={() => void reloadComponent(name, { client, queryClient })}
        >
          Reload
        </button>
        <a className="pg-link" href={bundleHref} target="_blank" rel="noreferrer">
          bundle
        </a>
        <a
          className="pg-link"
          href={`${client.apiBase}/bundles/${name}/metadata`}
          target="_blank"
          rel="noreferrer"
        >
          metadata
        </a>
      </div>

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

      <aside className="pg-panel" aria-label="Props">
        <div className="pg-panel-head">
          <h2 className="pg-panel-title">Props</h2>
          <div className="pg-tabs" role="tablist">
            {(["form", "json"] as const).map((which) => (
              <button
                key={which}
                type="button"
                role="tab"
                aria-selected={tab === which}
                className="pg-tab"
                onClick={() => setTab(which)}
              >
                {which === "form" ? "Form" : "JSON"}
              </button>
            ))}
          </div>
          <button
            type="button"
            className="pg-button pg-button-quiet"
            disabled={route.props === undefined}
            onClick={() => navigate({ ...route, props: undefined }, "replace")}
            title="Back to the schema's defaults"
          >
            Reset
          </button>
        </div>
        <div className="pg-panel-body">
          {broken?.error === "InvalidSchema" ? (
            // The component builds: only its schema is broken, and this is why.
            <p className="pg-schema-error" role="alert">
              {broken.message}
            </p>
          ) : null}
          {tab === "json" || fields.length === 0 ? (
            <>
              {fields.length === 0 && tab === "form" && broken?.error !== "InvalidSchema" ? (
                <p className="pg-muted">
                  {shown !== undefined
                    ? "No props in schema.json: edit them as JSON."
                    : metadata === null
                      ? broken !== undefined
                        ? "The schema is unavailable while the component does not build."
                        : "The metadata could not be loaded."
                      : "Loading the schema…"}
                </p>
              ) : null}
              <JsonEditor
                value={values}
                onChange={(v) => setValues(v as Record<string, unknown>)}
                rows={14}
                objectOnly
              />
            </>
          ) : (
            <PropsForm fields={fields} values={values} defaults={defaults} onChange={setValues} />
          )}
          <Usage name={name} props={values} />
        </div>
      </aside>
    </main>
  );
}

/**
 * Where the raw bundle is: the API's endpoint, or in static mode the file the manifest names
 * (the API serves no bundles there).
 */
function useBundleHref(name: string): string {
  const { client } = useSvc();
  const { data: manifest } = useQuery({
    queryKey: ["playground", "manifest", client.manifestUrl],
    queryFn: () => client.loadManifest(),
    enabled: client.manifestUrl !== undefined,
    staleTime: Number.POSITIVE_INFINITY,
  });
  if (client.manifestUrl === undefined) return `${client.apiBase}/bundles/${name}.js`;
  const entry =
    manifest !== undefined && Object.hasOwn(manifest, name) ? manifest[name] : undefined;
  return entry === undefined
    ? client.manifestUrl
    : new URL(entry.file, new URL(client.manifestUrl, document.baseURI)).href;
}

function LiveBadge({ status }: { status: LiveStatus }): ReactNode {
  const label =
    status === "open"
      ? "live"
      : status === "connecting"
        ? "connecting…"
        : status === "off"
          ? "live reload off"
          : "reconnecting…";
  return (
    <span
      className={`pg-live pg-live-${status}`}
      title={
        status === "open"
          ? "Changes on disk show here at once"
          : status === "off"
            ? "This server does not serve live reload"
            : "Waiting for svc serve"
      }
    >
      {label}
    </span>
  );
}

/** A short "updated" note when live reload brought a new version of this component. */
function Updated({ live, name }: { live: LiveState; name: string }): ReactNode {
  const changed = live.changed.get(name);
  const [visible, setVisible] = useState(false);
  useEffect(() => {
    if (changed === undefined) return;
    setVisible(true);
    const timer = setTimeout(() => setVisible(false), 2500);
    return () => clearTimeout(timer);
  }, [changed]);
  return visible ? (
    <span className="pg-updated" key={changed} role="status">
      updated
    </span>
  ) : null;
}

/** How to render the component with these props, in a React app and in a page. */
function Usage({ name, props }: { name: string; props: Record<string, unknown> }): ReactNode {
  const json = JSON.stringify(props);
  const jsx =
    json === "{}"
      ? `<ServerComponent name="${name}" />`
      : `<ServerComponent name="${name}" props={${json}} />`;
  const html = `<div data-svc-component="${name}" data-svc-props='${json.replaceAll("&", "&amp;").replaceAll("'", "&#39;")}'></div>`;
  return (
    <details className="pg-usage">
      <summary>Usage</summary>
      <pre className="pg-code-block">{jsx}</pre>
      <pre className="pg-code-block">{html}</pre>
    </details>
  );
}
