import * as esbuild from "esbuild";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { BundleLoadError, ExportNotFoundError, isSvcError, ModuleNotFoundError } from "./errors.ts";
import type { ModuleRegistry } from "./moduleRegistry.ts";
import {
  type RewriteImportsOptions,
  rewriteImports as rewriteBundle,
  rewriteModule as rewriteBundleModule,
} from "./rewriteImports.ts";
import { withImportTable } from "./test/importTable.ts";

// The code of these tests is given its import table, as the server gives every bundle.
const rewriteImports = (code: string, options: RewriteImportsOptions) =>
  rewriteBundle(withImportTable(code), options);
const rewriteModule = (code: string, options: RewriteImportsOptions) =>
  rewriteBundleModule(withImportTable(code), options);

const EXTERNALS = [
  "react",
  "react/jsx-runtime",
  "react-dom",
  "react-dom/client",
  "@svc/react",
  "goober",
];

/** Builds virtual files the way the server does (ESM, es2020, automatic JSX, inline map). */
async function bundle(
  files: Record<string, string>,
  options: { minify: boolean; external?: string[] },
): Promise<string> {
  const result = await esbuild.build({
    entryPoints: ["virtual:index.tsx"],
    bundle: true,
    write: false,
    format: "esm",
    target: "es2020",
    jsx: "automatic",
    minify: options.minify,
    sourcemap: "inline",
    external: options.external ?? EXTERNALS,
    logLevel: "silent",
    plugins: [
      {
        name: "virtual",
        setup(build) {
          build.onResolve({ filter: /^(virtual:|\.\/)/ }, (args) => ({
            path: args.path.replace(/^(virtual:|\.\/)/, ""),
            namespace: "virtual",
          }));
          build.onLoad({ filter: /.*/, namespace: "virtual" }, (args) => {
            const path = /\.tsx?$/.test(args.path) ? args.path : `${args.path}.tsx`;
            const contents = files[path];
            if (contents === undefined) return { errors: [{ text: `no file ${path}` }] };
            return { contents, loader: "tsx" };
          });
        },
      },
    ],
  });
  const file = result.outputFiles[0];
  if (file === undefined) throw new Error("esbuild produced no output");
  return file.text;
}

const fn = (name: string) => Object.assign(() => name, { displayName: name });
const reactDefault = { isReactDefault: true };
const modules = {
  react: { default: reactDefault, useState: fn("useState"), useEffect: fn("useEffect") },
  "react/jsx-runtime": { jsx: fn("jsx"), jsxs: fn("jsxs"), Fragment: fn("Fragment") },
  "react-dom": { createPortal: fn("createPortal") },
  "react-dom/client": { createRoot: fn("createRoot"), hydrateRoot: fn("hydrateRoot") },
  "@svc/react": { useComponent: fn("useComponent") },
  goober: { styled: fn("styled"), setup: fn("setup") },
} satisfies ModuleRegistry;

/** Runs rewritten code as a real ES module (Node imports `data:` URLs). */
async function evaluate(code: string): Promise<Record<string, unknown>> {
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(code)));
  return import(`data:text/javascript;base64,${base64}`);
}

// Every statement form the rewriter must handle, as a component author would write them.
const EVERY_FORM = {
  "index.tsx": `
import React, { useState as useS, useEffect } from "react";
import * as ReactDOM from "react-dom";
import "goober";
import { styled } from "goober";
import { helper$ } from "./helper";
export * from "react-dom/client";
export { useComponent as $useComponent } from "@svc/react";
export * as jsxRuntime from "react/jsx-runtime";

const text = "import x from 'react'; export * from 'goober'";
const template = \`import w from "react"\`;

export default function Counter$($props: { start: number }) {
  const [$count, set$count] = useS($props.start);
  useEffect(() => {}, []);
  return <button onClick={() => set$count($count + 1)}>{helper$($count)}</button>;
}

export async function lazyReact() {
  return import("react");
}

export const seen = { React, useS, useEffect, ReactDOM, styled, text, template };
`,
  "helper.tsx": `export const helper$ = (n: number) => <>{n}</>;`,
};

