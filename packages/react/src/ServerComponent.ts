import type { KnownName, PropsFor } from "@svc/protocol";
import { QueryErrorResetBoundary } from "@tanstack/react-query";
import { type ComponentType, createElement, type ReactNode, Suspense } from "react";
import {
  type ErrorFallback,
  SvcErrorBoundary,
  type SvcErrorBoundaryProps,
} from "./SvcErrorBoundary.ts";
import { useComponent } from "./useComponent.ts";

/**
 * The props of `ServerComponent` for component `N` (see `SvcComponents`), or for explicit
 * props `P`: `props` must be given when the component requires any.
 */
export type ServerComponentProps<
  P extends object = never,
  N extends string = string,
> = ServerComponentOptions<N> & PropsField<PropsFor<P, N>>;

interface ServerComponentOptions<N extends string> {
  /** Component name, e.g. `"counter"` or `"store:product"`. */
  name: KnownName<N>;
  /** Which export of the bundle to render. Default `"default"`. */
  exportName?: string;
  /** Shown while the bundle loads. Default: nothing. */
  fallback?: ReactNode;
  /**
   * Shown when loading or rendering fails. Default: the nearest `SvcProvider`'s
   * `errorFallback`, else in development the error message ({@link SvcErrorMessage}) and the
   * error overlay, in production a neutral placeholder.
   */
  errorFallback?: ErrorFallback;
  onError?: SvcErrorBoundaryProps["onError"];
}

// biome-ignore lint/complexity/noBannedTypes: `{}` is what an omitted props argument amounts to.
type PropsField<P> = {} extends P
  ? {
      /** Props for the component. Default `{}`. */
      props?: P;
    }
  : {
      /** Props for the component. */
      props: P;
    };

/**
 * Renders a component served by svc, with its own Suspense and error boundary: a failure
 * shows inside this element only. Changing `name` or `props` after a failure tries again, and
 * so does a new version of the component (`reloadComponent`, live reload).
 */
export function ServerComponent<P extends object = never, N extends string = string>(
  componentProps: ServerComponentProps<P, N>,
): ReactNode {
  const {
    name,
    props,
    exportName,
    fallback = null,
    errorFallback,
    onError,
  } = componentProps as ServerComponentOptions<string> & { props?: object };
  return createElement(QueryErrorResetBoundary, {
    // biome-ignore lint/correctness/noChildrenProp: a render function, which createElement's children do not type
    children: ({ reset }: { reset: () => void }) =>
      createElement(
        SvcErrorBoundary,
        {
          component: name,
          fallback: errorFallback,
          onError,
          onReset: reset,
          resetKeys: [name, exportName, props],
        },
        createElement(
          Suspense,
          { fallback },
          createElement(Loaded, { name, exportName, props: props ?? {} }),
        ),
      ),
  });
}

function Loaded<P extends object>({
  name,
  exportName,
  props,
}: {
  name: string;
  exportName: string | undefined;
  props: P;
}): ReactNode {
  const Component = useComponent<P>(name, { exportName });
  return createElement(Component as ComponentType<P>, props);
}
