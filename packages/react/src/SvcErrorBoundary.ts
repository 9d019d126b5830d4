import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import { isSvcError, RenderError, type SvcError, UNAVAILABLE_TEXT } from "@svc/runtime";
import { errorReportOf, showErrorOverlay } from "@svc/runtime/live";
import {
  Component,
  type ContextType,
  createElement,
  type ErrorInfo,
  type ReactNode,
  useContext,
  useEffect,
} from "react";
import { revisionOf, subscribeRevisions } from "./componentRevision.ts";
import { type ErrorFallback, SvcContext } from "./svcContext.ts";

// Replaced by bundlers; declared per module so no Node types are needed or clashed with.
declare const process: { env: { NODE_ENV?: string } };

export type { ErrorFallback } from "./svcContext.ts";

export interface SvcErrorBoundaryProps {
  /** The component rendered inside; a plain error thrown in it becomes a `RenderError`. */
  component?: string;
  /**
   * Shown instead of the children after an error. Default: the `errorFallback` of the
   * nearest `SvcProvider`, else in development the message ({@link SvcErrorMessage}) and the
   * error overlay over the page, in production a neutral placeholder ("This component could
   * not be shown"), the details in the console.
   */
  fallback?: ErrorFallback;
  onError?: (error: SvcError, info: ErrorInfo) => void;
  /**
   * Called when the boundary resets, before the children render again — not when it starts
   * over because the failed component got a new version: what to show is cached by then.
   */
  onReset?: () => void;
  /** The boundary resets when one of these changes (objects compared shallowly). */
  resetKeys?: readonly unknown[];
  children?: ReactNode;
}

interface State {
  failure: { error: unknown } | null;
}

/**
 * Catches load and render errors of svc components; shows a readable message. It starts over
 * by itself when the component that failed gets a new version (live reload,
 * `reloadComponent`) — also a component loaded deep inside through `useComponent` — so a fix
 * shows without a page reload, wherever the boundary stands.
 */
export class SvcErrorBoundary extends Component<SvcErrorBoundaryProps, State> {
  static override contextType = SvcContext;
  declare context: ContextType<typeof SvcContext>;
  override state: State = { failure: null };
  private converted: { failure: State["failure"]; error: SvcError } | undefined;
  /** Stops watching for a new version of the failed component. */
  private unwatch: (() => void) | undefined;

  static getDerivedStateFromError(error: unknown): State {
    return { failure: { error } };
  }

  override componentDidCatch(_error: unknown, info: ErrorInfo): void {
    const error = this.error();
    if (error !== null) this.props.onError?.(error, info);
    this.watch();
  }

  override componentDidUpdate(previous: SvcErrorBoundaryProps): void {
    if (this.state.failure !== null && keysChanged(previous.resetKeys, this.props.resetKeys)) {
      this.reset();
    }
  }

  override componentWillUnmount(): void {
    this.unwatch?.();
  }

  reset = (): void => {
    this.props.onReset?.();
    this.startOver();
  };

  /** Shows the children again (without `onReset`). */
  private startOver(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    this.setState({ failure: null });
  }

  /**
   * Starts over when the failed component (or the one this boundary is for, which may have
   * stopped asking for it) gets a new revision: it was fetched again, and the new version or
   * failure is cached, so `onReset` (which, in `ServerComponent`, lets a failed query fetch
   * once more) is not called — the place shows what is cached, without asking for the
   * bundle a second time.
   */
  private watch(): void {
    this.unwatch?.();
    this.unwatch = undefined;
    const queryClient = this.context?.queryClient;
    const names = [this.error()?.component, this.props.component].filter(
      (name): name is string => name !== undefined,
    );
    if (names.length === 0 || queryClient === undefined) return;
    const failedAt = [...new Set(names)].map(
      (name) => [name, revisionOf(queryClient, name)] as const,
    );
    this.unwatch = subscribeRevisions(queryClient, () => {
      const moved = failedAt.some(([name, revision]) => revisionOf(queryClient, name) !== revision);
      if (this.state.failure !== null && moved) this.startOver();
    });
  }

  /** The caught error as an svc error: a plain one thrown while rendering is a RenderError. */
  private error(): SvcError | null {
    const { failure } = this.state;
    if (failure === null) return null;
    if (this.converted?.failure !== failure) {
      const error = isSvcError(failure.error)
        ? failure.error
        : new RenderError(this.props.component ?? "unknown", failure.error);
      this.converted = { failure, error };
    }
    return this.converted.error;
  }

  override render(): ReactNode {
    const error = this.error();
    if (error === null) return this.props.children;
    const fallback = this.props.fallback ?? this.context?.errorFallback;
    if (typeof fallback === "function") return fallback(error, this.reset);
    if (fallback !== undefined) return fallback;
    return createElement(DefaultFallback, { error });
  }
}

/**
 * The default fallback. In development the message in place and, while it is shown, the error
 * overlay over the page; in production (a production build, or components from a static
 * build) a neutral placeholder, the details in the console only.
 */
function DefaultFallback({ error }: { error: SvcError }): ReactNode {
  const client = useContext(SvcContext)?.client;
  const production = process.env.NODE_ENV === "production" || client?.manifestUrl !== undefined;
  useEffect(() => {
    if (process.env.NODE_ENV !== "production" && !production) {
      return showErrorOverlay(errorReportOf(error));
    }
    console.error(`svc: component "${error.component ?? "unknown"}" could not be shown:`, error);
    return undefined;
  }, [error, production]);
  if (!production) return createElement(SvcErrorMessage, { error });
  return createElement(
    "div",
    { role: "alert", className: "svc-error", [ISLAND_ATTRIBUTES.error]: error.kind },
    UNAVAILABLE_TEXT,
  );
}

/**
 * The error's message, as text, in an element marked `role="alert"` (what the default fallback
 * shows in development).
 */
export function SvcErrorMessage({ error }: { error: Error }): ReactNode {
  return createElement(
    "div",
    {
      role: "alert",
      className: "svc-error",
      [ISLAND_ATTRIBUTES.error]: isSvcError(error) ? error.kind : "Error",
    },
    error.message,
  );
}

function keysChanged(previous: readonly unknown[] = [], next: readonly unknown[] = []): boolean {
  if (previous.length !== next.length) return true;
  return previous.some((value, index) => !shallowEqual(value, next[index]));
}

function shallowEqual(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  const keysA = Object.keys(a);
  if (keysA.length !== Object.keys(b).length) return false;
  return keysA.every(
    (key) =>
      Object.hasOwn(b, key) &&
      Object.is((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
