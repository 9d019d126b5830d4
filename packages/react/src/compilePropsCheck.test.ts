import { propsShapeIssue } from "@svc/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compilePropsCheck, type Draft } from "./compilePropsCheck.ts";
import { interpretProps, type PropsSchema, validateProps } from "./validateProps.ts";

const KEYS = ["a", "b", "c", "ref", "d-e"];

const small = fc.integer({ min: -3, max: 3 });
const optional = { requiredKeys: [] as never[] };

const typeSchema = fc.record(
  {
    type: fc.oneof(
      fc.constantFrom("string", "number", "integer", "boolean", "null", "object", "array"),
      fc.uniqueArray(fc.constantFrom("string", "number", "integer", "null", "array"), {
        maxLength: 3,
      }),
    ),
  },
  optional,
);
const choiceSchema = fc.record(
  {
    enum: fc.array(fc.oneof(fc.constantFrom("a", "b", "", null), small), { maxLength: 3 }),
    const: fc.oneof(fc.constantFrom("a", "b", true), small),
  },
  optional,
);
const numberSchema = fc.record(
  {
    type: fc.constantFrom("number", "integer"),
    minimum: small,
    maximum: small,
    exclusiveMinimum: small,
    exclusiveMaximum: small,
  },
  optional,
);
const stringSchema = fc.record(
  {
    type: fc.constant("string"),
    minLength: fc.integer({ min: 0, max: 3 }),
    maxLength: fc.integer({ min: 0, max: 3 }),
    pattern: fc.constantFrom("^a", "b$", "^\\p{L}*$"),
    format: fc.constantFrom("email", "uri", "date", "no-such-format"),
  },
  optional,
);
const leafValue = fc.oneof(
  small,
  fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0.5, -0, 2.5),
  fc.constantFrom("a", "ab", "ba", "b", "", "x@y.z", "2024-01-31", "https://x.y/", "\u{1F600}"),
  fc.constantFrom("\u{1F600}\u{1F600}", "\uD83D", "é", true, null),
);

/** Schemas built from the keywords the fast check handles, a few related keywords at a time. */
const subschema = fc.letrec((tie) => ({
  schema: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean(),
    fc.record(
      { description: fc.string({ maxLength: 3 }), default: fc.jsonValue({ maxDepth: 1 }) },
      optional,
    ),
    typeSchema,
    choiceSchema,
    numberSchema,
    stringSchema,
    fc.record(
      {
        type: fc.constant("array"),
        items: tie("schema"),
        minItems: fc.integer({ min: 0, max: 2 }),
        maxItems: fc.integer({ min: 0, max: 2 }),
      },
      optional,
    ),
    fc.record(
      {
        type: fc.constant("object"),
        properties: fc.dictionary(fc.constantFrom(...KEYS), tie("schema"), { maxKeys: 3 }),
        required: fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 2 }),
        additionalProperties: tie("schema"),
      },
      optional,
    ),
  ),
})).schema;

const propsSchema = fc.record(
  {
    properties: fc.dictionary(fc.constantFrom(...KEYS), subschema, { maxKeys: 4 }),
    required: fc.uniqueArray(fc.constantFrom(...KEYS), { maxLength: 3 }),
    additionalProperties: subschema,
    $schema: fc.constantFrom(
      "https://json-schema.org/draft/2020-12/schema",
      "http://json-schema.org/draft-07/schema#",
      "http://json-schema.org/draft-04/schema#",
    ),
  },
  { requiredKeys: [] },
);

const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.string({ maxLength: 4 }),
    fc.constantFrom("a", "ab", "b", "x@y.z", "2024-01-31", "https://x.y/", "\u{1F600}", "\uD83D"),
    fc.double(),
    fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, 0.5, -0),
    small,
    fc.constant(Object.create({ a: 1 })), // an inherited enumerable key
    fc.constant(new Date(0)),
    fc.boolean(),
    fc.constant(null),
    fc.constant(undefined),
    fc.constant(() => {}),
    fc.array(tie("value"), { maxLength: 3 }),
    fc.dictionary(fc.constantFrom(...KEYS), tie("value"), { maxKeys: 3 }),
  ),
})).value;

const props = fc.dictionary(fc.constantFrom(...KEYS), value, { maxKeys: 5 });

/** What the interpreter says: valid, invalid, or it throws. */
function interpreted(schema: PropsSchema, given: Record<string, unknown>): boolean | "throws" {
  try {
    return interpretProps(schema, given).length === 0;
  } catch {
    return "throws";
  }
}

function draftOf(schema: PropsSchema): Draft {
  const uri = schema.$schema ?? "";
  return uri.includes("draft-04") ? "4" : uri.includes("draft-07") ? "7" : "2020-12";
}

