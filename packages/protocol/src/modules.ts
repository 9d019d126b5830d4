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
