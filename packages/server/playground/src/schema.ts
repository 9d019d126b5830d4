import type { ComponentMetadata } from "@svc/react";
import { isPlainObject } from "./route.ts";

/** One property of a component's props schema. */
export interface PropSchema {
  type?: string | string[];
  enum?: unknown[];
  default?: unknown;
  description?: string;
  title?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  multipleOf?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  items?: PropSchema | PropSchema[];
  [keyword: string]: unknown;
}

/** How a prop is edited. */
export type FieldKind =
  | { kind: "enum"; options: unknown[] }
  | { kind: "boolean" }
  | { kind: "string" }
  | { kind: "number"; integer: boolean }
  | { kind: "stringList" }
  | { kind: "json" };

export interface Field {
  name: string;
  schema: PropSchema;
  required: boolean;
  editor: FieldKind;
}

export function fieldKind(schema: PropSchema): FieldKind {
  if (Array.isArray(schema.enum) && schema.enum.length > 0) {
    return { kind: "enum", options: schema.enum };
  }
  switch (schema.type) {
    case "boolean":
      return { kind: "boolean" };
    case "string":
      return { kind: "string" };
    case "integer":
      return { kind: "number", integer: true };
    case "number":
      return { kind: "number", integer: false };
    case "array": {
      const items = schema.items;
      const plainStrings =
        isPlainObject(items) && items.type === "string" && !Array.isArray(items.enum);
      return plainStrings ? { kind: "stringList" } : { kind: "json" };
    }
    default:
      return { kind: "json" };
  }
}

/** The editable props of a component, in schema order. */
export function fieldsOf(metadata: ComponentMetadata | null | undefined): Field[] {
  const properties = metadata?.props?.properties ?? metadata?.properties ?? {};
  const required = new Set(metadata?.props?.required ?? metadata?.required ?? []);
  return Object.entries(properties).map(([name, raw]) => {
    const schema = (isPlainObject(raw) ? raw : {}) as PropSchema;
    return { name, schema, required: required.has(name), editor: fieldKind(schema) };
  });
}

/** The props a component starts with: each property's `default`. */
export function defaultsOf(fields: readonly Field[]): Record<string, unknown> {
  const defaults: Record<string, unknown> = {};
  for (const field of fields) {
    if (field.schema.default !== undefined) defaults[field.name] = field.schema.default;
  }
  return defaults;
}

/** A short type label for a field, e.g. `integer 1–100`, `string[]`. */
export function typeLabel(field: Field): string {
  const { schema, editor } = field;
  if (editor.kind === "enum") return "enum";
  if (editor.kind === "stringList") return "string[]";
  const type = Array.isArray(schema.type) ? schema.type.join(" | ") : (schema.type ?? "any");
  if (editor.kind === "number") {
    const min = schema.minimum ?? schema.exclusiveMinimum;
    const max = schema.maximum ?? schema.exclusiveMaximum;
    if (min !== undefined || max !== undefined) return `${type} ${min ?? "…"}–${max ?? "…"}`;
  }
  if (type === "array" && isPlainObject(schema.items) && typeof schema.items.type === "string") {
    return `${schema.items.type}[]`;
  }
  return type;
}
