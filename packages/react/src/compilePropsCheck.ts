import { format, ucs2length } from "@cfworker/json-schema";

/**
 * The fast path of `validateProps`: a schema compiled once into closures that answer, for one
 * set of props, whether @cfworker/json-schema's interpreter would find no error at all. True
 * only then; false when it would find one, would throw (a function or `undefined` where it
 * looks): `validateProps` then runs the interpreter, so every message comes from it, unchanged. Closures, no code
 * generation: CSP-safe like the interpreter. A schema using any keyword not handled here gets
 * no fast path (`undefined`), and is always interpreted.
 *
 * Each check below mirrors the interpreter's own expression for its keyword (`validate.js` of
 * @cfworker/json-schema 4), so NaN, Infinity and code-point lengths come out the same.
 */
export type PropsCheck = (
  props: Readonly<Record<string, unknown>>,
  required: readonly string[],
) => boolean;

export type Draft = "4" | "7" | "2019-09" | "2020-12";

type Check = (value: unknown) => boolean;

/** Keywords that never make a value invalid. */
const ANNOTATIONS = new Set([
  "$schema",
  "$comment",
  "title",
  "description",
  "default",
  "examples",
  "deprecated",
  "readOnly",
  "writeOnly",
]);

const KEYWORDS = new Set([
  ...ANNOTATIONS,
  "type",
  "enum",
  "const",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "additionalProperties",
]);

/** Not compilable: the schema is interpreted. */
class Unsupported extends Error {}

/**
 * The fast check of a props schema as `validateProps` hands it to the interpreter (its own
 * `type: "object"`, `required` checked by `validateProps` itself), or undefined.
 */
export function compilePropsCheck(
  schema: Readonly<Record<string, unknown>>,
  draft: Draft,
): PropsCheck | undefined {
  try {
    for (const key of Object.keys(schema)) {
      if (
        !ANNOTATIONS.has(key) &&
        !["type", "properties", "required", "additionalProperties"].includes(key)
      ) {
        return undefined;
      }
    }
    const properties = compileProperties(schema.properties, draft);
    const additional =
      schema.additionalProperties === undefined
        ? undefined
        : compileSchema(schema.additionalProperties, draft);
    /** `required` as last seen (the schema's own array): its distinct names, and whether `ref` is one. */
    let lastRequired: readonly string[] | undefined;
    let requiredCount = 0;
    let requiresRef = false;
    return (props, required) => {
      // As `validateProps`: a schema without properties or required ones constrains nothing.
      if (properties.length === 0 && required.length === 0) return true;
      if (required !== lastRequired) {
        lastRequired = required;
        requiredCount = new Set(required).size;
        requiresRef = required.includes("ref");
      }
      // `ref` never reaches the interpreter's copy: a schema requiring it fails, with its message.
      if (requiresRef) return false;
      // `validateProps` compares props as JSON would carry them: an own enumerable key whose
      // value is not undefined, `ref` left out (`Object.keys`, as the interpreter's copy is
      // made from `Object.entries`). `__proto__` would not be a key of that copy: interpreted.
      const keys = Object.keys(props);
      let present = 0;
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i] as string;
        if (key === "ref") continue;
        if (key === "__proto__") return false;
        const value = props[key];
        if (value === undefined) continue;
        if (required.length > 0 && required.includes(key)) present++;
        const check = checkOf(properties, key);
        if (check !== undefined) {
          if (!check(value)) return false;
        } else if (additional !== undefined && !additional(value)) {
          return false;
        }
      }
      return present === requiredCount;
    };
  } catch (error) {
    if (error instanceof Unsupported) return undefined;
    throw error;
  }
}

/** `properties` as a flat list, key then check: cheaper to walk than a Map. */
function compileProperties(properties: unknown, draft: Draft): (string | Check)[] {
  if (properties === undefined) return [];
  if (!isObject(properties)) throw new Unsupported();
  const list: (string | Check)[] = [];
  for (const [key, schema] of Object.entries(properties)) {
    // Assigning `__proto__` to the interpreter's copy of the props would not make a property.
    if (key === "__proto__") throw new Unsupported();
    list.push(key, compileSchema(schema, draft));
  }
  return list;
}

