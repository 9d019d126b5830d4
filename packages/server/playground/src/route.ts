/** The playground's state in the URL: `#/<name>?props=<json>&bg=dark&w=375`. */

export type Background = "light" | "dark" | "transparent";
export const BACKGROUNDS: readonly Background[] = ["light", "dark", "transparent"];

/** Stage widths offered; undefined is the full width of the stage. */
export const WIDTHS: readonly { value: number | undefined; label: string }[] = [
  { value: undefined, label: "Full width" },
  { value: 320, label: "320 · small phone" },
  { value: 375, label: "375 · phone" },
  { value: 768, label: "768 · tablet" },
  { value: 1024, label: "1024 · laptop" },
  { value: 1280, label: "1280 · desktop" },
];

export interface Route {
  name: string | undefined;
  /** The props as edited; undefined means the schema's defaults. */
  props: Record<string, unknown> | undefined;
  /** What is wrong with the URL's `props`, which are then ignored (parsed routes only). */
  propsError?: string | undefined;
  background: Background;
  width: number | undefined;
}

export function parseHash(hash: string): Route {
  const text = hash.replace(/^#\/?/, "");
  const at = text.indexOf("?");
  const path = at === -1 ? text : text.slice(0, at);
  const query = new URLSearchParams(at === -1 ? "" : text.slice(at + 1));
  let name: string | undefined;
  try {
    name = decodeURIComponent(path) || undefined;
  } catch {
    name = undefined;
  }
  const { props, propsError } = parseProps(query.get("props"));
  const bg = query.get("bg");
  const width = Number(query.get("w"));
  return {
    name,
    props,
    ...(propsError === undefined ? {} : { propsError }),
    background: BACKGROUNDS.includes(bg as Background) ? (bg as Background) : "light",
    width: Number.isInteger(width) && width > 0 ? width : undefined,
  };
}

/**
 * The `props` of the URL, or what is wrong with them: a mangled or hand-edited link falls
 * back to the schema's defaults, and the page says why.
 */
function parseProps(raw: string | null): {
  props: Record<string, unknown> | undefined;
  propsError?: string;
} {
  if (raw === null) return { props: undefined };
  let value: unknown;
  try {
    value = JSON.parse(raw);
  } catch (error) {
    return { props: undefined, propsError: `is not JSON: ${(error as Error).message}` };
  }
  if (isPlainObject(value)) return { props: value };
  const what = Array.isArray(value) ? "an array" : value === null ? "null" : typeof value;
  return { props: undefined, propsError: `must be a JSON object, not ${what}` };
}

export function formatHash(route: Route): string {
  if (route.name === undefined) return "#/";
  const query = new URLSearchParams();
  if (route.props !== undefined) query.set("props", JSON.stringify(route.props));
  if (route.background !== "light") query.set("bg", route.background);
  if (route.width !== undefined) query.set("w", String(route.width));
  const search = query.toString();
  return `#/${route.name}${search ? `?${search}` : ""}`;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Structural equality of JSON values (key order ignored). */
export function sameJson(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => sameJson(v, b[i]));
  }
  if (isPlainObject(a) && isPlainObject(b)) {
    const keys = Object.keys(a);
    return (
      keys.length === Object.keys(b).length &&
      keys.every((key) => Object.hasOwn(b, key) && sameJson(a[key], b[key]))
    );
  }
  return false;
}
