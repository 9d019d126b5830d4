import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { ComponentMetadata, PropsSchema } from "@svc/protocol";
import { InvalidSchemaError } from "../errors.ts";
import { type FileStamp, isRacy, nowNs, sameStamp, stampOf } from "../util/fileStamp.ts";
import { describeJsonError } from "../util/jsonSyntaxError.ts";
import { currentTurn } from "../util/loopTurn.ts";
import type { Component } from "./componentRegistry.ts";
import { schemaProblem } from "./schemaProblem.ts";

export type { ComponentMetadata, PropertyMap, PropsSchema } from "@svc/protocol";

/** What `schema.json` may hold (an extended JSON Schema for the props plus UI metadata). */
export interface ComponentSchema extends PropsSchema {
  title?: string;
  description?: string;
  version?: string;
}

/**
 * How deeply a `schema.json` may nest (objects and arrays). Far beyond any real schema; deeper
 * documents are refused before anything walks them recursively.
 */
export const MAX_SCHEMA_DEPTH = 256;

interface CachedSchema {
  stamp: FileStamp;
  schema: ComponentSchema | undefined;
  /** The turn of the event loop whose stat last confirmed it (see `util/loopTurn.ts`). */
  checkedTurn: number;
}

/**
 * Reads `schema.json` files, re-reading one only when its modification time, size or inode
 * changed, and checking that at most once per turn of the event loop, as the dev cache checks
 * bundles. A missing file means "no schema".
 */
export class SchemaReader {
  readonly #cache = new Map<string, CachedSchema>();
  /**
   * Each component directory's `schema.json` path, joined once: joining (and hashing a new
   * string for the lookup) on every read cost more than the rest of a read within a turn.
   * One per component directory seen, as the schemas themselves.
   */
  readonly #paths = new Map<string, string>();

  /**
   * The parsed schema of `component`, or `undefined` when it has no `schema.json`.
   * @throws InvalidSchemaError when the file is not valid JSON or not a JSON object.
   */
  read(component: Component): ComponentSchema | undefined {
    let path = this.#paths.get(component.dir);
    if (path === undefined) {
      path = join(component.dir, "schema.json");
      this.#paths.set(component.dir, path);
    }
    const cached = this.#cache.get(path);
    const turn = currentTurn();
    if (cached?.checkedTurn === turn) return cached.schema;
    const readAt = nowNs();
    const stamp = stampOf(path);
    if (cached !== undefined && sameStamp(cached.stamp, stamp)) {
      cached.checkedTurn = turn;
      return cached.schema;
    }
    this.#cache.delete(path);
    if (stamp === undefined) return undefined;
    const display = displayPath(component, path);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === "ENOENT" || code === "EISDIR") return undefined;
      throw new InvalidSchemaError(component.name, display, `cannot be read (${code ?? error})`);
    }
    const schema = parseSchema(component.name, display, text);
    if (!isRacy(stamp, readAt)) this.#cache.set(path, { stamp, schema, checkedTurn: turn });
    return schema;
  }

  /**
   * A string that changes whenever `component`'s `schema.json` may have (its stamp), without
   * reading or parsing it: what live reload compares.
   */
  version(component: Component): string {
    const stamp = stampOf(join(component.dir, "schema.json"));
    return stamp === undefined
      ? ""
      : `${stamp.ino}:${stamp.size}:${stamp.mtimeNs}:${stamp.ctimeNs}`;
  }
}

/**
 * Parses and checks the text of a `schema.json`: JSON (where it is not, the message ends with
 * `(line L column C)`), an object schema for the props, `$ref`s that resolve inside the file,
 * every keyword of the shape JSON Schema gives it ({@link schemaProblem}).
 * @throws InvalidSchemaError naming `file` and the problem.
 */
export function parseSchema(name: string, file: string, text: string): ComponentSchema {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    // Where it fails, as `(line L column C)`: the editor's place, and what `svc build` lists.
    const reason = describeJsonError(text, (error as Error).message);
    throw new InvalidSchemaError(name, file, `is not valid JSON: ${reason}`);
  }
  if (depthOf(value, MAX_SCHEMA_DEPTH) > MAX_SCHEMA_DEPTH) {
    throw new InvalidSchemaError(name, file, `nests deeper than ${MAX_SCHEMA_DEPTH} levels`);
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new InvalidSchemaError(
      name,
      file,
      `must hold a JSON object, not ${Array.isArray(value) ? "an array" : value === null ? "null" : typeof value}`,
    );
  }
  const schema = value as Record<string, unknown>;
  for (const key of ["title", "description", "version"] as const) {
    if (schema[key] !== undefined && typeof schema[key] !== "string") {
      throw new InvalidSchemaError(name, file, `"${key}" must be a string`);
    }
  }
  if (schema.type !== undefined && schema.type !== "object") {
    throw new InvalidSchemaError(name, file, `"type" must be "object" (props are an object)`);
  }
  const properties = schema.properties;
  if (
    properties !== undefined &&
    (typeof properties !== "object" || properties === null || Array.isArray(properties))
  ) {
    throw new InvalidSchemaError(name, file, `"properties" must be an object`);
  }
  const required = schema.required;
  if (
    required !== undefined &&
    (!Array.isArray(required) || required.some((r) => typeof r !== "string"))
  ) {
    throw new InvalidSchemaError(name, file, `"required" must be an array of strings`);
  }
  const ref = unresolvedRef(schema);
  if (ref !== undefined) throw new InvalidSchemaError(name, file, ref);
  // What no validator could check props against: refused here, so `svc serve` says what
  // `svc build` says, in the same words.
  const problem = schemaProblem(schema);
  if (problem !== undefined) {
    throw new InvalidSchemaError(name, file, `is not a valid JSON Schema: ${problem}`);
  }
  return schema as ComponentSchema;
}

