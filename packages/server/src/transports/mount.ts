/** Normalises a mount prefix: "" or "/api" (leading slash, no trailing slash). */
export function resolvePrefix(prefix = ""): string {
  const trimmed = prefix.replace(/\/+$/, "");
  if (trimmed === "") return "";
  return trimmed.startsWith("/") ? trimmed : `/${trimmed}`;
}

/** The part of `url` below `prefix`, or undefined when `url` is not under it. */
export function belowPrefix(url: string, prefix: string): string | undefined {
  if (prefix === "") return url;
  if (!url.startsWith(prefix)) return undefined;
  const rest = url.slice(prefix.length);
  if (rest === "") return "/";
  if (rest.startsWith("/")) return rest;
  if (rest.startsWith("?")) return `/${rest}`;
  return undefined;
}

/**
 * The part of a raw `url` below the mount point of a framework route pattern that ends in a
 * wildcard (`/api/*`, `/ui/:tenant/*`, `/api/*path`, `/api/{*path}`). The mount is as many path
 * segments as the pattern has before its wildcard; they are cut from the raw URL, so the rest
 * keeps its exact (still percent-encoded) form, whatever the router decoded for itself. Each
 * bridge instance makes its own: the pattern's depth is worked out once per pattern it sees.
 */
export function createPatternMount(): (url: string, pattern: string) => string {
  let lastPattern: string | undefined;
  let lastDepth = 0;
  return (url, pattern) => {
    if (pattern !== lastPattern) {
      lastPattern = pattern;
      lastDepth = mountDepth(pattern);
    }
    return belowDepth(url, lastDepth);
  };
}

/** How many path segments a route pattern has before its wildcard (all, without one). */
export function mountDepth(pattern: string): number {
  const star = pattern.search(/(?:^|\/)\{?\*/);
  const mount = star === -1 ? pattern : pattern.slice(0, star);
  return mount.split("/").filter((segment) => segment !== "").length;
}

/** `url` without its first `depth` path segments (always starting with "/"). */
export function belowDepth(url: string, depth: number): string {
  let at = 0;
  for (let i = 0; i < depth && url[at] === "/"; i++) {
    at++;
    while (at < url.length && url[at] !== "/" && url[at] !== "?") at++;
  }
  const rest = url.slice(at);
  if (rest === "") return "/";
  if (rest.startsWith("/")) return rest;
  return `/${rest}`;
}
