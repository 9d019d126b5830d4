/** A JSON Schema property map, as written in `schema.json`. */
export type PropertyMap = Record<string, unknown>;

/**
 * The props schema of a component: `schema.json` without its UI fields, a JSON Schema for an
 * object (what `validateProps` checks props against).
 */
export interface PropsSchema {
  /** `"object"` in a valid schema; any other value is reported, not assumed. */
  type?: string;
  properties?: PropertyMap;
  required?: string[];
  $schema?: string;
  [keyword: string]: unknown;
}

/**
 * The metadata endpoint's answer (`GET {prefix}/bundles/{name}/metadata`), in both shapes the
 * spec describes: nested (`props`) and flat (`properties`, `required` repeat `props.*`).
 */
export interface ComponentMetadata {
  name: string;
  title: string;
  description: string;
  version: string;
  /**
   * `schema.json` without its UI fields (`title`, `description`, `version`): the JSON Schema
   * props are checked against, every keyword kept (`additionalProperties`, `$defs`, …). `{}`
   * when the component has no `schema.json`.
   */
  props:
    | { type: "object"; properties: PropertyMap; required: string[]; [keyword: string]: unknown }
    | Record<string, never>;
  properties: PropertyMap;
  required: string[];
  /** First 12 hex characters of the SHA-256 of the bundle's bytes. */
  hash: string;
  /**
   * The components the bundle asks for by a literal name (`useComponent("image")`,
   * `<ServerComponent name="image">`), found in its sources at bundle time, sorted; clients
   * fetch them in parallel with the bundle. Names computed at run time are not listed.
   */
  dependencies: string[];
  /**
   * `dependencies` that exist and, transitively, theirs as far as their bundles are at hand
   * (the components the bundle's `Link: rel=modulepreload` header names). A client importing
   * bundles by URL, which sees no header, fetches them alongside the bundle from this list.
   */
  preload: string[];
  /**
   * The stylesheets the bundle imports, in cascade order, as paths relative to the bundle's
   * URL (`card-3f2a9c0b1d4e.css`); empty without CSS. A client importing the bundle by URL
   * (its `?url` form, without those imports) applies them itself.
   */
  stylesheets: string[];
}

/** A listing entry (`GET {prefix}/bundles`). */
export interface BundleListEntry {
  name: string;
}
