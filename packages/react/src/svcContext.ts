import { createSvcClient, type SvcClient } from "@svc/runtime";
import { QueryClient, QueryClientContext } from "@tanstack/react-query";
import { createContext, useContext } from "react";
import { installReactModules } from "./installReactModules.ts";

export interface SvcContextValue {
  client: SvcClient;
  queryClient: QueryClient;
}

export const SvcContext = createContext<SvcContextValue | null>(null);

let defaultClient: SvcClient | undefined;
let defaultQueryClient: QueryClient | undefined;

/** The client used without a provider: API at `/api`. */
export function getDefaultSvcClient(): SvcClient {
  if (defaultClient === undefined) {
    installReactModules();
    defaultClient = createSvcClient();
  }
  return defaultClient;
}

/**
 * The svc client and QueryClient in effect: the nearest `SvcProvider`'s; without one, the
 * default client and the nearest QueryClientProvider's client (or a shared default).
 */
export function useSvc(): SvcContextValue {
  const context = useContext(SvcContext);
  const ambient = useContext(QueryClientContext);
  if (context !== null) return context;
  if (ambient !== undefined) return { client: getDefaultSvcClient(), queryClient: ambient };
  defaultQueryClient ??= new QueryClient();
  return { client: getDefaultSvcClient(), queryClient: defaultQueryClient };
}
