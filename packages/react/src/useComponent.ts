import { getComponentExport, isSvcError, RenderError, SchemaValidationError } from "@svc/runtime";
import { useSuspenseQuery } from "@tanstack/react-query";
import { Component, type ComponentType, createElement, type ReactNode } from "react";
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
 * failure (not found, bundle error, missing export) is thrown to the nearest error boundary,
 * and so is an error thrown while the component renders, as a `RenderError` naming this
 * component (not the one that loaded it). In development, the component validates its props
 * against its `schema.json`.
 */
export function useComponent<P extends object = Record<string, unknown>>(
  name: string,
  options: UseComponentOptions = {},
): ComponentType<P> {
  const { client, queryClient } = useSvc();
  const { data: module } = useSuspenseQuery(componentQueryOptions(name, { client }), queryClient);
  const component = getComponentExport(module, name, options.exportName) as ComponentType<P>;
  return wrapperOf(component, name);
}

const wrappers = new WeakMap<object, Map<string, ComponentType<never>>>();

/**
 * The component as `useComponent` hands it out: inside a {@link RenderScope} and, in
 * development, checking its props first. One wrapper per component and name, so its identity
 * is stable from render to render.
 */
function wrapperOf<P extends object>(component: ComponentType<P>, name: string): ComponentType<P> {
  let byName = wrappers.get(component);
  if (byName === undefined) {
    byName = new Map();
    wrappers.set(component, byName);
  }
  const existing = byName.get(name);
  if (existing !== undefined) return existing as ComponentType<P>;
  const wrapper: ComponentType<P> =
    process.env.NODE_ENV !== "production"
      ? withPropsValidation(component, name)
      : // biome-ignore lint/correctness/noComponentHookFactories: made once per component and cached above, so its identity is stable.
        function Scoped(props: P) {
          return scoped(name, component, props);
        };
  wrapper.displayName = `svc(${name})`;
  byName.set(name, wrapper as ComponentType<never>);
  return wrapper;
}

/** The component wrapped so that it checks its props first. */
function withPropsValidation<P extends object>(
  component: ComponentType<P>,
  name: string,
): ComponentType<P> {
  // biome-ignore lint/correctness/noComponentHookFactories: made once per component and cached by wrapperOf, so its identity is stable.
  return function Validated(props: P) {
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
    return scoped(name, component, props);
  };
}

function scoped<P extends object>(name: string, component: ComponentType<P>, props: P): ReactNode {
  return createElement(RenderScope, { name }, createElement(component, props));
}

interface RenderScopeProps {
  name: string;
  children?: ReactNode;
}

/**
 * Names a plain error thrown while rendering below it after component `name` (a
 * `RenderError`) and passes it on to the nearest error boundary, so that a component that
 * loads another (`useComponent`) is not blamed for the other's failure. svc errors pass as
 * they are: they name their component already.
 */
class RenderScope extends Component<RenderScopeProps, { failure: { error: unknown } | null }> {
  override state = { failure: null as { error: unknown } | null };
  #named: { failure: { error: unknown }; error: unknown } | undefined;

  static getDerivedStateFromError(error: unknown): { failure: { error: unknown } } {
    return { failure: { error } };
  }

  override render(): ReactNode {
    const { failure } = this.state;
    if (failure === null) return this.props.children;
    if (this.#named?.failure !== failure) {
      const error = isSvcError(failure.error)
        ? failure.error
        : new RenderError(this.props.name, failure.error);
      this.#named = { failure, error };
    }
    throw this.#named.error;
  }
}
