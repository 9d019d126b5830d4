import { describe, expect, it } from "vitest";
import { formatImportTable, type ImportClause, readImportTable } from "./importTable.ts";

describe("import table", () => {
  // As a bundle starts: with its reserved empty line.
  const code = '\nimport { a } from "react";\nexport default a;\n';
  const record = { t: 1, ss: 1, se: 27, s: 20, e: 25, n: "react" };
  // Its clause, as the server reads it (`importClauses.ts`).
  const c: ImportClause = [null, null, [["a", "a", "a"]]];

  it("reads back what was written, with each static statement's clause, and gives the code without its line", () => {
    const map = "//# sourceMappingURL=data:application/json;base64,e30=\n";
    const bundle = code + formatImportTable(code, [{ ...record, c }], [{ n: "default" }]) + map;
    expect(readImportTable(bundle)).toEqual({
      code: code + map,
      imports: [{ ...record, c }],
      exports: ["default"],
    });
    expect(readImportTable(code)).toBeUndefined();
  });

  it("refuses a table naming a place beyond the code it describes, without a clause, or of another version", () => {
    const far = { ...record, c, se: code.length + 1 };
    expect(() => readImportTable(code + formatImportTable(code, [far], []))).toThrow(/malformed/);
    const noClause = `${code}//# svcImports={"v":3,"i":[[1,1,27,20,25,"react"]],"x":[]}\n`;
    expect(() => readImportTable(noClause)).toThrow(/malformed/);
    // Version 2 reserved no first line: an older build's output.
    expect(() => readImportTable(`${code}//# svcImports={"v":2,"i":[],"x":[]}\n`)).toThrow(
      /^import table version 2, not 3: built by another svc; build it again$/,
    );
  });

  it("refuses to write a static import without its clause", () => {
    expect(() => formatImportTable(code, [record], [])).toThrow(/needs its clause/);
  });

  it("keeps the first line for the rewrite: written only after it, refused without it", () => {
    expect(() => formatImportTable(code.slice(1), [], [])).toThrow(/first line must be empty/);
    const filled = `const x = 1;${code}${formatImportTable(code, [{ ...record, c }], [])}`;
    expect(() => readImportTable(filled)).toThrow(/malformed/);
  });
});
