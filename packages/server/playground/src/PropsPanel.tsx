import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import type { ComponentMetadata, LiveEvent } from "@svc/react";
import { memo, type ReactNode, useState } from "react";
import { type MetadataProblem, useMetadataProblem } from "./metadataProblem.ts";
import { JsonEditor, PropsForm } from "./PropsForm.tsx";
import type { Field } from "./schema.ts";

export interface PropsPanelProps {
  name: string;
  fields: readonly Field[];
  /** The props shown: the route's, else the schema's defaults. */
  values: Record<string, unknown>;
  defaults: Record<string, unknown>;
  onChange: (values: Record<string, unknown>) => void;
  /** Back to the schema's defaults; undefined when they are shown already. */
  onReset: (() => void) | undefined;
  /** The metadata: undefined while it loads, null when it could not be loaded. */
  metadata: ComponentMetadata | null | undefined;
  /** The metadata shown: the latest, or the last good one while the component does not build. */
  shown: ComponentMetadata | null | undefined;
  /** The component's last `error` event, while it does not build. */
  broken: Extract<LiveEvent, { type: "error" }> | undefined;
  /** What is wrong with the URL's `props` (then ignored), if anything. */
  urlError?: string | undefined;
}

/** The props editor (a form from the schema, or JSON) and how to use the component so. */
export const PropsPanel = memo(function PropsPanel(props: PropsPanelProps): ReactNode {
  const { name, fields, values, defaults, onChange, onReset, broken, urlError } = props;
  const [tab, setTab] = useState<"form" | "json">("form");
  const problem = useMetadataProblem(name);
  // The live error is the newer news (an edit that broke it); the problem is what loading found.
  const schemaError =
    broken?.error === "InvalidSchema"
      ? broken.message
      : problem?.error === "InvalidSchema"
        ? problem.message
        : undefined;
  return (
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
          disabled={onReset === undefined}
          onClick={onReset}
          title="Back to the schema's defaults"
        >
          Reset
        </button>
      </div>
      <div className="pg-panel-body">
        {urlError !== undefined ? (
          <p className="pg-url-error" role="alert">
            <code>props</code> in the URL {urlError} — the schema's defaults are shown instead.
          </p>
        ) : null}
        {schemaError !== undefined ? (
          // Only the schema is broken: the component renders without props checks.
          <p className="pg-schema-error" role="alert">
            <strong>schema.json is invalid:</strong>{" "}
            <span className="pg-schema-error-message">{schemaError}</span>
          </p>
        ) : null}
        {tab === "json" || fields.length === 0 ? (
          <>
            {fields.length === 0 && tab === "form" && schemaError === undefined ? (
              <p className="pg-muted">{schemaNote(props, problem)}</p>
            ) : null}
            <JsonEditor
              value={values}
              onChange={(v) => onChange(v as Record<string, unknown>)}
              rows={14}
              objectOnly
            />
          </>
        ) : (
          <PropsForm fields={fields} values={values} defaults={defaults} onChange={onChange} />
        )}
        <Usage name={name} props={values} />
      </div>
    </aside>
  );
});

/** Why the form shows no fields. */
function schemaNote(
  { shown, metadata, broken }: PropsPanelProps,
  problem: MetadataProblem | undefined,
): string {
  if (shown) return "No props in schema.json: edit them as JSON.";
  if (metadata !== null) return "Loading the schema…";
  if (broken !== undefined || problem?.error === "BundleError") {
    return "The schema is unavailable while the component does not build.";
  }
  return problem === undefined
    ? "The metadata could not be loaded."
    : `The metadata could not be loaded: ${problem.message}`;
}

/** How to render the component with these props, in a React app and in a page. */
function Usage({ name, props }: { name: string; props: Record<string, unknown> }): ReactNode {
  const json = JSON.stringify(props);
  const jsx =
    json === "{}"
      ? `<ServerComponent name="${name}" />`
      : `<ServerComponent name="${name}" props={${json}} />`;
  const html = `<div ${ISLAND_ATTRIBUTES.component}="${name}" ${ISLAND_ATTRIBUTES.props}='${json.replaceAll("&", "&amp;").replaceAll("'", "&#39;")}'></div>`;
  return (
    <details className="pg-usage">
      <summary>Usage</summary>
      <pre className="pg-code-block">{jsx}</pre>
      <pre className="pg-code-block">{html}</pre>
    </details>
  );
}
