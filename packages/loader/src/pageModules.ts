/**
 * The modules the loader renders with, and those it puts in the page's module registry for
 * bundles. Decided once, when the loader starts (`installPageModules`): until then the
 * bindings below are the bundled React's.
 */
import * as svcReactModule from "@svc/react";
import * as runtime from "@svc/runtime";
import { getModuleRegistry, installModules, type ModuleRegistry } from "@svc/runtime";
import * as tanstackQuery from "@tanstack/react-query";
import * as goober from "goober";
import * as React from "react";
import * as jsxRuntime from "react/jsx-runtime";
import * as ReactDOM from "react-dom";
import * as ReactDOMClient from "react-dom/client";

/**
 * Set by the build: `"url"` in `loader.esm.js`, an ES module whose React, `@svc/react` etc.
 * are the page's import map's, importing each bundle by its own URL (no `blob:`).
 */
declare const __SVC_MODULE_LOADING__: "blob" | "url";

/** The page's module registry (`window.__MODULES__`), as the loader found it. */
export let registry: ModuleRegistry;
/** The page's React: the registry's (a page's own, or the bundled one installed there). */
export let R: typeof React = React;
/** `R.createElement`. */
export let h: typeof React.createElement = React.createElement;
export let createRoot: typeof ReactDOMClient.createRoot = ReactDOMClient.createRoot;
export let hydrateRoot: typeof ReactDOMClient.hydrateRoot = ReactDOMClient.hydrateRoot;
/** Why nothing can render, when the page's own React came without its `react-dom/client`. */
export let problem: string | undefined;

/**
 * Installs the bundled modules, unless the page already registered a React: then that React
 * and its `react-dom/client` are used, since two Reacts on one page break hooks. Everything is
 * rendered through the registry's modules, never around them.
 */
export function installPageModules(): void {
  registry = getModuleRegistry();
  const foreign = registry.react !== undefined && registry.react !== React;
  // In `loader.esm.js` these are the import map's modules: the very ones bundles get, the
  // on-demand ones included (the import map resolves them; only `loader.js` fetches them
  // on demand). Only there: in `loader.js` the build drops them.
  if (__SVC_MODULE_LOADING__ === "url") {
    installModules({
      "@svc/react": svcReactModule,
      "@tanstack/react-query": tanstackQuery,
      goober,
    });
  }
  installModules(
    foreign
      ? { "@svc/runtime": runtime }
      : {
          react: React,
          "react/jsx-runtime": jsxRuntime,
          "react-dom": ReactDOM,
          "react-dom/client": ReactDOMClient,
          "@svc/runtime": runtime,
        },
  );
  R = registry.react as typeof React;
  h = R.createElement;
  const client = registry["react-dom/client"] as typeof ReactDOMClient | undefined;
  createRoot = client?.createRoot ?? ReactDOMClient.createRoot;
  hydrateRoot = client?.hydrateRoot ?? ReactDOMClient.hydrateRoot;
  problem =
    foreign && client === undefined
      ? "svc loader: the page registered its own React in window.__MODULES__ but not react-dom/client; register both (or neither)."
      : undefined;
}

let gooberReady = false;

/** goober's `setup`, done once goober is there (its `styled` needs React's createElement). */
export function setUpGoober(): void {
  const goober = registry.goober as { setup?: (h: unknown) => void } | undefined;
  if (gooberReady || typeof goober?.setup !== "function") return;
  gooberReady = true;
  goober.setup(h);
}