/** Keywords whose values are data, not schemas: a `$ref` in them is no reference. */
const DATA_KEYWORDS = new Set(["enum", "const", "default", "examples"]);

/**
 * What is wrong with the first `$ref` of `schema` that cannot be followed where props are
 * checked (the server, and the browser from the metadata alone), or undefined: a reference
 * must point into the file itself (`#/$defs/price`), at something there.
 */
function unresolvedRef(schema: Record<string, unknown>): string | undefined {
  const stack: unknown[] = [schema];
  while (stack.length > 0) {
    const current = stack.pop();
    if (typeof current !== "object" || current === null) continue;
    if (Array.isArray(current)) {
      stack.push(...current);
      continue;
    }
    for (const [key, value] of Object.entries(current)) {
      if (key === "$ref" && typeof value === "string") {
        if (!value.startsWith("#")) {
          return `"$ref": ${JSON.stringify(value)} points outside schema.json — put the definition in "$defs" and refer to it as "#/$defs/…"`;
        }
        if (value.startsWith("#/") && resolvePointer(schema, value) === undefined) {
          return `"$ref": ${JSON.stringify(value)} points at nothing in schema.json`;
        }
      } else if (!DATA_KEYWORDS.has(key)) {
        stack.push(value);
      }
    }
  }
  return undefined;
}

/** The value a JSON pointer fragment (`#/$defs/a~1b`) names in `root`, or undefined. */
function resolvePointer(root: unknown, ref: string): unknown {
  let current = root;
  for (const raw of ref.slice(2).split("/")) {
    let part = raw;
    try {
      part = decodeURIComponent(raw);
    } catch {
      // as written
    }
    part = part.replaceAll("~1", "/").replaceAll("~0", "~");
    if (typeof current !== "object" || current === null || !Object.hasOwn(current, part)) {
      return undefined;
    }
    current = (current as Record<string, unknown>)[part];
  }
  return current;
}

/**
 * The metadata record of a component from its schema (or none), its bundle hash and what its
 * bundle asks for (`preload` and `stylesheets`: see {@link ComponentMetadata}).
 */
export function buildMetadata(
  name: string,
  schema: ComponentSchema | undefined,
  hash: string,
  dependencies: readonly string[] = [],
  bundle: { preload?: readonly string[]; stylesheets?: readonly string[] } = {},
): ComponentMetadata {
  const preload = [...(bundle.preload ?? [])];
  const stylesheets = [...(bundle.stylesheets ?? [])];
  if (schema === undefined) {
    return {
      name,
      title: name,
      description: "",
      version: "",
      props: {},
      properties: {},
      required: [],
      hash,
      dependencies: [...dependencies],
      preload,
      stylesheets,
    };
  }
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  // Every keyword that checks props stays (`additionalProperties`, `$defs` for a `$ref`, …):
  // the server and the browser validate against the schema as written.
  const {
    title: _title,
    description: _description,
    version: _version,
    type: _type,
    properties: _properties,
    required: _required,
    ...keywords
  } = schema;
  return {
    name,
    title: schema.title ?? name,
    description: schema.description ?? "",
    version: schema.version ?? "",
    props: { type: "object", properties, required, ...keywords },
    properties,
    required,
    hash,
    dependencies: [...dependencies],
    preload,
    stylesheets,
  };
}

function displayPath(component: Component, path: string): string {
  return relative(component.source.dir, path).split("\\").join("/");
}

/** How deeply `value` nests, counted without recursion; stops counting past `limit`. */
function depthOf(value: unknown, limit: number): number {
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 0]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== "object" || current === null) continue;
    const level = depth + 1;
    if (level > deepest) deepest = level;
    if (deepest > limit) return deepest;
    for (const child of Object.values(current)) stack.push([child, level]);
  }
  return deepest;
}
