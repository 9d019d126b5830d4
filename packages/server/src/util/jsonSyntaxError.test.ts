import { describe, expect, it } from "vitest";
import { describeJsonError, jsonErrorOffset, lineColumn } from "./jsonSyntaxError.ts";

/** What `JSON.parse` says about `text`. */
function parseMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} parses`);
}

/** V8's own position, where its message has one. */
function v8Offset(message: string): number | undefined {
  const match = / at position (\d+)/.exec(message);
  return match === null ? undefined : Number(match[1]);
}

describe("jsonErrorOffset", () => {
  it.each([
    "{}",
    '{"a": [1, -2.5e3, true, false, null, "x\\n\\u00e9"], "b": {"c": {}}}',
    " [ ] ",
    '"text"',
    "0",
  ])("finds nothing wrong in %s", (text) => {
    expect(jsonErrorOffset(text)).toBeUndefined();
  });

  it.each([
    ['{"a": x}', 6],
    ['{"a": tru}', 9],
    ['{"a": [1,]}', 9],
    ['{"a": 1', 7],
    ["", 0],
    ['{"a": "x', 8],
    ['{\n  "a": 1,,\n}', 11],
    ['{"a": 1} x', 9],
    ['{"a": "b\n"}', 8],
    ['{"a": "\\q"}', 8],
  ])("finds where %j stops being JSON, as V8 counts where it says", (text, offset) => {
    expect(jsonErrorOffset(text)).toBe(offset);
    const v8 = v8Offset(parseMessage(text));
    if (v8 !== undefined) expect(offset).toBe(v8);
  });

  it("scans any depth without recursion", () => {
    expect(jsonErrorOffset(`${"[".repeat(200_000)}${"]".repeat(200_000)}`)).toBeUndefined();
  });
});

describe("describeJsonError", () => {
  it("keeps V8's message when it names the line and column", () => {
    const text = '{\n  "a": 1,,\n}';
    expect(describeJsonError(text, parseMessage(text))).toBe(
      "Expected double-quoted property name in JSON at position 11 (line 2 column 10)",
    );
  });

  it("adds the line and column where V8 leaves them out, without quoting the text", () => {
    const text = '{\n  "title": "Greeting",\n  "a": x\n}';
    expect(describeJsonError(text, parseMessage(text))).toBe(
      "Unexpected token 'x' in JSON at position 32 (line 3 column 8)",
    );
    const cut = '{\n  "title": ';
    expect(describeJsonError(cut, parseMessage(cut))).toBe(
      "Unexpected end of JSON input in JSON at position 13 (line 2 column 12)",
    );
  });

  it("counts lines and columns from 1", () => {
    expect(lineColumn("ab\ncd", 0)).toEqual({ line: 1, column: 1 });
    expect(lineColumn("ab\ncd", 4)).toEqual({ line: 2, column: 2 });
  });
});
