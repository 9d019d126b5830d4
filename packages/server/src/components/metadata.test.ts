import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidSchemaError } from "../errors.ts";
import { cn, writeTree } from "../test/fixtures.ts";
import { ComponentRegistry } from "./componentRegistry.ts";
import { buildMetadata, parseSchema, SchemaReader } from "./metadata.ts";

describe("parseSchema", () => {
  it("names the file and the JSON problem for invalid JSON", () => {
    expect(() => parseSchema("x", "x/schema.json", '{"title": ')).toThrow(
      /^x\/schema\.json: is not valid JSON: .+/,
    );
  });

  it("says where the JSON breaks as (line L column C), whatever V8's message leaves out", () => {
    for (const [text, place] of [
      ['{\n  "title": "Greeting",,\n}', "(line 2 column 23)"],
      ['{\n  "title": x\n}', "(line 2 column 12)"],
      ['{\n  "title": ', "(line 2 column 12)"],
    ] as const) {
      expect(() => parseSchema("x", "x/schema.json", text)).toThrow(
        new RegExp(`^x/schema\\.json: is not valid JSON: .+ ${place.replace(/[()]/g, "\\$&")}$`),
      );
    }
  });

  it.each([
    ["[]", /must hold a JSON object, not an array/],
    ["null", /not null/],
    ['"text"', /not string/],
    ['{"title": 3}', /"title" must be a string/],
    ['{"type": "array"}', /"type" must be "object"/],
    ['{"properties": []}', /"properties" must be an object/],
    ['{"required": [1]}', /"required" must be an array of strings/],
  ])("rejects %s", (text, message) => {
    let error: unknown;
    try {
      parseSchema("x", "x/schema.json", text);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InvalidSchemaError);
    expect((error as Error).message).toMatch(message);
  });
});

describe("parseSchema: depth", () => {
  it("refuses a schema nested 200,000 levels deep as InvalidSchema, without a stack overflow", () => {
    const deep = `{"type":"object","properties":{"a":${"[".repeat(200_000)}${"]".repeat(200_000)}}}`;
    expect(() => parseSchema("deep", "deep/schema.json", deep)).toThrow(
      expect.objectContaining({
        kind: "InvalidSchema",
        message: "deep/schema.json: nests deeper than 256 levels",
      }),
    );
  });

  it("accepts a schema nested as deep as real ones get", () => {
    let property: Record<string, unknown> = { type: "string" };
    for (let i = 0; i < 50; i++) property = { type: "object", properties: { x: property } };
    const text = JSON.stringify({ type: "object", properties: { root: property } });
    expect(parseSchema("ok", "ok/schema.json", text).properties).toHaveProperty("root");
  });
});

describe("buildMetadata", () => {
  it("fills both the nested and the flat shape from a schema", () => {
    const metadata = buildMetadata(
      "card",
      {
        title: "Card",
        description: "d",
        version: "2.0.0",
        type: "object",
        properties: { a: { type: "string" } },
        required: ["a"],
      },
      "abcdef012345",
      ["image", "ui:card"],
      { preload: ["image"], stylesheets: ["card-3f2a9c0b1d4e.css"] },
    );
    expect(metadata).toEqual({
      name: "card",
      title: "Card",
      description: "d",
      version: "2.0.0",
      props: { type: "object", properties: { a: { type: "string" } }, required: ["a"] },
      properties: { a: { type: "string" } },
      required: ["a"],
      hash: "abcdef012345",
      dependencies: ["image", "ui:card"],
      preload: ["image"],
      stylesheets: ["card-3f2a9c0b1d4e.css"],
    });
  });

  it("gives minimal metadata without a schema", () => {
    expect(buildMetadata("card", undefined, "h")).toEqual({
      name: "card",
      title: "card",
      description: "",
      version: "",
      props: {},
      properties: {},
      required: [],
      hash: "h",
      dependencies: [],
      preload: [],
      stylesheets: [],
    });
  });
});

describe("SchemaReader", () => {
  it("re-reads schema.json when it changes and notices it appearing and vanishing", () => {
    const dir = writeTree({ "card/index.tsx": "export default () => null;" });
    const component = new ComponentRegistry(dir).get(cn("card"));
    if (!component) throw new Error("fixture missing");
    const reader = new SchemaReader();
    expect(reader.read(component)).toBeUndefined();
    writeTree({ "card/schema.json": '{"title": "First"}' }, dir);
    expect(reader.read(component)?.title).toBe("First");
    writeFileSync(join(dir, "card/schema.json"), '{"title": "Second!"}');
    expect(reader.read(component)?.title).toBe("Second!");
    writeFileSync(join(dir, "card/schema.json"), "{oops");
    expect(() => reader.read(component)).toThrow(/card\/schema\.json: is not valid JSON/);
  });
});
