import { readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { InvalidSchemaError } from "../errors.ts";
import type { Component } from "./componentRegistry.ts";

/** A JSON Schema property map, as written in `schema.json`. */
export type PropertyMap = Record<string, unknown>;

/** What `schema.json` may hold (an extended JSON Schema for the props plus UI metadata). */
export interface ComponentSchema {
  title?: string;
  description?: string;
  version?: string;
  type?: "object";
  properties?: PropertyMap;
  required?: string[];
  [keyword: string]: unknown;
}

/**
 * The metadata record, in both shapes the spec describes: nested (`props`) and flat
 * (`properties`, `required` repeat `props.*`).
 */
export interface ComponentMetadata {
  name: string;
  title: string;
  description: string;
  version: string;
  props: { type: "object"; properties: PropertyMap; required: string[] } | Record<string, never>;
  properties: PropertyMap;
  required: string[];
  hash: string;
}

interface CachedSchema {
  mtimeNs: bigint;
  size: bigint;
  ino: bigint;
  schema: ComponentSchema | undefined;
}

/**
 * Reads `schema.json` files, re-reading one only when its modification time, size or inode
 * changed. A missing file means "no schema".
 */
export class SchemaReader {
  readonly #cache = new Map<string, CachedSchema>();

  /**
   * The parsed schema of `component`, or `undefined` when it has no `schema.json`.
   * @throws InvalidSchemaError when the file is not valid JSON or not a JSON object.
   */
  read(component: Component): ComponentSchema | undefined {
    const path = join(component.dir, "schema.json");
    const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined || !stat.isFile()) {
      this.#cache.delete(path);
      return undefined;
    }
    const cached = this.#cache.get(path);
    if (
      cached &&
      cached.mtimeNs === stat.mtimeNs &&
      cached.size === stat.size &&
      cached.ino === stat.ino
    ) {
      return cached.schema;
    }
    const display = displayPath(component, path);
    let text: string;
    try {
      text = readFileSync(path, "utf8");
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw new InvalidSchemaError(component.name, display, `cannot be read (${String(error)})`);
    }
    const schema = parseSchema(component.name, display, text);
    // A file written in the same timestamp tick as this read could change unnoticed, so
    // only cache a parse whose file is older than the coarsest timestamp granularity.
    if (Date.now() - Number(stat.mtimeNs / 1_000_000n) > 50) {
      this.#cache.set(path, { mtimeNs: stat.mtimeNs, size: stat.size, ino: stat.ino, schema });
    }
    return schema;
  }
}

/**
 * Parses and checks the text of a `schema.json`.
 * @throws InvalidSchemaError naming `file` and the problem.
 */
export function parseSchema(name: string, file: string, text: string): ComponentSchema {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InvalidSchemaError(name, file, `is not valid JSON: ${(error as Error).message}`);
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
  return schema as ComponentSchema;
}

/** The metadata record of a component from its schema (or none) and its bundle hash. */
export function buildMetadata(
  name: string,
  schema: ComponentSchema | undefined,
  hash: string,
): ComponentMetadata {
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
    };
  }
  const properties = schema.properties ?? {};
  const required = schema.required ?? [];
  return {
    name,
    title: schema.title ?? name,
    description: schema.description ?? "",
    version: schema.version ?? "",
    props: { type: "object", properties, required },
    properties,
    required,
    hash,
  };
}

function displayPath(component: Component, path: string): string {
  return relative(component.source.dir, path).split("\\").join("/");
}