describe("rewriteImports", () => {
  let saved: ModuleRegistry | undefined;
  beforeEach(() => {
    saved = globalThis.__MODULES__;
    globalThis.__MODULES__ = modules;
  });
  afterEach(() => {
    globalThis.__MODULES__ = saved;
  });

  for (const minify of [false, true]) {
    describe(minify ? "on minified esbuild output" : "on esbuild output", () => {
      it("rewrites every statement form into reads from the registry", async () => {
        const code = await bundle(EVERY_FORM, { minify });
        const rewritten = rewriteImports(code, { component: "every_form", modules });
        // No static import or export-from statement survives.
        const { parse } = await import("es-module-lexer/js");
        const [imports] = parse(rewritten);
        expect(imports.filter((i) => i.type === "static" || i.type === "reexport-star")).toEqual(
          [],
        );

        const module = await evaluate(rewritten);
        const seen = module.seen as Record<string, unknown>;
        expect(seen.React).toBe(reactDefault); // default import
        expect(seen.useS).toBe(modules.react.useState); // named, aliased
        expect(seen.useEffect).toBe(modules.react.useEffect); // named
        expect(seen.ReactDOM).toBe(modules["react-dom"]); // namespace
        expect(seen.styled).toBe(modules.goober.styled); // after a side-effect import
        expect(module.createRoot).toBe(modules["react-dom/client"].createRoot); // export *
        expect(module.hydrateRoot).toBe(modules["react-dom/client"].hydrateRoot);
        expect(module.$useComponent).toBe(modules["@svc/react"].useComponent); // export { as }
        expect(module.jsxRuntime).toBe(modules["react/jsx-runtime"]); // export * as
        expect(typeof module.default).toBe("function");
        // Dynamic import of a registry module gives the shared instance.
        expect(await (module.lazyReact as () => Promise<unknown>)()).toBe(modules.react);
      });

      it("leaves imports inside strings and templates alone", async () => {
        const code = await bundle(EVERY_FORM, { minify });
        const rewritten = rewriteImports(code, { component: "every_form", modules });
        const seen = (await evaluate(rewritten)).seen as Record<string, unknown>;
        expect(seen.text).toBe("import x from 'react'; export * from 'goober'");
        expect(seen.template).toBe('import w from "react"');
      });

      it("keeps every other character at its line and column, so the map holds as the server wrote it", async () => {
        const code = await bundle(EVERY_FORM, { minify });
        const tabled = withImportTable(code);
        const rewritten = rewriteBundle(tabled, { component: "every_form", modules });
        const original = splitMap(tabled.replace(/\n\/\/# svcImports=.*\n/, "\n"));
        const result = splitMap(rewritten);

        // The map comment is the one the server wrote, byte for byte: never decoded.
        expect(rewritten.slice(rewritten.lastIndexOf("\n//# sourceMappingURL="))).toBe(
          tabled.slice(tabled.lastIndexOf("\n//# sourceMappingURL=")),
        );
        expect(result.map.mappings).toBe(`;${splitMap(code).map.mappings}`);

        // The declarations fill the reserved first line; every line below stays where it was.
        expect(original.code.split("\n")[0]).toBe("");
        expect(result.code.split("\n")[0]).toMatch(/^const __svc\$0 = globalThis\.__MODULES__/);
        const before = original.code.split("\n").slice(1);
        const after = result.code.split("\n").slice(1);
        expect(after.length).toBeGreaterThanOrEqual(before.length);
        before.forEach((line, index) => {
          // The one other edit: a dynamic `import(` becomes a helper call of the same length.
          const rewrittenLine = (after[index] ?? "").replace(/__svc[I-Z]\(/g, "import(");
          expect(rewrittenLine.length).toBe(line.length);
          // Outside blanked statements the characters are identical.
          for (let column = 0; column < line.length; column++) {
            if (rewrittenLine[column] !== line[column]) {
              expect(rewrittenLine[column]).toMatch(/[ ;]/);
            }
          }
        });
        // The function body did not move: the same text sits at the same place.
        const needle = minify ? "onClick" : "set$count($count + 1)";
        const line = before.findIndex((l) => l.includes(needle));
        expect(after[line]?.indexOf(needle)).toBe(before[line]?.indexOf(needle));
      });

      it("keeps the source map comment last, after a component:// sourceURL", async () => {
        const code = await bundle(EVERY_FORM, { minify });
        const lines = rewriteImports(code, { component: "every_form", modules })
          .trimEnd()
          .split("\n");
        expect(lines.at(-1)).toMatch(/^\/\/# sourceMappingURL=data:application\/json;/);
        expect(lines.at(-2)).toBe("//# sourceURL=component://every_form/bundle.js");
      });

      it("names the module and the component when the registry lacks a module", async () => {
        const code = await bundle(
          { "index.tsx": `import { chunk } from "lodash";\nexport default () => chunk;` },
          { minify, external: [...EXTERNALS, "lodash"] },
        );
        let caught: unknown;
        try {
          rewriteImports(code, { component: "ui.table", modules });
        } catch (error) {
          caught = error;
        }
        expect(caught).toBeInstanceOf(ModuleNotFoundError);
        expect(isSvcError(caught)).toBe(true);
        expect((caught as ModuleNotFoundError).module).toBe("lodash");
        expect((caught as Error).message).toContain('"lodash"');
        expect((caught as Error).message).toContain('"ui.table"');
      });

      it("says what to install when a module the server sends on demand did not come", async () => {
        const code = await bundle(
          {
            "index.tsx": `import { useComponent } from "@svc/react";\nexport default () => useComponent;`,
          },
          { minify },
        );
        const withoutIt = Object.fromEntries(
          Object.entries(modules).filter(([specifier]) => specifier !== "@svc/react"),
        );
        expect(() => rewriteImports(code, { component: "gallery", modules: withoutIt })).toThrow(
          /^Component "gallery" imports "@svc\/react", which svc could not provide: install it in the app that runs @svc\/server \(npm install @svc\/react @tanstack\/react-query\), then restart the server or run svc build again\.$/,
        );
      });

      it("names the export when a registry module lacks an imported name", async () => {
        const code = await bundle(
          {
            "index.tsx": `import { useNothing } from "react";\nexport default () => useNothing();`,
          },
          { minify },
        );
        expect(() => rewriteImports(code, { component: "x", modules })).toThrow(
          ExportNotFoundError,
        );
        expect(() => rewriteImports(code, { component: "x", modules })).toThrow(/useNothing/);
      });
    });
  }

  it("handles forms esbuild does not emit: comments, line breaks, string names, default as", async () => {
    const code = [
      `// import a from "nope"`,
      `/* import b from "nope" */ import /* c */ { /* d */ useState as s, // e`,
      `  "useEffect" as e, default as R } from "react" /* f */;`,
      `import R2, * as ns from "react";`,
      `import {} from "goober";`,
      `export { "useState" as "use-state", default as reactDefault } from "react";`,
      "export const all = { s, e, R, R2, ns };",
      "",
    ].join("\n");
    const rewritten = rewriteImports(code, { component: "hand", modules, sourceURL: false });
    expect(rewritten).toContain(`// import a from "nope"`);
    expect(rewritten).toContain(`/* import b from "nope" */`);
    expect(rewritten.split("\n")).toHaveLength(code.split("\n").length + 1);
    const module = await evaluate(rewritten);
    expect(module.all).toEqual({
      s: modules.react.useState,
      e: modules.react.useEffect,
      R: reactDefault,
      R2: reactDefault,
      ns: modules.react,
    });
    expect(module["use-state"]).toBe(modules.react.useState);
    expect(module.reactDefault).toBe(reactDefault);
  });

  it("gives export * the ES semantics: no default, explicit exports win, ambiguous names dropped", async () => {
    const registry = { ...modules, a: { x: 1, y: 2, default: 3 }, b: { y: 4, z: 5 } };
    globalThis.__MODULES__ = registry;
    const code = 'export * from "a";\nexport * from "b";\nexport const z = "own";\n';
    const module = await evaluate(rewriteImports(code, { component: "s", modules: registry }));
    expect({ ...module }).toEqual({ x: 1, z: "own" });
  });

  it("uses helper names the bundle does not already use", async () => {
    const code =
      'import { useState } from "react";\nconst __svc$0 = 1, __svcI = 2;\nexport const r = [useState, __svc$0, __svcI, await import("react")];\n';
    const rewritten = rewriteImports(code, { component: "n", modules });
    const module = await evaluate(rewritten);
    expect(module.r).toEqual([modules.react.useState, 1, 2, modules.react]);
  });

  it("reads where imports stand from the bundle's import table, and cuts the table out", async () => {
    const code = 'import { useState } from "react";\nexport const r = [useState];\n';
    const tabled = withImportTable(code);
    expect(tabled).toMatch(/\n\/\/# svcImports=\{.*\}\n$/);
    const rewritten = rewriteBundle(tabled, { component: "t", modules, sourceURL: false });
    expect(rewritten).not.toContain("svcImports");
    expect((await evaluate(rewritten)).r).toEqual([modules.react.useState]);
    // The table, not a lexer, decides: an import the table does not name is left alone.
    const blind = `\n${code}//# svcImports={"v":3,"i":[],"x":["r"]}\n`;
    expect(rewriteBundle(blind, { component: "t", modules, sourceURL: false })).toContain(
      'import { useState } from "react"',
    );
  });

  it("refuses a bundle without an import table, or with one that does not fit its code", () => {
    const code = 'import { useState } from "react";\nexport const r = [useState];\n';
    expect(() => rewriteBundle(code, { component: "q", modules })).toThrow(BundleLoadError);
    expect(() => rewriteBundle(code, { component: "q", modules })).toThrow(/no import table/);
    // The code changed after the table was written (a line added at the top).
    const shifted = withImportTable(code).replace(/^\n/, "\nconst pad = 1;\n");
    expect(() => rewriteBundle(shifted, { component: "q", modules })).toThrow(/does not match/);
    // Its reserved first line filled: the declarations would move every line.
    const filled = `const pad = 1;${withImportTable(code)}`;
    expect(() => rewriteBundle(filled, { component: "q", modules })).toThrow(/malformed/);
    const garbled = `\n${code}//# svcImports={"v":3,"i":[[1,"x"]],"x":[]}\n`;
    expect(() => rewriteBundle(garbled, { component: "q", modules })).toThrow(
      /unreadable import table/,
    );
  });

  it("leaves absolute URL imports to the browser", () => {
    const code = 'import "https://cdn.example/x.js";\nexport {};\n';
    const rewritten = rewriteImports(code, { component: "u", modules, sourceURL: false });
    expect(rewritten).toContain('import "https://cdn.example/x.js"');
  });
});

interface SourceMapJson {
  mappings: string;
  sources: string[];
  sourcesContent?: string[];
}

function splitMap(code: string): { code: string; map: SourceMapJson } {
  const match =
    /\n\/\/# sourceMappingURL=data:application\/json(?:;charset=[\w-]+)?;base64,(\S+)\s*$/.exec(
      code,
    );
  if (match === null) throw new Error("no inline source map");
  const binary = atob(match[1] ?? "");
  const json = new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
  let body = code.slice(0, match.index);
  body = body.replace(/\n\/\/# sourceURL=\S+$/, "");
  return { code: body, map: JSON.parse(json) as SourceMapJson };
}

describe("rewriteModule: stylesheets and import.meta", () => {
  const modules = {} as ModuleRegistry;
  // As svc writes a bundle: its code, then the imports of its stylesheets.
  const code = [
    "const size = 1;",
    `const logo = new URL("./assets/logo-24WHYHIF.png", import.meta.url).href;`,
    "export default () => [size, logo];",
    `import "./theme-3f2a9c0b1d4e.css";`,
    `import "./card.module-0123456789ab.css";`,
    "",
  ].join("\n");

  it("lists the stylesheets the bundle imports, in order, and removes their imports in place", () => {
    const rewritten = rewriteModule(code, { component: "card", modules, sourceURL: false });
    expect(rewritten.stylesheets).toEqual([
      "./theme-3f2a9c0b1d4e.css",
      "./card.module-0123456789ab.css",
    ]);
    const lines = rewritten.code.split("\n").slice(1); // the prelude is the one line added
    expect(lines[3]).toMatch(/^;\s+;?$/);
    expect(lines[3]).toHaveLength(code.split("\n")[3]?.length ?? -1);
    expect(lines[1]).toBe(code.split("\n")[1]); // without a URL, import.meta stays
  });

  it("gives import.meta.url the bundle's URL, keeping every column", async () => {
    const url = "https://cdn.example/svc/bundles/card.0123456789ab.js";
    const rewritten = rewriteModule(code, { component: "card", modules, url, sourceURL: false });
    const line = rewritten.code.split("\n")[2] ?? "";
    expect(line).toHaveLength(code.split("\n")[1]?.length ?? -1);
    expect(line).not.toContain("import.meta");
    const module = await evaluate(rewritten.code);
    expect((module.default as () => unknown[])()[1]).toBe(
      "https://cdn.example/svc/bundles/assets/logo-24WHYHIF.png",
    );
  });

  it("still refuses other relative imports, and a stylesheet imported with bindings", () => {
    for (const statement of [`import "./helper.js";`, `import styles from "./x.css";`]) {
      expect(() => rewriteModule(statement, { component: "card", modules })).toThrow(
        ModuleNotFoundError,
      );
    }
  });
});
