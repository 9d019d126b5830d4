import { reloadComponent, useSvc } from "@svc/react";
import { memo, type ReactNode } from "react";
import { BACKGROUNDS, type Route, WIDTHS } from "./route.ts";
import { useBundleHref } from "./useBundleHref.ts";

export interface StageToolbarProps {
  route: Route & { name: string };
  navigate: (route: Route, mode: "push" | "replace") => void;
}

/** The stage's background and width, a reload, and links to the raw bundle and metadata. */
export const StageToolbar = memo(function StageToolbar({
  route,
  navigate,
}: StageToolbarProps): ReactNode {
  const { client, queryClient } = useSvc();
  const { name } = route;
  const bundleHref = useBundleHref(name);
  return (
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
              onChange={() => navigate({ ...route, background }, "replace")}
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
  );
});
