/** Cross-origin access: who may read svc's answers from another origin, and the preflights. */
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";

export interface CorsOptions {
  /** Origins allowed to make cross-origin GET requests (exact match, or "*"). */
  origins: readonly string[];
}

export function preflight(
  allowed: ReadonlySet<string>,
  request: SvcRequest,
  methods: string,
): SvcResponse {
  const cors = corsFor(allowed, request.header("origin"));
  return {
    status: 204,
    headers: {
      allow: `${methods}, OPTIONS`,
      ...(cors["access-control-allow-origin"] === undefined
        ? {}
        : {
            "access-control-allow-methods": methods,
            "access-control-allow-headers": request.header("access-control-request-headers") ?? "*",
            "access-control-max-age": "600",
          }),
    },
    body: null,
  };
}

/**
 * Readiness: 200 with `{ "status": "ready" }` once the handler set can answer everything (its
 * render workers up); 503 with `Retry-After` and the reason while they start, or once it
 * shuts down — so a load balancer sends it nothing then. Never cached.
 */
export function corsFor(
  allowed: ReadonlySet<string>,
  origin: string | undefined,
): Record<string, string> {
  if (allowed.size === 0) return {};
  // A bundle's `Link` header names what the client fetches alongside it (preloading).
  const expose = { "access-control-expose-headers": "Link" };
  if (allowed.has("*")) return { "access-control-allow-origin": "*", ...expose };
  if (origin === undefined || !allowed.has(origin)) return { vary: "Origin" };
  return { "access-control-allow-origin": origin, vary: "Origin", ...expose };
}
