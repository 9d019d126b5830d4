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
 * What an import map maps for svc's no-blob mode (`loader.esm.js`): the shared modules, and
 * TanStack Query, which `@svc/react` and the loader share (one `QueryClient` class).
 */
export const IMPORT_MAP_MODULES = [...SHARED_MODULES, "@tanstack/react-query"] as const;

export type ImportMapModuleName = (typeof IMPORT_MAP_MODULES)[number];
