import fc from "fast-check";
import { Window } from "happy-dom";
import { describe, expect, it } from "vitest";
import { escapeHtml, escapeSingleQuoted } from "./html.ts";

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

describe("escapeSingleQuoted", () => {
  const text = fc
    .array(fc.oneof(fc.constantFrom(..."&<>\"'a;#="), fc.string({ maxLength: 2 })))
    .map((parts) => parts.join(""));

  it("escapes &, <, > and ' once each, and leaves \" as it is", () => {
    fc.assert(
      fc.property(text, (given) => {
        expect(escapeSingleQuoted(given)).toBe(
          given.replace(/[&<>']/g, (c) => ESCAPES[c] as string),
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("gives back, through an HTML parser, exactly the text it escaped, in its one attribute", () => {
    const { document } = new Window();
    fc.assert(
      fc.property(text, (given) => {
        const box = document.createElement("div");
        box.innerHTML = `<div a='${escapeSingleQuoted(given)}' b="x"></div>`;
        const element = box.firstElementChild;
        expect(element?.getAttributeNames()).toEqual(["a", "b"]);
        expect(element?.getAttribute("a")).toBe(given);
      }),
      { numRuns: 500 },
    );
  });

  it("leaves JSON without &, <, > or ' as it is", () => {
    const json = JSON.stringify({ name: "Mug", price: 14.5, tags: ["a", "b"] });
    expect(escapeSingleQuoted(json)).toBe(json);
  });
});
