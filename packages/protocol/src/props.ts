/**
 * What props must be to cross between server and browser, whatever a component's schema says:
 * JSON data that `JSON.stringify` and `JSON.parse` give back unchanged, and that React can pass
 * to a component as it is. The server refuses other props before anything renders; the
 * browser's development checks say the same (one rule, both sides).
 */

/**
 * How deeply props may nest (objects and arrays). Far beyond real props; deeper ones are
 * refused before anything walks them recursively (a render, `JSON.stringify`, a worker's
 * `postMessage`).
 */
export const MAX_PROPS_DEPTH = 64;

/** A way props cannot cross (see {@link propsShapeIssue}). */
export interface PropsShapeIssue {
  /** The top-level prop it is in; "" for the props as a whole. */
  prop: string;
  /** JSON pointer to the value, e.g. "#/items/0". */
  path: string;
  /**
   * `depth`: nested deeper than {@link MAX_PROPS_DEPTH} (a malformed request: 400);
   * `finite`: a number JSON cannot carry (`1e309` parses to Infinity, which `JSON.stringify`
   * writes as `null`: the browser would hydrate other props than the server rendered);
   * `__proto__`: a prop of that name, which React's `createElement` would make the props'
   * prototype instead of a prop — every value in it would reach the component unchecked.
   */
  keyword: "depth" | "finite" | "__proto__";
  message: string;
}

/**
 * The first way `props` cannot cross, or undefined. Only arrays and plain objects are walked
 * (a React app's props may hold functions, elements or class instances: not data, not looked
 * into), without recursion, so no depth of nesting can overflow the stack.
 */
export function propsShapeIssue(props: unknown): PropsShapeIssue | undefined {
  if (!isData(props)) return undefined;
  if (Object.hasOwn(props, "__proto__")) {
    return {
      prop: "__proto__",
      path: "#/__proto__",
      keyword: "__proto__",
      message: "is not allowed as a prop name (React would make it the props' prototype)",
    };
  }
  // Flat props (the usual case) need no stack.
  let nested = false;
  for (const key in props) {
    if (!Object.hasOwn(props, key)) continue;
    const value = (props as Record<string, unknown>)[key];
    if (typeof value === "number" && !Number.isFinite(value)) return notFinite(key, [key]);
    if (isData(value)) nested = true;
  }
  return nested ? walk(props) : undefined;
}

/** A value on the walk's stack; its path is made from its parents only when reported. */
interface Step {
  value: object;
  depth: number;
  key: string;
  parent: Step | undefined;
}

function walk(props: object): PropsShapeIssue | undefined {
  const stack: Step[] = [{ value: props, depth: 0, key: "", parent: undefined }];
  while (stack.length > 0) {
    const step = stack.pop() as Step;
    const { value, depth } = step;
    if (depth >= MAX_PROPS_DEPTH) {
      const path = pathOf(step);
      return {
        prop: path[0] ?? "",
        path: pointer(path.slice(0, 3)),
        keyword: "depth",
        message: `nests deeper than ${MAX_PROPS_DEPTH} levels`,
      };
    }
    // Arrays by index: `for…in` would make a string of every index.
    if (Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) {
        const issue = visit(stack, step, String(i), value[i]);
        if (issue !== undefined) return issue;
      }
      continue;
    }
    for (const key in value) {
      if (!Object.hasOwn(value, key)) continue;
      const issue = visit(stack, step, key, (value as Record<string, unknown>)[key]);
      if (issue !== undefined) return issue;
    }
  }
  return undefined;
}

/** Checks `child`, found at `key` of `parent`'s value, and pushes it when it is data. */
function visit(
  stack: Step[],
  parent: Step,
  key: string,
  child: unknown,
): PropsShapeIssue | undefined {
  if (typeof child === "number") {
    if (!Number.isFinite(child)) return notFinite(key, [...pathOf(parent), key]);
  } else if (isData(child)) {
    stack.push({ value: child, depth: parent.depth + 1, key, parent });
  }
  return undefined;
}

/** The keys from the props down to `step`. */
function pathOf(step: Step): string[] {
  const path: string[] = [];
  for (let at: Step | undefined = step; at?.parent !== undefined; at = at.parent) path.push(at.key);
  return path.reverse();
}

function notFinite(key: string, path: string[]): PropsShapeIssue {
  const where = path.length > 1 ? `${path.slice(1).join("/")}: ` : "";
  return {
    prop: path[0] ?? key,
    path: pointer(path),
    keyword: "finite",
    message: `${where}must be a finite number (JSON cannot carry Infinity or NaN)`,
  };
}

/** An array or a plain object: data, walked into. */
function isData(value: unknown): value is object {
  if (typeof value !== "object" || value === null) return false;
  if (Array.isArray(value)) return true;
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

function pointer(path: readonly string[]): string {
  return `#${path.map((part) => `/${part.replaceAll("~", "~0").replaceAll("/", "~1")}`).join("")}`;
}
