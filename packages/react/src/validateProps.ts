import { type Schema, Validator } from "@cfworker/json-schema";
import { type PropsSchema, propsShapeIssue } from "@svc/protocol";
import type { PropIssue } from "@svc/runtime";
import { compilePropsCheck, type PropsCheck } from "./compilePropsCheck.ts";

export type { PropsSchema } from "@svc/protocol";

// @cfworker/json-schema interprets schemas: no code generation, so it runs under a CSP
// without 'unsafe-eval'. Each schema also gets a compiled fast check (closures, no code
// generation either) that answers "valid" without the interpreter's allocations; anything
// else — invalid props, a keyword the check does not handle — goes to the interpreter, so
// every message is the interpreter's.
interface Compiled {
  validator: Validator;
  check: PropsCheck | undefined;
}
const compiled = new WeakMap<PropsSchema, Compiled>();

/**
 * Checks props against a component's schema. Returns one issue per failing prop (required
 * but missing, or a value the schema rejects); an empty list when the props are valid or
 * the schema constrains nothing.
 */
export function validateProps(
  schema: PropsSchema,
  props: Readonly<Record<string, unknown>>,
): PropIssue[] {
  // What no schema can allow: props JSON cannot carry, or React cannot pass (the server
  // refuses the same, whatever the schema).
  const shape = propsShapeIssue(props);
  if (shape !== undefined) return [shape];
  const known = compiled.get(schema);
  const required = Array.isArray(schema.required) ? schema.required : [];
  if (known?.check?.(props, required) === true) return [];
  return interpretProps(schema, props, known);
}

/** {@link validateProps} by the interpreter alone, without the fast check (tests compare). */
export function interpretProps(
  schema: PropsSchema,
  props: Readonly<Record<string, unknown>>,
  known: Compiled | undefined = undefined,
): PropIssue[] {
  const required = Array.isArray(schema.required) ? schema.required : [];
  const hasProperties =
    schema.properties !== undefined && Object.keys(schema.properties).length > 0;
  if (!hasProperties && required.length === 0) return [];

  // Props are compared as JSON would carry them: undefined means absent; `ref` is React's.
  const instance: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(props)) {
    if (value === undefined || key === "ref") continue;
    // A plain key, as JSON.parse makes it: assigning `__proto__` would set the prototype.
    if (key === "__proto__") Object.defineProperty(instance, key, { value, enumerable: true });
    else instance[key] = value;
  }

  const issues: PropIssue[] = [];
  for (const prop of required) {
    if (!Object.hasOwn(instance, prop)) {
      issues.push({ prop, path: `#/${prop}`, keyword: "required", message: "is required" });
    }
  }

  let validator = known?.validator;
  if (validator === undefined) {
    const { required: _required, ...rest } = schema;
    const draft = draftOf(schema.$schema);
    validator = new Validator({ ...rest, type: "object" } as Schema, draft, false);
    compiled.set(schema, { validator, check: compilePropsCheck(rest, draft) });
  }
  const { errors } = validator.validate(instance);
  // Keep only the most specific errors: "property x does not match" summaries repeat them.
  const leaves = errors.filter(
    (error) =>
      !errors.some(
        (other) =>
          other !== error && other.instanceLocation.startsWith(`${error.instanceLocation}/`),
      ),
  );
  for (const error of leaves) {
    const segments = error.instanceLocation.replace(/^#\/?/, "").split("/").filter(Boolean);
    const decoded = segments.map(decodeSegment);
    issues.push({
      prop: decoded[0] ?? "",
      path: error.instanceLocation,
      keyword: error.keyword,
      message: decoded.length > 1 ? `${decoded.slice(1).join("/")}: ${error.error}` : error.error,
    });
  }
  return issues;
}

function draftOf(uri: string | undefined): "4" | "7" | "2019-09" | "2020-12" {
  if (uri === undefined) return "2020-12";
  if (uri.includes("draft-04")) return "4";
  if (uri.includes("draft-07") || uri.includes("draft-06")) return "7";
  if (uri.includes("2019-09")) return "2019-09";
  return "2020-12";
}

function decodeSegment(segment: string): string {
  let text = segment;
  try {
    text = decodeURIComponent(segment);
  } catch {
    // keep as is
  }
  return text.replaceAll("~1", "/").replaceAll("~0", "~");
}
