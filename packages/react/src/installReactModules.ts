import { installModules } from "@svc/runtime";
import * as React from "react";
import * as jsxRuntime from "react/jsx-runtime";
// The package's own public surface is what components get for `import … from "@svc/react"`.
import * as svcReact from "./index.ts";

/**
 * Installs this page's React, `react/jsx-runtime` and `@svc/react` into `window.__MODULES__`
 * (plus `extra`, e.g. `react-dom`, `react-dom/client`, `goober`), unless already there: the
 * first installation wins, so every component shares one React.
 */
export function installReactModules(extra: Readonly<Record<string, object>> = {}): void {
  installModules({
    react: React,
    "react/jsx-runtime": jsxRuntime,
    "@svc/react": svcReact,
    ...extra,
  });
}
