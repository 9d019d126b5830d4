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
