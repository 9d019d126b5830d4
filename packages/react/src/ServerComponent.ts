import { QueryErrorResetBoundary } from "@tanstack/react-query";
import { type ComponentType, createElement, type ReactNode, Suspense } from "react";
import { useComponentRevision } from "./componentRevision.ts";
import {
  type ErrorFallback,
  SvcErrorBoundary,
  type SvcErrorBoundaryProps,
} from "./SvcErrorBoundary.ts";
import { useSvc } from "./svcContext.ts";
import { useComponent } from "./useComponent.ts";

export interface ServerComponentProps<P extends object = Record<string, unknown>> {
  /** Component name, e.g. `"counter"` or `"store:product"`. */
  name: string;
  /** Props for the component. Default `{}`. */
  props?: P;
  /** Which export of the bundle to render. Default `"default"`. */
  exportName?: string;
  /** Shown while the bundle loads. Default: nothing. */
  fallback?: ReactNode;
  /** Shown when loading or rendering fails. Default: the error message ({@link SvcErrorMessage}). */
  errorFallback?: ErrorFallback;
  onError?: SvcErrorBoundaryProps["onError"];
}

/**
 * Renders a component served by svc, with its own Suspense and error boundary: a failure
 * shows inside this element only. Changing `name` or `props` after a failure tries again, and
 * so does a new version of the component (`reloadComponent`, live reload).
 */
export function ServerComponent<P extends object = Record<string, unknown>>({
  name,
  props,
  exportName,
  fallback = null,
  errorFallback,
  onError,
}: ServerComponentProps<P>): ReactNode {
  const revision = useComponentRevision(useSvc().queryClient, name);
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
          resetKeys: [name, exportName, props, revision],
        },
        createElement(
          Suspense,
          { fallback },
          createElement(Loaded<P>, { name, exportName, props: props ?? ({} as P) }),
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
