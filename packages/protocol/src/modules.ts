/**
 * The modules every bundle leaves as bare imports and the page provides once (through
 * `window.__MODULES__`), so all components share one React.
 */
export const SHARED_MODULES = [
  "react",
  "react-dom",
  "react/jsx-runtime",
  "react-dom/client",
  "goober",
  "@svc/react",
] as const;

export type SharedModuleName = (typeof SHARED_MODULES)[number];

/**
 * What an import map maps for svc's no-blob mode (`loader.esm.js`): the shared modules,
 * TanStack Query, which `@svc/react` and the loader share (one `QueryClient` class), and
 * `@svc/runtime`, which `@svc/react` and the loader share (one module registry, one record of
 * each component's stylesheets). Each is one vendor file (`vendor/<stem>.<hash>.js`).
 */
export const IMPORT_MAP_MODULES = [
  ...SHARED_MODULES,
  "@tanstack/react-query",
  "@svc/runtime",
] as const;

export type ImportMapModuleName = (typeof IMPORT_MAP_MODULES)[number];

/**
 * The vendor modules the standalone loader (`loader.js`, which carries React, ReactDOM and
 * `@svc/runtime`) fetches on demand: only for a bundle that imports one (directly or through
 * another), announced by the bundle's response (`Link: <../vendor/…>; rel=modulepreload`) or
 * its manifest entry (`modules`), fetched alongside the bundle.
 */
export const ON_DEMAND_MODULES = ["goober", "@tanstack/react-query", "@svc/react"] as const;

export type OnDemandModuleName = (typeof ON_DEMAND_MODULES)[number];

/**
 * The stem of a vendor module's file name (`vendor/<stem>.<hash>.js`): `@svc/react` →
 * `svc-react`, `react-dom/client` → `react-dom-client`. One per module of
 * {@link IMPORT_MAP_MODULES}, so the specifier can be read back from a file name.
 */
export function vendorStem(specifier: string): string {
  return specifier.replace(/^@/, "").replace(/[^A-Za-z0-9]+/g, "-");
}
