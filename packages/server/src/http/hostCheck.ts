import { isIP } from "node:net";

/**
 * Whether a request's `Host` may reach a development server: IP addresses, `localhost` and
 * `*.localhost`, and the names in `allowed` (exact, or `.example.com` for it and every
 * subdomain). A web page elsewhere can point a name it controls at 127.0.0.1 (DNS rebinding)
 * and read what a dev server answers — components' full sources, through their source maps —
 * but its requests carry that name in `Host`, so they are refused (Vite does the same since
 * CVE-2025-24010). A request without `Host` (HTTP/1.0, no browser) is allowed.
 */
export function isHostAllowed(host: string | undefined, allowed: readonly string[] = []): boolean {
  if (host === undefined || host === "") return true;
  const name = hostnameOf(host).toLowerCase();
  if (name === "") return false;
  if (isIP(name) !== 0 || name === "localhost" || name.endsWith(".localhost")) return true;
  return allowed.some((entry) => {
    const candidate = entry.toLowerCase();
    if (candidate.startsWith(".")) return name === candidate.slice(1) || name.endsWith(candidate);
    return name === candidate;
  });
}

/** The host name of a `Host` header value: without its port, an IPv6 literal without brackets. */
function hostnameOf(host: string): string {
  if (host.startsWith("[")) {
    const end = host.indexOf("]");
    return end === -1 ? "" : host.slice(1, end);
  }
  const colon = host.lastIndexOf(":");
  return colon === -1 ? host : host.slice(0, colon);
}
