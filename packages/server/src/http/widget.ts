import {
  DEFAULT_API_BASE,
  ISLAND_ATTRIBUTES,
  type KnownName,
  type PropsFor,
  type PropsParameters,
  parseComponentName,
} from "@svc/protocol";
import { escapeHtml } from "../util/html.ts";

export { escapeHtml } from "../util/html.ts";

export interface WidgetOptions {
  /** API base the loader fetches from (`data-svc-api`). Default `"/api"`. */
  apiBase?: string;
  /** Content hash for cache busting (`data-svc-hash`), e.g. from the manifest. Default: none. */
  hash?: string;
  /** Marks the widget as a live preview (`data-svc-live`). Default `false`. */
  live?: boolean;
}

/**
 * The HTML of a widget container for the standalone loader (`/svc/loader.js`): the component
 * name, the props as HTML-escaped JSON, the API base, and a loading placeholder. Every
 * attribute value is escaped, so props may hold any text (`</script>`, quotes) and stay inert.
 *
 * ```ts
 * renderWidget("counter", { initialValue: 3 })
 * // <div data-svc-component="counter" data-svc-props="{&quot;initialValue&quot;:3}" …>
 * ```
 *
 * @throws InvalidComponentNameError for a malformed name; TypeError for props that are not
 * a JSON object
 */
export function renderWidget<P extends object = never, N extends string = string>(
  name: KnownName<N>,
  ...args: PropsParameters<Readonly<PropsFor<P, N>>, [options?: WidgetOptions]>
): string {
  const [props = {}, options = {}] = args as [unknown?, WidgetOptions?];
  parseComponentName(name);
  if (typeof props !== "object" || props === null || Array.isArray(props)) {
    throw new TypeError(`renderWidget("${name}"): props must be a plain object`);
  }
  const attributes: [string, string][] = [
    [ISLAND_ATTRIBUTES.component, name],
    [ISLAND_ATTRIBUTES.props, JSON.stringify(props)],
    [ISLAND_ATTRIBUTES.api, options.apiBase ?? DEFAULT_API_BASE],
  ];
  if (options.hash !== undefined) attributes.push([ISLAND_ATTRIBUTES.hash, options.hash]);
  if (options.live) attributes.push([ISLAND_ATTRIBUTES.live, ""]);
  const rendered = attributes.map(([key, value]) => ` ${key}="${escapeHtml(value)}"`).join("");
  return `<div${rendered}><div class="svc-loading" aria-busy="true">Loading…</div></div>`;
}
