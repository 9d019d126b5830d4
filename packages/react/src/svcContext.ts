import type { SvcClient, SvcError } from "@svc/runtime";
import type { QueryClient } from "@tanstack/react-query";
import { createContext, type ReactNode, useContext } from "react";

/** What an error boundary shows after an error: an element, or one made from the error. */
export type ErrorFallback = ReactNode | ((error: SvcError, reset: () => void) => ReactNode);

export interface SvcContextValue {
  client: SvcClient;
  queryClient: QueryClient;
  /** What `SvcErrorBoundary` (and `ServerComponent`) below shows when given no fallback. */
  errorFallback?: ErrorFallback;
}

export const SvcContext = createContext<SvcContextValue | null>(null);

/**
 * The svc client and QueryClient of the nearest `SvcProvider`. There is no hidden default:
 * without a provider this throws, saying what to add.
 */
export function useSvc(): SvcContextValue {
  const context = useContext(SvcContext);
  if (context === null) {
    throw new Error(
      'svc: useComponent, ServerComponent and useSvc need an <SvcProvider> above them — wrap your app in <SvcProvider apiBase="/api"> (or manifestUrl="…" for a build); it brings its QueryClient too.',
    );
  }
  return context;
}
