import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { escapeHtml } from "./html.ts";

const ESCAPES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

describe("escapeHtml", () => {
  it("escapes &, <, >, \" and ' once each, whatever surrounds them", () => {
    const text = fc
      .array(fc.oneof(fc.constantFrom(..."&<>\"'a;#"), fc.string({ maxLength: 2 })))
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(text, (given) => {
        expect(escapeHtml(given)).toBe(given.replace(/[&<>"']/g, (c) => ESCAPES[c] as string));
      }),
      { numRuns: 2000 },
    );
  });

  it("escapes JSON for an attribute value", () => {
    expect(escapeHtml(JSON.stringify({ a: "x&y<'z'>" }))).toBe(
      "{&quot;a&quot;:&quot;x&amp;y&lt;&#39;z&#39;&gt;&quot;}",
    );
  });
});
