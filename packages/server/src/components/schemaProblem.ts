/** What `type` may name. */
const JSON_TYPES = ["string", "number", "integer", "boolean", "object", "array", "null"];
/** Keywords whose value is a schema. */
const SCHEMA_KEYWORDS = [
  "additionalItems",
  "additionalProperties",
  "contains",
  "else",
  "if",
  "not",
  "propertyNames",
  "then",
  "unevaluatedItems",
  "unevaluatedProperties",
];
/** Keywords whose value is an object of schemas. */
const SCHEMA_MAP_KEYWORDS = ["$defs", "definitions", "dependentSchemas", "properties"];
/** Keywords whose value is a non-empty array of schemas. */
const SCHEMA_LIST_KEYWORDS = ["allOf", "anyOf", "oneOf", "prefixItems"];
const COUNT_KEYWORDS = [
  "maxContains",
  "maxItems",
  "maxLength",
  "maxProperties",
  "minContains",
  "minItems",
  "minLength",
  "minProperties",
];
const NUMBER_KEYWORDS = ["maximum", "minimum"];
const STRING_KEYWORDS = [
  "$anchor",
  "$comment",
  "$id",
  "$ref",
  "$schema",
  "description",
  "format",
  "title",
];

/**
 * What makes `schema` no JSON Schema (drafts 4 to 2020-12, as `@svc/react`'s validator reads
 * them), with where (`#/properties/price/type`), or undefined. The keywords that check values
 * must have the shape the specification gives them (a `type` that names a type, a `pattern`
 * that compiles as the validator compiles it, a count that is a whole number ≥ 0, a schema
 * where one is expected); unknown keywords are annotations, as the specification says.
 */
export function schemaProblem(schema: unknown): string | undefined {
  const stack: [unknown, string][] = [[schema, "#"]];
  while (stack.length > 0) {
    const [current, at] = stack.pop() as [unknown, string];
    if (typeof current === "boolean") continue;
    if (typeof current !== "object" || current === null || Array.isArray(current)) {
      return `${at} must be a schema (an object or a boolean), not ${describeJson(current)}`;
    }
    const problem = keywordProblem(current as Record<string, unknown>, at, (value, path) => {
      stack.push([value, path]);
    });
    if (problem !== undefined) return problem;
  }
  return undefined;
}

/** The first keyword of one schema object with the wrong shape; its subschemas go to `visit`. */
function keywordProblem(
  schema: Record<string, unknown>,
  location: string,
  visit: (subschema: unknown, at: string) => void,
): string | undefined {
  for (const [key, value] of Object.entries(schema)) {
    const at = pointer(location, key);
    const wrong = (expected: string) => `${at} must be ${expected}, not ${describeJson(value)}`;
    if (key === "type") {
      const types: unknown[] = Array.isArray(value) ? value : [value];
      const bad = types.find((t) => !JSON_TYPES.includes(t as string));
      if (types.length === 0 || bad !== undefined) {
        const expected = `one of ${JSON_TYPES.join(", ")} (or an array of them)`;
        return types.length === 0
          ? wrong(expected)
          : `${at} must be ${expected}, not ${describeJson(bad)}`;
      }
    } else if (SCHEMA_KEYWORDS.includes(key)) {
      visit(value, at);
    } else if (key === "items") {
      // A schema, or (drafts 4 to 2019-09) an array of them, one per position.
      if (!Array.isArray(value)) visit(value, at);
      else for (const [i, item] of value.entries()) visit(item, `${at}/${i}`);
    } else if (SCHEMA_MAP_KEYWORDS.includes(key) || key === "patternProperties") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return wrong("an object of schemas");
      }
      for (const [name, subschema] of Object.entries(value)) {
        const path = pointer(at, name);
        if (key === "patternProperties") {
          const problem = regexProblem(name);
          if (problem !== undefined) return `${at}: ${JSON.stringify(name)} ${problem}`;
        }
        visit(subschema, path);
      }
    } else if (SCHEMA_LIST_KEYWORDS.includes(key)) {
      if (!Array.isArray(value) || value.length === 0) return wrong("a non-empty array of schemas");
      for (const [i, item] of value.entries()) visit(item, `${at}/${i}`);
    } else if (key === "required") {
      if (!Array.isArray(value) || value.some((r) => typeof r !== "string")) {
        return wrong("an array of property names");
      }
    } else if (key === "enum") {
      if (!Array.isArray(value)) return wrong("an array of the allowed values");
    } else if (key === "pattern") {
      if (typeof value !== "string") return wrong("a regular expression (a string)");
      const problem = regexProblem(value);
      if (problem !== undefined) return `${at} ${problem}`;
    } else if (COUNT_KEYWORDS.includes(key)) {
      if (!Number.isInteger(value) || (value as number) < 0) return wrong("a whole number ≥ 0");
    } else if (NUMBER_KEYWORDS.includes(key)) {
      if (typeof value !== "number") return wrong("a number");
    } else if (key === "exclusiveMaximum" || key === "exclusiveMinimum") {
      // A number since draft 6; a boolean beside maximum/minimum in draft 4.
      if (typeof value !== "number" && typeof value !== "boolean") return wrong("a number");
    } else if (key === "multipleOf") {
      if (typeof value !== "number" || !(value > 0)) return wrong("a number > 0");
    } else if (key === "uniqueItems") {
      if (typeof value !== "boolean") return wrong("true or false");
    } else if (STRING_KEYWORDS.includes(key)) {
      if (typeof value !== "string") return wrong("a string");
    } else if (key === "dependentRequired" || key === "dependencies") {
      if (typeof value !== "object" || value === null || Array.isArray(value)) {
        return wrong("an object");
      }
      for (const [name, item] of Object.entries(value)) {
        const path = pointer(at, name);
        const names = Array.isArray(item) && item.every((r) => typeof r === "string");
        if (names) continue;
        if (key === "dependentRequired") return `${path} must be an array of property names`;
        visit(item, path); // `dependencies`: property names, or a schema
      }
    }
  }
  return undefined;
}

/** `at` and one more JSON Pointer segment. */
function pointer(at: string, key: string): string {
  return `${at}/${key.replaceAll("~", "~0").replaceAll("/", "~1")}`;
}

/** Why `pattern` does not compile as the validator compiles it (`new RegExp(p, "u")`). */
function regexProblem(pattern: string): string | undefined {
  try {
    new RegExp(pattern, "u");
    return undefined;
  } catch (error) {
    return `is not a regular expression: ${(error as Error).message}`;
  }
}

/** `"nubmer"`, `an array`, `null`: a JSON value, briefly, for a message. */
function describeJson(value: unknown): string {
  if (Array.isArray(value)) return "an array";
  if (value === null) return "null";
  if (typeof value === "object") return "an object";
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 40 ? `${text.slice(0, 40)}…` : text;
}
