import { getComponentExport, SchemaValidationError } from "@svc/runtime";
import { useSuspenseQuery } from "@tanstack/react-query";
import { type ComponentType, createElement } from "react";
import { componentMetadataQueryOptions, componentQueryOptions } from "./componentQueryOptions.ts";
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
 * (`['component', name]`, shared by every user, one fetch). Suspends while loading; a
 * failure (not found, bundle error, missing export) is thrown to the nearest error boundary.
 * In development, the component validates its props against its `schema.json`.
 */
export function useComponent<P extends object = Record<string, unknown>>(
  name: string,
  options: UseComponentOptions = {},
): ComponentType<P> {
  const { client, queryClient } = useSvc();
  const { data: module } = useSuspenseQuery(componentQueryOptions(name, { client }), queryClient);
  const component = getComponentExport(module, name, options.exportName) as ComponentType<P>;
  if (process.env.NODE_ENV !== "production") return withPropsValidation(component, name);
  return component;
}

const validated = new WeakMap<object, Map<string, ComponentType<never>>>();

/** The component wrapped so that it checks its props first (one wrapper per component). */
function withPropsValidation<P extends object>(
  component: ComponentType<P>,
  name: string,
): ComponentType<P> {
  let byName = validated.get(component);
  if (byName === undefined) {
    byName = new Map();
    validated.set(component, byName);
  }
  const existing = byName.get(name);
  if (existing !== undefined) return existing as ComponentType<P>;
  // biome-ignore lint/correctness/noComponentHookFactories: made once per component and cached above, so its identity is stable.
  function Validated(props: P) {
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
    return createElement(component, props);
  }
  Validated.displayName = `svc(${name})`;
  byName.set(name, Validated as ComponentType<never>);
  return Validated;
}
