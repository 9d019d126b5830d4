/**
 * The HTML of an island around what its component rendered: the container the loader and
 * `@svc/react` hydrate (`data-svc-*` attributes, the props as JSON), its stylesheet links and
 * collected styles before it, and where the browser finds svc (`data-svc-api`,
 * `data-svc-manifest`) — or, for a render that failed, the container the browser renders
 * itself (`fallback: "client"`).
 */
import {
  type ComponentName,
  DEFAULT_HYDRATE,
  ISLAND_ATTRIBUTES,
  MANIFEST_FILE,
  resolveApiBase,
} from "@svc/protocol";
import { escapeHtml, escapeSingleQuoted } from "../util/html.ts";
import type { IslandOptions } from "./islandOptions.ts";
import type { Rendered, ServerBundle } from "./renderEngine.ts";

/** CSS for a `<style>` element: no `</style` can end it early. */
function styleText(css: string): string {
  return css.replace(/<\/(style)/gi, "<\\/$1");
}

/**
 * Where islands tell the browser svc is — the API's public URL, and in static mode the build's
 * — and the parts of each container, built once per bundle version.
 */
export class IslandMarkup {
  readonly #apiBase: string;
  /** `publicUrl` was given: every island names it, so a page on another origin finds svc. */
  readonly #namesApi: boolean;
  readonly #staticUrl: string | undefined;
  /** The container's fixed parts per bundle version (see `island`), by strategy and API base. */
  readonly #frames = new WeakMap<ServerBundle, Map<string | undefined, Map<string, Frame>>>();

  constructor(publicUrl: string | undefined, staticUrl: string | undefined) {
    this.#apiBase = resolveApiBase(publicUrl);
    this.#namesApi = publicUrl !== undefined;
    this.#staticUrl = staticUrl === undefined ? undefined : trimSlashes(staticUrl);
  }

  /**
   * The island of `name`: `rendered` in its container. `cached`: `own` is the handler set's
   * own object for this version, so the container's fixed parts are kept with it.
   */
  island(
    name: ComponentName,
    own: ServerBundle,
    props: Record<string, unknown>,
    options: IslandOptions,
    bases: Bases,
    rendered: Rendered,
    cached: boolean,
  ): string {
    const { html, styles, loaded, bundles } = rendered;
    const { filesRoot } = bases;
    // The container's parts that do not change with the props, kept per bundle version when
    // the bundle object is the handler set's own (at hand): built once, not per render.
    const frame = cached
      ? this.#frameOf(name, own, options, bases)
      : this.#createFrame(name, own, options, bases);
    // The island's CSS-in-JS rules go before it, so the HTML is styled before any script runs.
    const style =
      styles === ""
        ? ""
        : `<style ${ISLAND_ATTRIBUTES.styles}="${escapeHtml(name)}">${styleText(styles)}</style>`;
    const escapedProps = escapeSingleQuoted(JSON.stringify(props));
    // It loaded no other component (each one loaded has its server bundle here).
    if (bundles.size === 1) {
      return `${frame.links}${style}${frame.open}${escapedProps}${frame.attributes}${frame.api}>${html}</div>`;
    }
    // Other components rendered inside: the island lists them and links their stylesheets.
    let deps: Record<string, string> | undefined;
    for (const other in loaded) {
      if (other === name) continue;
      deps ??= {};
      deps[other] = loaded[other] as string;
    }
    const list =
      deps === undefined
        ? ""
        : ` ${ISLAND_ATTRIBUTES.deps}='${escapeSingleQuoted(JSON.stringify(deps))}'`;
    const links = linksOf(name, own, bundles, loaded, filesRoot);
    return `${links}${style}${frame.open}${escapedProps}${frame.attributes}${list}${frame.api}>${html}</div>`;
  }

  /**
   * The container of `name` for the browser to render itself (no `data-svc-ssr`): the loader
   * renders it as it renders a widget, `data-svc-fallback` says why. Its stylesheets are linked
   * when its bundle is at hand, so it is styled as soon as it renders.
   */
  fallback(
    name: ComponentName,
    own: ServerBundle | undefined,
    props: Record<string, unknown>,
    options: IslandOptions,
    kind: string,
  ): string {
    const { apiBase, filesRoot, names } = this.bases(options);
    const links =
      own === undefined ? "" : linksOf(name, own, new Map([[name, own]]), {}, filesRoot);
    let container = `<div ${ISLAND_ATTRIBUTES.component}="${escapeHtml(name)}" ${ISLAND_ATTRIBUTES.props}='${escapeSingleQuoted(JSON.stringify(props))}'`;
    if (own !== undefined) container += ` ${ISLAND_ATTRIBUTES.hash}="${escapeHtml(own.hash)}"`;
    container += ` ${ISLAND_ATTRIBUTES.hydrate}="${escapeHtml(options.hydrate ?? DEFAULT_HYDRATE)}" ${ISLAND_ATTRIBUTES.fallback}="${escapeHtml(kind)}"`;
    container += this.#located(apiBase, names);
    return `${links}${container}></div>`;
  }

