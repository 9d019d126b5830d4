import { describe, expect, it } from "vitest";
import { stylesheetImports, withoutStylesheetImports } from "./stylesheetImports.ts";

const bytes = (text: string) => new Uint8Array(Buffer.from(text));
const text = (code: Uint8Array) => Buffer.from(code).toString("utf8");

describe("withoutStylesheetImports", () => {
  const paths = ["theme-000000000000.css", "card-3f2a9c0b1d4e.css"];
  const code = 'const a = "x";\nexport default a;\n';
  const map = "//# sourceMappingURL=data:application/json;base64,e30=\n";

  it("takes out the imports finishOutput appends, before the source map or at the end", () => {
    const imports = stylesheetImports(paths.map((path) => `./${path}`));
    expect(imports).toBe('import "./theme-000000000000.css";\nimport "./card-3f2a9c0b1d4e.css";\n');
    expect(text(withoutStylesheetImports(bytes(code + imports + map), paths))).toBe(code + map);
    expect(text(withoutStylesheetImports(bytes(code + imports), paths))).toBe(code);
  });

  it("takes the import table out with them: it names the imports taken out", () => {
    const imports = stylesheetImports(paths.map((path) => `./${path}`));
    const table = '//# svcImports={"v":1,"i":[],"x":["default"]}\n';
    expect(text(withoutStylesheetImports(bytes(code + imports + table + map), paths))).toBe(
      code + map,
    );
    expect(text(withoutStylesheetImports(bytes(code + imports + table), paths))).toBe(code);
  });

  it("returns the very bytes when there is nothing to take out", () => {
    const plain = bytes(code + map);
    expect(withoutStylesheetImports(plain, [])).toBe(plain);
    // Other imports, or the same text followed by more code, are not the appended block.
    const other = bytes(`${code}import "./other-000000000000.css";\n`);
    expect(withoutStylesheetImports(other, paths)).toBe(other);
    const inside = bytes(`${code}${stylesheetImports(paths.map((p) => `./${p}`))}f();\n`);
    expect(withoutStylesheetImports(inside, paths)).toBe(inside);
  });
});