function hasProperty(properties: readonly (string | Check)[], key: string): boolean {
  return checkOf(properties, key) !== undefined;
}

/** The check of property `key` in a list made by {@link compileProperties}, if it has one. */
function checkOf(properties: readonly (string | Check)[], key: string): Check | undefined {
  for (let i = 0; i < properties.length; i += 2) {
    if (properties[i] === key) return properties[i + 1] as Check;
  }
  return undefined;
}

function compileSchema(schema: unknown, draft: Draft): Check {
  if (schema === true) return () => true;
  if (schema === false) return () => false;
  if (!isObject(schema)) throw new Unsupported();
  for (const key of Object.keys(schema)) if (!KEYWORDS.has(key)) throw new Unsupported();
  const ofType = compileType(schema.type);
  const ofValue = compileValue(schema);
  const ofNumber = compileNumber(schema, draft);
  const ofString = compileString(schema);
  const ofArray = compileArray(schema, draft);
  const ofObject = compileObject(schema, draft);
  return (value) => {
    const kind = kindOf(value);
    if (kind === undefined) return false; // the interpreter throws: let it say so
    if (ofType !== undefined && !ofType(value, kind)) return false;
    if (ofValue !== undefined && !ofValue(value)) return false;
    if (kind === "object") return ofObject === undefined || ofObject(value as Props);
    if (kind === "array") return ofArray === undefined || ofArray(value as unknown[]);
    if (kind === "number") return ofNumber === undefined || ofNumber(value as number);
    if (kind === "string") return ofString === undefined || ofString(value as string);
    return true;
  };
}

type Props = Record<string, unknown>;

/** The JSON type of a value as the interpreter names it; undefined where it would throw. */
function kindOf(value: unknown): string | undefined {
  const raw = typeof value;
  if (raw === "string" || raw === "number" || raw === "boolean") return raw;
  if (raw === "object") return value === null ? "null" : Array.isArray(value) ? "array" : "object";
  return undefined;
}

/** `type`: one name or a list of them, `integer` a number without a fraction. */
function compileType(type: unknown): ((value: unknown, kind: string) => boolean) | undefined {
  if (type === undefined) return undefined;
  if (typeof type === "string") {
    if (type !== "integer") return (_value, kind) => kind === type;
    return (value, kind) => !(kind !== "number" || (value as number) % 1 || Number.isNaN(value));
  }
  if (!(Array.isArray(type) && type.every((t) => typeof t === "string"))) {
    throw new Unsupported();
  }
  const types = type as string[];
  return (value, kind) => {
    for (const t of types) {
      if (
        kind === t ||
        (t === "integer" &&
          kind === "number" &&
          (value as number) % 1 === 0 &&
          !Number.isNaN(value))
      ) {
        return true;
      }
    }
    return false;
  };
}

/** `const` and `enum` of primitive values. */
function compileValue(s: Props): Check | undefined {
  const constant = s.const;
  if (typeof constant === "object" && constant !== null) throw new Unsupported();
  const choices = s.enum;
  if (
    choices !== undefined &&
    !(Array.isArray(choices) && choices.every((c) => typeof c !== "object" || c === null))
  ) {
    throw new Unsupported();
  }
  if (constant === undefined && choices === undefined) return undefined;
  return (value) => {
    if (constant !== undefined && value !== constant) return false;
    if (choices !== undefined && !(choices as unknown[]).some((c) => value === c)) return false;
    return true;
  };
}

/** `minimum`, `maximum` and (not in draft 4) `exclusiveMinimum`, `exclusiveMaximum`. */
function compileNumber(s: Props, draft: Draft): ((value: number) => boolean) | undefined {
  const minimum = numberOrUndefined(s.minimum);
  const maximum = numberOrUndefined(s.maximum);
  // Draft 4's boolean `exclusiveMinimum` changes `minimum`: not handled.
  if (draft === "4" && (s.exclusiveMinimum !== undefined || s.exclusiveMaximum !== undefined)) {
    throw new Unsupported();
  }
  const exclusiveMinimum = numberOrUndefined(s.exclusiveMinimum);
  const exclusiveMaximum = numberOrUndefined(s.exclusiveMaximum);
  if ([minimum, maximum, exclusiveMinimum, exclusiveMaximum].every((n) => n === undefined)) {
    return undefined;
  }
  return (number) => {
    if (minimum !== undefined && number < minimum) return false;
    if (maximum !== undefined && number > maximum) return false;
    if (exclusiveMinimum !== undefined && number <= exclusiveMinimum) return false;
    if (exclusiveMaximum !== undefined && number >= exclusiveMaximum) return false;
    return true;
  };
}

