import { describe, expect, it } from "vitest";
import { validateProps } from "./validateProps.ts";

const schema = {
  type: "object",
  properties: {
    name: { type: "string" },
    count: { type: "number", minimum: 0 },
    mode: { enum: ["list", "detail"] },
    tags: { type: "array", items: { type: "string" } },
    "data-x": { type: "boolean" },
  },
  required: ["name", "count"],
};

describe("validateProps", () => {
  it("accepts matching props and ignores undefined values and ref", () => {
    expect(validateProps(schema, { name: "a", count: 1, mode: undefined, ref: {} })).toEqual([]);
  });

  it("lists each failing prop once, with the most specific message", () => {
    const issues = validateProps(schema, {
      count: "3",
      mode: "grid",
      tags: ["ok", 7],
      "data-x": "yes",
    });
    expect(issues.map((issue) => [issue.prop, issue.keyword])).toEqual([
      ["name", "required"],
      ["count", "type"],
      ["mode", "enum"],
      ["tags", "type"],
      ["data-x", "type"],
    ]);
    expect(issues.find((issue) => issue.prop === "tags")?.message).toMatch(/^1: .*string/);
    expect(issues.find((issue) => issue.prop === "count")?.message).toMatch(/number/);
  });

  it("takes a prop the schema does not list unless it says additionalProperties: false, as svc types declares", () => {
    expect(validateProps(schema, { name: "a", count: 1, stpe: 2 })).toEqual([]);
    const closed = { ...schema, additionalProperties: false };
    expect(validateProps(closed, { name: "a", count: 1 })).toEqual([]);
    const issues = validateProps(closed, { name: "a", count: 1, stpe: 2 });
    expect(issues.map((issue) => issue.prop)).toEqual(["stpe"]);
  });

  it("constrains nothing without properties or required", () => {
    expect(validateProps({}, { anything: 1 })).toEqual([]);
    expect(validateProps({ type: "object", properties: {} }, { anything: 1 })).toEqual([]);
  });
});
