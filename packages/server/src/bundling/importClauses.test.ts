import { readImportTable } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { importTableLine } from "./importClauses.ts";

describe("importClauses", () => {
  it("reads every form of clause on the server, so the page parses none", () => {
    const clauses = (statement: string) => {
      const s = statement.lastIndexOf('"', statement.length - 2) + 2;
      const r = { t: 1, ss: 1, se: statement.length + 1, s, e: statement.length, n: "x" };
      const code = `\n${statement}\n`;
      return readImportTable(code + importTableLine(code, [r], []))?.imports[0]?.c;
    };
    expect(clauses('import d, * as ns from "x"')).toEqual(["d", "ns", []]);
    expect(clauses('import d, { a as b, "c-d" as e, default as f } from "x"')).toEqual([
      "d",
      null,
      [
        ["a", "a", "b"],
        ["c-d", '"c-d"', "e"],
        ["default", "default", "f"],
      ],
    ]);
    expect(clauses('import /* { } */ { a } from "x"')).toEqual([null, null, [["a", "a", "a"]]]);
    expect(clauses('import "x"')).toEqual([null, null, []]);
    expect(clauses('export * from "x"')).toBe(0);
    expect(clauses('export * as ns from "x"')).toEqual(["ns"]);
    expect(clauses('export { a as b, "\\u0063" as c } from "x"')).toEqual({
      n: [
        ["a", "a", "b"],
        [null, '"\\u0063"', "c"],
      ],
    });
    // A clause the grammar cannot read fails when the table is written (at build time).
    expect(() => clauses('import { a b } from "x"')).toThrow(/cannot read the import statement/);
  });
});
