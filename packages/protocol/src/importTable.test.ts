import { describe, expect, it } from "vitest";
import { formatImportTable, readImportTable } from "./importTable.ts";

describe("import table", () => {
  const code = 'import { a } from "react";\nexport default a;\n';
  const record = { t: 1, ss: 0, se: 26, s: 19, e: 24, n: "react" };

  it("reads back what was written, and gives the code without its line", () => {
    const map = "//# sourceMappingURL=data:application/json;base64,e30=\n";
    const bundle = code + formatImportTable([record], [{ n: "default" }]) + map;
    expect(readImportTable(bundle)).toEqual({
      code: code + map,
      imports: [record],
      exports: ["default"],
    });
    expect(readImportTable(code)).toBeUndefined();
  });

  it("refuses a table naming a place beyond the code it describes, or of another version", () => {
    const far = { ...record, se: code.length + 1 };
    expect(() => readImportTable(code + formatImportTable([far], []))).toThrow(/malformed/);
    expect(() => readImportTable(`${code}//# svcImports={"v":2,"i":[],"x":[]}\n`)).toThrow(
      /version 2/,
    );
  });
});
