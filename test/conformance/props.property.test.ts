/**
 * The server and the browser agree on which props a component takes: for generated JSON props
 * — keys named `__proto__`, `constructor` or `toString` among them, numbers JSON cannot carry
 * (`1e309`), deep nesting — the island endpoint renders exactly the props the development
 * loader's check (`validateProps` against the metadata it fetched) lets through.
 */
import { validateProps } from "@svc/react";
import fc from "fast-check";
import { beforeAll, describe, expect, it } from "vitest";
import { writeTree } from "../../packages/server/src/test/fixtures.ts";
import {
  ComponentRegistry,
  createHandlers,
  type Handlers,
  parseComponentName,
  silentLogger,
} from "./svc.ts";

const SCHEMAS = {
  loose: { type: "object", properties: { title: { type: "string" }, n: { type: "number" } } },
  strict: {
    type: "object",
    $defs: { tag: { type: "string", maxLength: 8 } },
    properties: {
      title: { type: "string" },
      tags: { type: "array", items: { $ref: "#/$defs/tag" } },
      meta: { type: "object", additionalProperties: { type: ["string", "number", "boolean"] } },
      constructor: { type: "string" },
    },
    required: ["title"],
    additionalProperties: false,
  },
  none: undefined,
} as const;

type Name = keyof typeof SCHEMAS;

let handlers: Handlers;
beforeAll(() => {
  const files: Record<string, string> = {};
  for (const [name, schema] of Object.entries(SCHEMAS)) {
    files[`${name}/index.tsx`] =
      "export default function C(props: Record<string, unknown>) {\n  return <p>{Object.keys(props).length}</p>;\n}\n";
    if (schema !== undefined) files[`${name}/schema.json`] = JSON.stringify(schema);
  }
  handlers = createHandlers(new ComponentRegistry(writeTree(files), { logger: silentLogger }), {
    logger: silentLogger,
    // Props are checked in the server's thread either way: no workers needed to compare.
    renderIsolation: "none",
  });
});

const key = fc.oneof(
  fc.constantFrom("title", "n", "tags", "meta", "__proto__", "constructor", "toString", "x"),
  fc.string({ maxLength: 4 }),
);
const leaf = fc.oneof(
  fc.string({ maxLength: 10 }),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
  fc.integer(),
  fc.boolean(),
  fc.constant(null),
);
const { value } = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small" },
    leaf,
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(key, tie("value"), { maxKeys: 3 }),
  ),
}));

/**
 * Props as a backend sends them: a JSON object's text, sometimes with a number no double can
 * hold (`1e309`, Infinity once parsed) or nested far deeper than any real props.
 */
const propsText = fc
  .tuple(fc.dictionary(key, value, { maxKeys: 4 }), fc.nat({ max: 9 }))
  .map(([props, twist]) => {
    const text = JSON.stringify(props);
    const first = (pair: string) =>
      text === "{}" ? `{${pair}}` : text.replace(/^\{/, `{${pair},`);
    if (twist === 0) return first('"n":1e309');
    if (twist === 1) return `{"deep":${"[".repeat(70)}${"]".repeat(70)}}`;
    if (twist === 2) return first('"__proto__":{"title":5}');
    return text;
  });

describe("props: the server and the browser's development check agree", () => {
  it.each(Object.keys(SCHEMAS) as Name[])("for the %s schema", async (name) => {
    const component = parseComponentName(name);
    const metadata = await handlers.getMetadata(component);
    await fc.assert(
      fc.asyncProperty(propsText, async (text) => {
        const props = JSON.parse(text) as Record<string, unknown>;
        const browser = validateProps(metadata.props, props).length === 0;
        const server = await handlers.renderIsland(component, JSON.parse(text)).then(
          () => true,
          (error: { kind?: string }) => {
            expect(error.kind).toBe("InvalidProps");
            return false;
          },
        );
        expect([text, server]).toEqual([text, browser]);
      }),
      { numRuns: 300 },
    );
  });
});
