import {
  adoptStylesheets,
  assertComponentName,
  BundleLoadError,
  ComponentNotFoundError,
  createSvcClient,
  ExportNotFoundError,
  getModuleRegistry,
  IntegrityError,
  InvalidComponentNameError,
  installModules,
  isSvcError,
  ModuleNotFoundError,
  RenderError,
  RUNTIME_MODULE_NAMES,
  SchemaValidationError,
  SvcError,
  stylesheetsOf,
} from "@svc/runtime";
import * as React from "react";
import * as jsxRuntime from "react/jsx-runtime";
import { componentMetadataQueryOptions, componentQueryOptions } from "./componentQueryOptions.ts";
import { connectLive } from "./connectLive.ts";
import { svcQueryKeys } from "./queryKeys.ts";
import { reloadComponent, showComponentFailure } from "./reloadComponent.ts";
import { ServerComponent } from "./ServerComponent.ts";
import { SvcErrorBoundary, SvcErrorMessage } from "./SvcErrorBoundary.ts";
import { useSvc } from "./svcContext.ts";
import { useComponent } from "./useComponent.ts";
import { validateProps } from "./validateProps.ts";

/**
 * `@svc/react` as bundles get it (`import { useComponent } from "@svc/react"`): what index.ts
 * exports, these very values, so components share this copy's contexts and caches. Not the
 * index's own namespace: this module is part of what the index exports, so importing the index
 * here would be an import cycle. `installReactModules.test.ts` keeps the two alike.
 *
 * `SvcProvider` and `hydrateIsland` install through this module, so it cannot import them
 * either: their modules add them ({@link exposeToComponents}) when they load, before any
 * installation can run.
 */
const svcReact: Record<string, unknown> = Object.assign(Object.create(null), {
  adoptStylesheets,
  assertComponentName,
  BundleLoadError,
  ComponentNotFoundError,
  componentMetadataQueryOptions,
  componentQueryOptions,
  connectLive,
  createSvcClient,
  ExportNotFoundError,
  getModuleRegistry,
  IntegrityError,
  InvalidComponentNameError,
  installModules,
  installReactModules,
  isSvcError,
  ModuleNotFoundError,
  RenderError,
  RUNTIME_MODULE_NAMES,
  reloadComponent,
  SchemaValidationError,
  ServerComponent,
  SvcError,
  SvcErrorBoundary,
  SvcErrorMessage,
  showComponentFailure,
  stylesheetsOf,
  svcQueryKeys,
  useComponent,
  useSvc,
  validateProps,
});
// Tagged as a module namespace is ("[object Module]"), the tag not among the exports.
Object.defineProperty(svcReact, Symbol.toStringTag, { value: "Module" });

/** Adds exports of modules that sit above this one to what components get (see above). */
export function exposeToComponents(exports: Readonly<Record<string, unknown>>): void {
  Object.assign(svcReact, exports);
}

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
