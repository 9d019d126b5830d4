/**
 * Styles and assets through the real bundler: what a component's CSS, CSS modules and
 * imported files become (stylesheets the bundle imports, readable unique class names, asset
 * URLs relative to the bundle), and what it says about a file it cannot bundle.
 */

import { STYLESHEET_FILE } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { cn, writeTree } from "../test/fixtures.ts";
import { type BundleOutput, esbuildBundler } from "./bundler.ts";
import { ASSET_NAME } from "./componentFiles.ts";

const PROJECT = { "package.json": JSON.stringify({ name: "app", private: true }) };
/** A stand-in for an image of `size` bytes (the bundler never looks inside). */
const png = (size: number) => "P".repeat(size);

function bundle(dir: string, name: string, options = {}): Promise<BundleOutput> {
  const component = new ComponentRegistry(`${dir}/components`).get(cn(name));
  if (component === undefined) throw new Error(`fixture ${name} missing`);
  return esbuildBundler.bundle(component, options);
}

const text = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

/** The original position of the segment at (or just before) a generated position. */
function originalPosition(mappings: string, line: number, column: number) {
  const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  const state = [0, 0, 0, 0];
  let found = { source: -1, line: -1, column: -1 };
  for (const [index, text] of mappings.split(";").entries()) {
    state[0] = 0;
    for (const segment of text === "" ? [] : text.split(",")) {
      const values: number[] = [];
      let value = 0;
      let shift = 0;
      for (const char of segment) {
        const digit = BASE64.indexOf(char);
        value += (digit & 31) << shift;
        if (digit & 32) shift += 5;
        else {
          values.push(value & 1 ? -(value >>> 1) : value >>> 1);
          value = 0;
          shift = 0;
        }
      }
      values.forEach((v, i) => {
        state[i] = (state[i] ?? 0) + v;
      });
      if (index === line && (state[0] ?? 0) <= column && values.length >= 4) {
        found = { source: state[1] ?? -1, line: state[2] ?? -1, column: state[3] ?? -1 };
      }
    }
    if (index === line) return found;
  }
  return found;
}
/** The code without its inline source map. */
/** The code of a bundle: without its source map and its import table. */
const js = (output: BundleOutput) =>
  text(output.code).replace(/\/\/# svcImports=.*\n(?:\/\/# sourceMappingURL=.*\n)?$/, "");

describe("stylesheets", () => {
  const tree = {
    ...PROJECT,
    "shared/theme.css": '@import "./base.css";\n.theme { color: rgb(1, 2, 3); }\n',
    "shared/base.css": ".base { margin: 0; }\n",
    "components/card/card.css": ".card { padding: 4px; }\n",
    "components/card/index.tsx":
      'import "../../shared/theme.css";\nimport "./card.css";\nexport default function Card() { return <div className="card theme" />; }\n',
    "components/badge/index.tsx":
      'import "../../shared/theme.css";\nexport default function Badge() { return <b className="theme" />; }\n',
  };

  it("cuts the component's CSS into one stylesheet per source file, in cascade order, each imported by the bundle", async () => {
    const dir = writeTree(tree);
    const output = await bundle(dir, "card");
    const sheets = output.stylesheets ?? [];
    expect(sheets.map((s) => s.path.replace(/-[0-9a-f]{12}\.css$/, ""))).toEqual([
      "base",
      "theme",
      "card",
    ]);
    for (const sheet of sheets) expect(sheet.path).toMatch(STYLESHEET_FILE);
    expect(sheets.map((s) => text(s.bytes))).toEqual([
      // Paths relative to the source root, as in the bundle: never absolute.
      "/* ../shared/base.css */\n.base {\n  margin: 0;\n}\n",
      "/* ../shared/theme.css */\n.theme {\n  color: rgb(1, 2, 3);\n}\n",
      "/* card/card.css */\n.card {\n  padding: 4px;\n}\n",
    ]);
    // The bundle names them relative to itself, after its code (the source map keeps its lines).
    expect(js(output).endsWith(sheets.map((s) => `import "./${s.path}";\n`).join(""))).toBe(true);
    expect(text(output.code)).not.toContain("@svc-end"); // the cut marks are gone
  });

  it("gives a CSS file two components import the same name, so a page applies it once", async () => {
    const dir = writeTree(tree);
    const [card, badge] = await Promise.all([bundle(dir, "card"), bundle(dir, "badge")]);
    const theme = (output: BundleOutput) =>
      output.stylesheets?.find((s) => s.path.startsWith("theme-"))?.path;
    expect(theme(card)).toBeDefined();
    expect(theme(badge)).toBe(theme(card));
  });

  it("changes a stylesheet's name, and so the bundle, when its CSS changes", async () => {
    const before = await bundle(writeTree(tree), "card");
    const after = await bundle(
      writeTree({ ...tree, "components/card/card.css": ".card { padding: 5px; }\n" }),
      "card",
    );
    expect(after.stylesheets?.[2]?.path).not.toBe(before.stylesheets?.[2]?.path);
    expect(after.hash).not.toBe(before.hash);
    expect(after.stylesheets?.[0]).toEqual(before.stylesheets?.[0]); // the others keep theirs
  });

  it("leaves a component without CSS as it was: no stylesheets, no imports added", async () => {
    const dir = writeTree({
      ...PROJECT,
      "components/plain/index.tsx": "export default function Plain() { return <p>plain</p>; }\n",
    });
    const output = await bundle(dir, "plain");
    expect(output.stylesheets).toEqual([]);
    expect(js(output)).not.toMatch(/import "\.\//);
  });
});

describe("CSS modules", () => {
  const module = (color: string) =>
    `.title { color: ${color}; }\n.big { composes: title; font-size: 2em; }\n@keyframes spin { from { opacity: 0; } }\n.spin { animation: spin 1s; }\n:global(.keep) .title { margin: 0; }\n`;
  const user = (name: string) =>
    `import styles from "./styles.module.css";\nexport default function ${name}() { return <p className={styles.big}>{JSON.stringify(styles)}</p>; }\n`;
  const tree = {
    ...PROJECT,
    "components/card/styles.module.css": module("red"),
    "components/card/index.tsx": user("Card"),
    "components/badge/styles.module.css": module("blue"),
    "components/badge/index.tsx": user("Badge"),
  };

  it("scopes class names readably and per file: two components' styles.module.css never collide", async () => {
    const dir = writeTree(tree);
    const [card, badge] = await Promise.all([bundle(dir, "card"), bundle(dir, "badge")]);
    const names = (output: BundleOutput) => {
      const match = /title: "(styles_[0-9a-f]{8})_title"/.exec(js(output));
      if (match?.[1] === undefined) throw new Error(`no scoped title in ${js(output)}`);
      return match[1];
    };
    expect(names(card)).not.toBe(names(badge));
    const css = text(card.stylesheets?.[0]?.bytes ?? new Uint8Array());
    const scope = names(card);
    expect(css).toContain(`.${scope}_title {`);
    expect(css).toContain(`@keyframes ${scope}_spin`);
    expect(css).toContain(".keep ."); // :global() stays global
    expect(js(card)).toContain(`big: "${scope}_title ${scope}_big"`); // composes
  });

  it("keeps the readable names when minified (esbuild would shorten them to a, b, …)", async () => {
    const dir = writeTree(tree);
    const [plain, minified] = await Promise.all([
      bundle(dir, "card"),
      bundle(dir, "card", { minify: true }),
    ]);
    const scope = /(styles_[0-9a-f]{8})_title/.exec(js(plain))?.[1];
    expect(scope).toBeDefined();
    expect(js(minified)).toContain(`"${scope}_title"`);
    expect(text(minified.stylesheets?.[0]?.bytes ?? new Uint8Array())).toContain(
      `.${scope}_title{`,
    );
  });

  it("names the same class the same way wherever the project lives", async () => {
    const [first, second] = await Promise.all([
      bundle(writeTree(tree), "card"),
      bundle(writeTree(tree), "card"),
    ]);
    expect(second.hash).toBe(first.hash);
  });
});

describe("assets", () => {
  const big = png(5000);
  const tree = {
    ...PROJECT,
    "components/card/photo.png": big,
    "components/card/icon.svg":
      '<svg xmlns="http://www.w3.org/2000/svg" width="2" height="2"><rect width="2" height="2" fill="#f00"/></svg>',
    "components/card/card.css":
      ".card { background: url(./photo.png); }\n.icon { background: url(./icon.svg); }\n",
    "components/card/notes.txt": "notes\n",
    "components/card/data.json": '{ "answer": 42 }\n',
    "components/card/index.tsx":
      'import "./card.css";\nimport photo from "./photo.png";\nimport icon from "./icon.svg";\nimport notes from "./notes.txt";\nimport data from "./data.json";\nexport default function Card() { return <p>{[photo, icon, notes, data.answer].join(" ")}</p>; }\n',
  };

  it("writes an imported file as assets/<name>-<hash>.<ext> and yields its URL relative to the bundle", async () => {
    const output = await bundle(writeTree(tree), "card");
    const photo = output.assets?.find((a) => a.path.startsWith("assets/photo-"));
    expect(photo?.path.slice("assets/".length)).toMatch(ASSET_NAME);
    expect(text(photo?.bytes ?? new Uint8Array())).toBe(big);
    // Resolved at run time against the bundle's own URL (the svc runtime sets import.meta.url).
    expect(js(output)).toContain(`"./${photo?.path}"`);
    expect(js(output)).toContain("new URL(");
    expect(js(output)).toContain("import.meta.url");
    // The stylesheet's url() names the same file, relative to the stylesheet (beside the bundle).
    expect(text(output.stylesheets?.[0]?.bytes ?? new Uint8Array())).toContain(
      `url("./${photo?.path}")`,
    );
  });

  it("inlines nothing as data: (a CSP needs no data: source): even a tiny SVG is a file", async () => {
    const output = await bundle(writeTree(tree), "card");
    expect(text(output.code)).not.toContain("data:image");
    expect(text(output.stylesheets?.[0]?.bytes ?? new Uint8Array())).toMatch(
      /url\("\.\/assets\/icon-[A-Z0-9]{8}\.svg"\)/,
    );
    expect(output.assets?.map((a) => a.path.replace(/-[A-Z0-9]{8}\./, "."))).toEqual([
      "assets/icon.svg",
      "assets/notes.txt",
      "assets/photo.png",
    ]);
  });

  it("imports .json as data (as esbuild, Vite and Node do), .txt as a URL", async () => {
    const output = await bundle(writeTree(tree), "card");
    expect(js(output)).toContain("answer: 42");
    expect(js(output)).toMatch(
      /new URL\("\.\/assets\/notes-[A-Z0-9]{8}\.txt", import\.meta\.url\)/,
    );
  });

  it("keeps the source map exact after the URLs it widens, minified too", async () => {
    const source =
      'import photo from "./photo.png";\nexport default function Card() { return [photo, new Error("here").stack]; }\n';
    const dir = writeTree({ ...tree, "components/card/index.tsx": source });
    for (const minify of [false, true]) {
      const output = await bundle(dir, "card", { minify });
      const code = js(output);
      const match = /base64,([A-Za-z0-9+/=]+)\n$/.exec(text(output.code));
      const map = JSON.parse(Buffer.from(match?.[1] ?? "", "base64").toString()) as {
        mappings: string;
        sources: string[];
      };
      // Where `new Error` is in the generated code, the map must point at `new Error` in the source.
      const at = code.indexOf("new Error");
      const line = code.slice(0, at).split("\n").length - 1;
      const column = at - (code.lastIndexOf("\n", at - 1) + 1);
      const original = originalPosition(map.mappings, line, column);
      expect(map.sources[original.source]).toBe("component://card/index.tsx");
      expect(source.split("\n")[original.line]?.slice(original.column)).toMatch(/^new Error/);
    }
  });

  it("records every asset as an input, so replacing one gives a new bundle", async () => {
    const dir = writeTree(tree);
    const output = await bundle(dir, "card");
    expect(output.inputs).toEqual(
      expect.arrayContaining([
        `${dir}/components/card/photo.png`,
        `${dir}/components/card/icon.svg`,
        `${dir}/components/card/card.css`,
      ]),
    );
  });
});

describe("files svc cannot bundle", () => {
  it("fails with a BundleError naming the file and listing what is supported", async () => {
    const dir = writeTree({
      ...PROJECT,
      "components/card/notes.md": "# notes\n",
      "components/card/index.tsx":
        'import notes from "./notes.md";\nexport default function Card() { return notes; }\n',
    });
    const failure = await bundle(dir, "card").then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.name).toBe("BundleError");
    expect(failure?.message).toMatch(
      /index\.tsx:1:19: No loader is configured for "\.md" files: .*notes\.md — svc bundles .*\.css and \.module\.css .*\.png .*\.woff2 .*serve other files yourself/,
    );
    expect(failure?.message).not.toContain(dir);
  });
});
