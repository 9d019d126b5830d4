import { describe, expect, it } from "vitest";
import { absoluteUrls } from "./stylesheets.ts";

describe("absoluteUrls", () => {
  const base = "https://cdn.example/svc/bundles/card-3f2a9c0b1d4e.css";

  it("resolves the relative url()s of a stylesheet against its own URL", () => {
    expect(
      absoluteUrls(
        '.a{background:url("./assets/a-AAAAAAAA.png")}.b{background:url(./assets/b-BBBBBBBB.png)}' +
          "@font-face{src:url('../fonts/f.woff2')}",
        base,
      ),
    ).toBe(
      '.a{background:url("https://cdn.example/svc/bundles/assets/a-AAAAAAAA.png")}' +
        ".b{background:url(https://cdn.example/svc/bundles/assets/b-BBBBBBBB.png)}" +
        "@font-face{src:url('https://cdn.example/svc/fonts/f.woff2')}",
    );
  });

  it("leaves absolute, data: and fragment URLs alone", () => {
    const css =
      '.a{background:url("data:image/svg+xml,<svg/>")}.b{mask:url(#m)}.c{background:url(https://x.example/a.png)}.d{background:url(/abs.png)}';
    expect(absoluteUrls(css, base)).toBe(css);
  });
});
