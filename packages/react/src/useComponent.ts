import { type KnownName, type PropsFor, refreshGlobal } from "@svc/protocol";
import {
  adoptStylesheets,
  type ComponentModule,
  type ComponentStylesheet,
  getComponentExport,
  SchemaValidationError,
  type SvcError,
  stylesheetsOf,
} from "@svc/runtime";
import { useSuspenseQueries, useSuspenseQuery } from "@tanstack/react-query";
import { type ComponentType, createElement, type ReactNode, useInsertionEffect } from "react";
import { componentMetadataQueryOptions, componentQueryOptions } from "./componentQueryOptions.ts";
import { SvcErrorBoundary } from "./SvcErrorBoundary.ts";
import { useSvc } from "./svcContext.ts";
import { type PropsSchema, validateProps } from "./validateProps.ts";

// Replaced by bundlers; declared per module so no Node types are needed or clashed with.
declare const process: { env: { NODE_ENV?: string } };

export interface UseComponentOptions {
  /** Which export of the bundle to use. Default `"default"`. */
  exportName?: string;
}

/**
 * A component served by svc, loaded the first time it renders and cached for good
 * (`["component", name, source]`, shared by every user of the provider's source, one fetch).
 * Its stylesheets are applied while it is mounted (each once, however many use it).
 * Suspends while loading; a failure (not found, bundle error, missing export) is thrown to the
 * nearest error boundary, and so is an error thrown while the component renders, as a
 * `RenderError` naming this component (not the one that loaded it). In development, the
 * component validates its props against its `schema.json` (fetched alongside the bundle, not
 * after it). Needs an `SvcProvider` above it.
 */
export function useComponent<P extends object = never, N extends string = string>(
  name: KnownName<N>,
  options: UseComponentOptions = {},
): ComponentType<PropsFor<P, N>> {
  const { client, queryClient } = useSvc();
  const queries =
    process.env.NODE_ENV !== "production"
      ? [componentQueryOptions(name, { client }), componentMetadataQueryOptions(name, { client })]
      : [componentQueryOptions(name, { client })];
  const [loaded] = useSuspenseQueries({ queries }, queryClient);
  const module = loaded?.data as ComponentModule;
  const component = getComponentExport(module, name, options.exportName) as ComponentType<object>;
  return wrapperOf(component, name, stylesheetsOf(module)) as ComponentType<PropsFor<P, N>>;
}

const wrappers = new WeakMap<object, Map<string, ComponentType<never>>>();

/**
 * The component as `useComponent` hands it out: inside a render scope ({@link scoped}) and, in
 * development, checking its props first. One wrapper per component and name, so its identity
 * is stable from render to render.
 */
function wrapperOf<P extends object>(
  component: ComponentType<P>,
  name: string,
  stylesheets: readonly ComponentStylesheet[],
): ComponentType<P> {
  if (process.env.NODE_ENV !== "production") {
    const family = refreshGlobal()?.familyOf(component);
    if (family !== undefined) return familyWrapperOf(family, component, name, stylesheets);
  }
  let byName = wrappers.get(component);
  if (byName === undefined) {
    byName = new Map();
    wrappers.set(component, byName);
  }
  const existing = byName.get(name);
  if (existing !== undefined) return existing as ComponentType<P>;
  const wrapper: ComponentType<P> =
    process.env.NODE_ENV !== "production"
      ? withPropsValidation({ component, stylesheets }, name)
      : // biome-ignore lint/correctness/noComponentHookFactories: made once per component and cached above, so its identity is stable.
        function Scoped(props: P) {
          useStylesheets(stylesheets);
          return scoped(name, component, props);
        };
  wrapper.displayName = `svc(${name})`;
  byName.set(name, wrapper as ComponentType<never>);
  return wrapper;
}

/** What a development wrapper renders: the component's version and its stylesheets. */
interface Target<P> {
  component: ComponentType<P>;
  stylesheets: readonly ComponentStylesheet[];
}

const familyWrappers = new WeakMap<object, Map<string, [ComponentType<never>, Target<never>]>>();

/**
 * Development with React Fast Refresh: one wrapper per component family (every version of the
 * component, `refresh.js`) and name, rendering the newest version it was given. A new version
 * then renders in the same wrapper, where React refreshes it in place instead of remounting it.
 */
function familyWrapperOf<P extends object>(
  family: object,
  component: ComponentType<P>,
  name: string,
  stylesheets: readonly ComponentStylesheet[],
): ComponentType<P> {
  let byName = familyWrappers.get(family);
  if (byName === undefined) {
    byName = new Map();
    familyWrappers.set(family, byName);
  }
  const existing = byName.get(name) as [ComponentType<P>, Target<P>] | undefined;
  if (existing !== undefined) {
    existing[1].component = component;
    existing[1].stylesheets = stylesheets;
    return existing[0];
  }
  const target: Target<P> = { component, stylesheets };
  const wrapper = withPropsValidation(target, name);
  wrapper.displayName = `svc(${name})`;
  byName.set(name, [wrapper, target] as [ComponentType<never>, Target<never>]);
  return wrapper;
}

/** The component wrapped so that it checks its props first (`target`'s, as it is now). */
function withPropsValidation<P extends object>(target: Target<P>, name: string): ComponentType<P> {
  // biome-ignore lint/correctness/noComponentHookFactories: made once per component (or family) and cached, so its identity is stable.
  return function Validated(props: P) {
    useStylesheets(target.stylesheets);
    const { client, queryClient } = useSvc();
    const { data: metadata } = useSuspenseQuery(
      componentMetadataQueryOptions(name, { client }),
      queryClient,
    );
    const schema = metadata?.props as PropsSchema | undefined;
    if (schema) {
      const issues = validateProps(schema, props as Record<string, unknown>);
      if (issues.length > 0) throw new SchemaValidationError(name, issues);
    }
    return scoped(name, target.component, props);
  };
}

/**
 * Applies the component's stylesheets while it is mounted, before the browser paints it; a
 * new version (another module, other stylesheets) replaces them as it replaces the component.
 */
function useStylesheets(stylesheets: readonly ComponentStylesheet[]): void {
  useInsertionEffect(() => adoptStylesheets(stylesheets), [stylesheets]);
}

/**
 * The component's element inside an error boundary of its own that names a plain error
 * thrown while rendering it (a `RenderError` for `name`; svc errors name their component
 * already) and throws it on to the nearest boundary above: a component that loads another
 * is not blamed for the other's failure.
 */
function scoped<P extends object>(name: string, component: ComponentType<P>, props: P): ReactNode {
  return createElement(
    SvcErrorBoundary,
    { component: name, fallback: rethrow },
    createElement(component, props),
  );
}

function rethrow(error: SvcError): never {
  throw error;
}