  /**
   * Where an island's browser finds svc: the API (`apiBase`), the root of the bundles' files
   * (`filesRoot`: the API's, or the build's in static mode), and whether the island names the
   * API (it was given).
   */
  bases(options: IslandOptions): Bases {
    const apiBase = options.apiBase === undefined ? this.#apiBase : resolveApiBase(options.apiBase);
    return {
      apiBase,
      filesRoot: this.#staticUrl ?? apiBase,
      names: options.apiBase !== undefined || this.#namesApi,
    };
  }

  /** `data-svc-api` when the island names its API, `data-svc-manifest` in static mode. */
  #located(apiBase: string, names: boolean): string {
    let located = names ? ` ${ISLAND_ATTRIBUTES.api}="${escapeHtml(apiBase)}"` : "";
    if (this.#staticUrl !== undefined) {
      located += ` ${ISLAND_ATTRIBUTES.manifest}="${escapeHtml(`${this.#staticUrl}/${MANIFEST_FILE}`)}"`;
    }
    return located;
  }

  #createFrame(
    name: ComponentName,
    own: ServerBundle,
    options: IslandOptions,
    bases: Bases,
  ): Frame {
    const hydrate = options.hydrate ?? DEFAULT_HYDRATE;
    return {
      links: linksOf(name, own, new Map([[name, own]]), {}, bases.filesRoot),
      open: `<div ${ISLAND_ATTRIBUTES.component}="${escapeHtml(name)}" ${ISLAND_ATTRIBUTES.props}='`,
      attributes: `' ${ISLAND_ATTRIBUTES.ssr}="" ${ISLAND_ATTRIBUTES.hash}="${escapeHtml(own.hash)}" ${ISLAND_ATTRIBUTES.hydrate}="${escapeHtml(hydrate)}"`,
      api: this.#located(bases.apiBase, bases.names),
    };
  }

  #frameOf(name: ComponentName, own: ServerBundle, options: IslandOptions, bases: Bases): Frame {
    let byApiBase = this.#frames.get(own);
    if (byApiBase === undefined) {
      byApiBase = new Map();
      this.#frames.set(own, byApiBase);
    }
    let byStrategy = byApiBase.get(options.apiBase);
    if (byStrategy === undefined) {
      // Bounded: API bases and strategies are few (a page's own choices).
      if (byApiBase.size >= 16) byApiBase.clear();
      byStrategy = new Map();
      byApiBase.set(options.apiBase, byStrategy);
    }
    const hydrate = options.hydrate ?? DEFAULT_HYDRATE;
    let frame = byStrategy.get(hydrate);
    if (frame === undefined) {
      if (byStrategy.size >= 16) byStrategy.clear();
      frame = this.#createFrame(name, own, options, bases);
      byStrategy.set(hydrate, frame);
    }
    return frame;
  }
}

/** What an island's container holds besides its props, its dependencies and its HTML. */
interface Frame {
  /** The stylesheet links of the component alone (nothing else rendered inside). */
  links: string;
  /**
   * `<div` and the attributes before the props' value, up to its opening quote: a single
   * one, so the JSON's own `"` need no escaping (see `escapeSingleQuoted`).
   */
  open: string;
  /** From the props' closing quote to the strategy, inclusive. */
  attributes: string;
  /** `data-svc-api` when the island names its API, `data-svc-manifest` in static mode. */
  api: string;
}

/** Where an island's browser finds svc (see `IslandMarkup.bases`). */
export interface Bases {
  apiBase: string;
  filesRoot: string;
  names: boolean;
}

function trimSlashes(url: string): string {
  return url.replace(/\/+$/, "");
}

/**
 * The stylesheets of every component the island rendered (each file once, in the order they
 * were loaded), linked before it: the HTML is styled before any script runs, under a CSP of
 * `style-src 'self'` (the files are content-addressed: their names change with their bytes).
 */
function linksOf(
  name: ComponentName,
  own: ServerBundle,
  bundles: ReadonlyMap<string, ServerBundle>,
  loaded: Readonly<Record<string, string>>,
  filesRoot: string,
): string {
  let links = "";
  if (own.stylesheets.length > 0 || bundles.size > 1) {
    const sheets = new Set<string>();
    for (const [component, bundle] of bundles) {
      if (component !== name && !Object.hasOwn(loaded, component)) continue;
      for (const sheet of bundle.stylesheets) sheets.add(sheet);
    }
    // From another origin, fetched as the loader's `fetch` fetches it (CORS, no cookies), so
    // the browser's cache answers the loader: one download per file.
    const cors = /^[a-z][a-z\d+.-]*:/i.test(filesRoot) ? " crossorigin" : "";
    for (const sheet of sheets) {
      links += `<link rel="stylesheet" href="${escapeHtml(`${filesRoot}/bundles/${sheet}`)}"${cors} ${ISLAND_ATTRIBUTES.css}="${escapeHtml(name)}">`;
    }
  }
  return links;
}