/** `minLength`, `maxLength` (in code points), `pattern` and `format`. */
function compileString(s: Props): ((value: string) => boolean) | undefined {
  const minLength = numberOrUndefined(s.minLength);
  const maxLength = numberOrUndefined(s.maxLength);
  let pattern: RegExp | undefined;
  if (s.pattern !== undefined) {
    if (typeof s.pattern !== "string") throw new Unsupported();
    try {
      pattern = new RegExp(s.pattern, "u");
    } catch {
      throw new Unsupported();
    }
  }
  const formats = format as Record<string, (value: string) => boolean>;
  if (s.format !== undefined && typeof s.format !== "string") throw new Unsupported();
  // The interpreter looks the name up as `format[name]`, inherited names (`toString`) too.
  if (typeof s.format === "string" && !Object.hasOwn(formats, s.format) && s.format in formats) {
    throw new Unsupported();
  }
  const formatCheck = typeof s.format === "string" ? formats[s.format] : undefined;
  if ([minLength, maxLength, pattern, formatCheck].every((c) => c === undefined)) return undefined;
  return (string) => {
    if (minLength !== undefined || maxLength !== undefined) {
      const length = ucs2length(string);
      if (minLength !== undefined && length < minLength) return false;
      if (maxLength !== undefined && length > maxLength) return false;
    }
    if (pattern !== undefined && !pattern.test(string)) return false;
    if (formatCheck !== undefined && !formatCheck(string)) return false;
    return true;
  };
}

/** `items` (one schema for every item: a tuple is not handled), `minItems`, `maxItems`. */
function compileArray(s: Props, draft: Draft): ((value: unknown[]) => boolean) | undefined {
  if (Array.isArray(s.items)) throw new Unsupported();
  const items = s.items === undefined ? undefined : compileSchema(s.items, draft);
  const minItems = numberOrUndefined(s.minItems);
  const maxItems = numberOrUndefined(s.maxItems);
  if (items === undefined && minItems === undefined && maxItems === undefined) return undefined;
  return (array) => {
    if (maxItems !== undefined && array.length > maxItems) return false;
    if (minItems !== undefined && array.length < minItems) return false;
    if (items !== undefined) {
      for (let i = 0; i < array.length; i++) if (!items(array[i])) return false;
    }
    return true;
  };
}

/** `required`, `properties` and `additionalProperties`. */
function compileObject(s: Props, draft: Draft): ((value: Props) => boolean) | undefined {
  const required = s.required;
  if (
    required !== undefined &&
    !(Array.isArray(required) && required.every((r) => typeof r === "string"))
  ) {
    throw new Unsupported();
  }
  const requiredKeys = (required ?? []) as string[];
  const properties = compileProperties(s.properties, draft);
  const additional =
    s.additionalProperties === undefined ? undefined : compileSchema(s.additionalProperties, draft);
  if (requiredKeys.length === 0 && properties.length === 0 && additional === undefined) {
    return undefined;
  }
  return (object) => {
    for (const key of requiredKeys) if (!Object.hasOwn(object, key)) return false;
    for (let i = 0; i < properties.length; i += 2) {
      const key = properties[i] as string;
      if (Object.hasOwn(object, key) && !(properties[i + 1] as Check)(object[key])) return false;
    }
    if (additional !== undefined) {
      // Inherited enumerable keys included, as the interpreter's `for…in`.
      for (const key in object) {
        if (hasProperty(properties, key) && Object.hasOwn(object, key)) continue;
        if (!additional(object[key])) return false;
      }
    }
    return true;
  };
}

function numberOrUndefined(value: unknown): number | undefined {
  if (value === undefined || typeof value === "number") return value;
  throw new Unsupported();
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