describe("compilePropsCheck", () => {
  it("answers exactly as the interpreter for the keywords it handles (false where it throws)", () => {
    fc.assert(
      fc.property(propsSchema, props, (schema, given) => {
        const { required = [], ...rest } = schema as PropsSchema;
        const check = compilePropsCheck(rest, draftOf(schema));
        // Draft 4's boolean exclusiveMinimum is the one thing generated that it leaves out.
        const draft4Exclusive =
          draftOf(schema) === "4" && JSON.stringify(schema).includes("exclusiveM");
        if (!draft4Exclusive) expect(check).toBeDefined();
        if (check === undefined) return;
        const expected = interpreted(schema, given);
        expect(check(given, required)).toBe(expected === true);
      }),
      { numRuns: 3000 },
    );
  });

  it("answers as the interpreter keyword by keyword, at the edges (NaN, equal bounds, code points)", () => {
    fc.assert(
      fc.property(
        fc.oneof(typeSchema, choiceSchema, numberSchema, stringSchema),
        leafValue,
        (leaf, given) => {
          const schema = { properties: { a: leaf } };
          const check = compilePropsCheck(schema, "2020-12");
          expect(check?.({ a: given }, [])).toBe(interpreted(schema, { a: given }) === true);
        },
      ),
      { numRuns: 5000 },
    );
  });

  it("agrees with the interpreter on code points and inherited keys", () => {
    const cases: [Record<string, unknown>, unknown][] = [
      [{ type: "string", maxLength: 1 }, "\u{1F600}"],
      [{ type: "string", minLength: 2 }, "\u{1F600}"],
      [{ type: "string", maxLength: 1 }, "\uD83D\uD83D"],
      [{ additionalProperties: false, properties: { a: true } }, Object.create({ a: 1 })],
      [{ additionalProperties: { type: "string" } }, Object.create({ a: 1 })],
      [{ required: ["a"] }, Object.create({ a: 1 })],
    ];
    for (const [leaf, given] of cases) {
      const schema = { properties: { a: leaf } };
      const check = compilePropsCheck(schema, "2020-12");
      expect([leaf, check?.({ a: given }, [])]).toEqual([
        leaf,
        interpreted(schema, { a: given }) === true,
      ]);
    }
  });

  it("agrees with the interpreter on the props object: hidden and `__proto__` keys, required names repeated or changed", () => {
    const hidden = Object.defineProperty({ b: "x" }, "a", { value: 1, enumerable: false });
    const ownProto = JSON.parse('{"__proto__": {"a": 1}, "b": "x"}') as Record<string, unknown>;
    const schema = {
      properties: { a: { type: "string" }, b: { type: "string" } },
      additionalProperties: false,
    };
    const check = compilePropsCheck(schema, "2020-12");
    const cases: [Record<string, unknown>, string[]][] = [
      [hidden, []], // valid: the interpreter's copy has no `a`
      [hidden, ["a"]], // `a` is not there for the interpreter either
      [ownProto, []],
      [{ a: "x", b: "y" }, ["a", "a"]],
      [{ a: "x" }, ["a", "b"]],
      [{ a: "x", b: "y" }, ["a", "b"]],
      [{ a: "x", b: "y" }, ["ref"]],
    ];
    // One check, the required names changing from call to call.
    for (const [given, required] of cases) {
      expect([given, required, check?.(given, required)]).toEqual([
        given,
        required,
        interpreted({ ...schema, required }, given) === true,
      ]);
    }
  });

  it("compiles the store's product schema and passes its card's props without the interpreter", () => {
    const schema = {
      type: "object",
      properties: {
        name: { type: "string", description: "Product name." },
        price: { type: "number", minimum: 0 },
        description: { type: "string", default: "" },
        url: { type: "string" },
        mode: { type: "string", enum: ["list", "detail"], default: "list" },
      },
      required: ["name", "price"],
    };
    const check = compilePropsCheck(schema, "2020-12");
    expect(check?.({ name: "Mug", price: 14.5, url: "/p/1" }, schema.required)).toBe(true);
    expect(check?.({ name: "Mug", price: -1 }, schema.required)).toBe(false);
    expect(check?.({ name: "Mug" }, schema.required)).toBe(false);
    expect(check?.({ name: "Mug", price: 1, mode: "grid" }, schema.required)).toBe(false);
  });

  it("leaves schemas with other keywords to the interpreter", () => {
    for (const schema of [
      { properties: { a: { $ref: "#/$defs/x" } } },
      { properties: { a: { anyOf: [{ type: "string" }] } } },
      { properties: { a: { type: "number", multipleOf: 2 } } },
      { properties: { a: { items: [{ type: "string" }] } } },
      { properties: { a: { enum: [{ x: 1 }] } } },
      { properties: { a: { format: "hasOwnProperty" } } },
      { minProperties: 1 },
    ]) {
      expect(compilePropsCheck(schema, "2020-12")).toBeUndefined();
    }
  });
});

describe("validateProps (fast check and interpreter together)", () => {
  it("gives the interpreter's issues whenever the props fail", () => {
    fc.assert(
      fc.property(propsSchema, props, (schema, given) => {
        let fast: unknown;
        let slow: unknown;
        try {
          validateProps(schema as PropsSchema, given); // compiles: the next call has its check
        } catch {
          // the interpreter throws for these props: compared below
        }
        try {
          fast = validateProps(schema as PropsSchema, given);
        } catch (error) {
          fast = (error as Error).message;
        }
        // What no schema allows comes first (`propsShapeIssue`), as in `validateProps`.
        const shape = propsShapeIssue(given);
        try {
          slow = shape === undefined ? interpretProps(schema as PropsSchema, given) : [shape];
        } catch (error) {
          slow = (error as Error).message;
        }
        expect(fast).toEqual(slow);
      }),
      { numRuns: 1000 },
    );
  });
});
