import { describe, expect, it } from "vitest";
import { formatImportTable, readImportTable } from "./importTable.ts";

describe("import table", () => {
  // As a bundle starts: with its reserved empty line.
  const code = '\nimport { a } from "react";\nexport default a;\n';
  const record = { t: 1, ss: 1, se: 27, s: 20, e: 25, n: "react" };

  it("reads back what was written, with each static statement's clause, and gives the code without its line", () => {
    const map = "//# sourceMappingURL=data:application/json;base64,e30=\n";
    const bundle = code + formatImportTable(code, [record], [{ n: "default" }]) + map;
    expect(readImportTable(bundle)).toEqual({
      code: code + map,
      imports: [{ ...record, c: [null, null, [["a", "a", "a"]]] }],
      exports: ["default"],
    });
    expect(readImportTable(code)).toBeUndefined();
  });

  it("reads every form of clause on the server, so the page parses none", () => {
    const clauses = (statement: string) => {
      const s = statement.lastIndexOf('"', statement.length - 2) + 2;
      const r = { t: 1, ss: 1, se: statement.length + 1, s, e: statement.length, n: "x" };
      const code = `\n${statement}\n`;
      return readImportTable(code + formatImportTable(code, [r], []))?.imports[0]?.c;
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

  it("refuses a table naming a place beyond the code it describes, without a clause, or of another version", () => {
    const far = { ...record, se: code.length + 1 };
    expect(() => readImportTable(code + formatImportTable(code, [far], []))).toThrow(/malformed/);
    const noClause = `${code}//# svcImports={"v":3,"i":[[1,1,27,20,25,"react"]],"x":[]}\n`;
    expect(() => readImportTable(noClause)).toThrow(/malformed/);
    // Version 2 reserved no first line: an older build's output.
    expect(() => readImportTable(`${code}//# svcImports={"v":2,"i":[],"x":[]}\n`)).toThrow(
      /^import table version 2, not 3: built by another svc; build it again$/,
    );
  });

  it("keeps the first line for the rewrite: written only after it, refused without it", () => {
    expect(() => formatImportTable(code.slice(1), [], [])).toThrow(/first line must be empty/);
    const filled = `const x = 1;${code}${formatImportTable(code, [record], [])}`;
    expect(() => readImportTable(filled)).toThrow(/malformed/);
  });
});
