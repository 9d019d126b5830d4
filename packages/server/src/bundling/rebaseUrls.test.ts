import { describe, expect, it } from "vitest";
import { rebaseUrl, rebaseUrls } from "./rebaseUrls.ts";

describe("rebaseUrls", () => {
  it("prefixes url(x), url('x') and url(\"x\") with the partial's folder, keeping the quotes", () => {
    expect(
      rebaseUrls(
        ".a { b: url(./bg.png); c: url('img/x.svg'); d: URL( \"../up.gif\" ); }",
        "../shared",
        "scss",
      ),
    ).toBe(
      ".a { b: url(../shared/bg.png); c: url('../shared/img/x.svg'); d: URL( \"../up.gif\" ); }",
    );
    expect(rebaseUrls("a { b: url(bg.png) }", "sub", "css")).toBe("a { b: url(./sub/bg.png) }");
  });

  it("leaves absolute, data:, http(s):, fragment and computed URLs alone", () => {
    const source = [
      "a { b: url(/abs.png); }",
      "a { b: url(//cdn.example/x.png); }",
      "a { b: url(data:image/png;base64,AAAA); }",
      'a { b: url("https://example.com/x.png"); }',
      "a { b: url(#filter); }",
      "a { b: url($image); }",
      "a { b: url(#{$dir}/x.png); }",
      'a { b: url("#{$dir}/x.png"); }',
      'a { b: url("a" + $b); }',
      "a { b: url(~pkg/x.png); }",
      "a { b: url(); }",
      "a { b: my-url(./x.png) theme.url(./y.png); }",
    ].join("\n");
    expect(rebaseUrls(source, "../shared", "scss")).toBe(source);
  });

  it("leaves comments and strings that only look like url() alone", () => {
    const source = [
      "// url(./a.png) isn't used",
      "/* url(./b.png)",
      "   still a comment */",
      'a { content: "url(./c.png)"; quotes: \'url(./d.png)\'; e: "#{"x"} url(./e.png)"; }',
      "a { f: url(./f.png); }",
    ].join("\n");
    expect(rebaseUrls(source, "s", "scss")).toBe(source.replace("url(./f.png)", "url(./s/f.png)"));
  });

  it("reads // as text in plain CSS, and indented comments by their indentation", () => {
    expect(rebaseUrls("a { b: url(x.png) } // url(y.png)", "s", "css")).toBe(
      "a { b: url(./s/x.png) } // url(./s/y.png)",
    );
    const sass = "// notes\n  it's url(./a.png)\n.a\n  b: url(./b.png)\n";
    expect(rebaseUrls(sass, "s", "indented")).toBe(sass.replace("./b.png", "./s/b.png"));
  });

  it("keeps queries and fragments, and quotes a folder name an unquoted url() cannot hold", () => {
    expect(rebaseUrls("a { b: url(f.woff2?#iefix) }", "my fonts", "scss")).toBe(
      'a { b: url("./my fonts/f.woff2?#iefix") }',
    );
    expect(rebaseUrl("icons.svg#star", "..")).toBe("../icons.svg#star");
  });

  it("adds no line and changes nothing for a partial beside the stylesheet", () => {
    const source = "a {\n  b: url(./x.png);\n}\n";
    expect(rebaseUrls(source, "../shared", "scss").split("\n")).toHaveLength(4);
    expect(rebaseUrls(source, "", "scss")).toBe(source);
  });
});
