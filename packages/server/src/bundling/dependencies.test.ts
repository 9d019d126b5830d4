import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeTree } from "../test/fixtures.ts";
import { detectDependencies, findComponentReferences, isUserSource } from "./dependencies.ts";

const refs = (source: string, file = "x.tsx") => findComponentReferences(source, file);

describe("findComponentReferences", () => {
  it("finds literal names given to useComponent, also through a namespace or an alias", async () => {
    const source = `
      import * as svc from "@svc/react";
      import { useComponent, useComponent as load } from "@svc/react";
      export default function Carousel() {
        const Image = useComponent("image");
        const Caption = load('caption');
        const Card = svc.useComponent(\`ui.card\`);
        const Prefixed = useComponent<{ a: string }>("app:header");
        return null;
      }`;
    expect(await refs(source)).toEqual(["app:header", "caption", "image", "ui.card"]);
  });

  it("finds <ServerComponent name> in JSX and its jsx() and createElement forms", async () => {
    const jsx = `
      import { ServerComponent as SC } from "@svc/react";
      export const A = () => <>
        <ServerComponent name="image" props={{ src: "a.png" }} />
        <SC name={"counter"} />
        <svc.ServerComponent name={\`greeting\`}></svc.ServerComponent>
      </>;`;
    expect(await refs(jsx)).toEqual(["counter", "greeting", "image"]);
    const compiled = `
      import { jsx as _jsx } from "react/jsx-runtime";
      import React from "react";
      export const A = () => [
        jsx(ServerComponent, { name: "image" }),
        _jsx(ServerComponent, { "name": "counter", props: {} }),
        React.createElement(ServerComponent, { name: "greeting" }),
        (0, jsxs)(ServerComponent, { name: 'carousel' }),
      ];`;
    expect(await refs(compiled, "x.js")).toEqual(["carousel", "counter", "greeting", "image"]);
  });

  it("leaves out names computed at run time", async () => {
    const source = `
      export function Slide({ kind, name }: { kind: string; name: string }) {
        const A = useComponent(name);
        const B = useComponent(\`slide.\${kind}\`);
        const C = useComponent("slide." + kind);
        const D = useComponent(kind === "a" ? "a" : "b");
        return <ServerComponent name={name} />;
      }`;
    expect(await refs(source)).toEqual([]);
  });

  it("does not count names in comments, other strings or other calls", async () => {
    const source = `
      // useComponent("commented")
      /* <ServerComponent name="block" /> */
      const text = 'useComponent("quoted")';
      const template = \`<ServerComponent name="templated" />\`;
      const other = useSomething("other");
      const element = <Other name="other2" />;
      const p = <p>Don't useComponent("jsx text") here</p>;
      jsx(Other, { name: "other3" });
      export default () => useComponent("real");`;
    expect(await refs(source)).toEqual(["real"]);
  });

  it("leaves out strings that are no valid component name", async () => {
    const source = `useComponent("not a name"); useComponent("../x"); useComponent("ok_1");`;
    expect(await refs(source, "x.ts")).toEqual(["ok_1"]);
  });

  it("reads TypeScript without JSX (.ts, where <T>x is a cast) and plain JavaScript", async () => {
    expect(await refs(`const a = <string>useComponent("cast") as unknown;`, "x.ts")).toEqual([
      "cast",
    ]);
    expect(await refs(`module.exports = () => useComponent("cjs");`, "x.cjs")).toEqual(["cjs"]);
  });

  it("finds nothing in a file it cannot parse, without throwing", async () => {
    expect(await refs(`useComponent("x"`, "x.ts")).toEqual([]);
  });
});

describe("isUserSource", () => {
  it("is true for scripts outside node_modules", () => {
    expect(isUserSource(join("/app", "components", "a", "index.tsx"))).toBe(true);
    expect(isUserSource(join("/app", "node_modules", "lib", "index.js"))).toBe(false);
    expect(isUserSource(join("/app", "components", "a", "data.json"))).toBe(false);
    expect(isUserSource(join("/app", "components", "a", "style.css"))).toBe(false);
  });
});

describe("detectDependencies", () => {
  it("collects every user source's names, sorted, without the bundle's own name", async () => {
    const dir = writeTree({
      "a/index.tsx": 'import { B } from "./nested/B";\nexport default () => useComponent("a");\n',
      "a/nested/B.tsx": 'export const B = () => <ServerComponent name="c" />;\n',
      "shared/lib.ts": 'export const x = useComponent("b");\n',
      "node_modules/lib/index.js": 'useComponent("from_package");\n',
    });
    const inputs = [
      join(dir, "a/index.tsx"),
      join(dir, "a/nested/B.tsx"),
      join(dir, "shared/lib.ts"),
      join(dir, "node_modules/lib/index.js"),
      join(dir, "a/gone.ts"),
    ];
    expect(await detectDependencies(inputs, "a")).toEqual(["b", "c"]);
  });

  it("reads no source when the bundle names neither useComponent nor ServerComponent", async () => {
    const dir = writeTree({
      // A call esbuild dropped as dead code: the bundle does not ask for "b".
      "a/index.tsx": 'const unused = () => useComponent("b");\nexport default () => <p />;\n',
    });
    const inputs = [join(dir, "a/index.tsx")];
    const bundle = (code: string) => new TextEncoder().encode(code);
    expect(
      await detectDependencies(inputs, "a", bundle('export default () => jsx("p", {});')),
    ).toEqual([]);
    // Named in the bundle (an import keeps its name, minified or not): the sources are read.
    const minified = 'import{useComponent as e}from"@svc/react";export default()=>e("b");';
    expect(await detectDependencies(inputs, "a", bundle(minified))).toEqual(["b"]);
    const namespace = 'import*as s from"@svc/react";export default()=>jsx(s.ServerComponent,{});';
    expect(await detectDependencies(inputs, "a", bundle(namespace))).toEqual(["b"]);
  });
});
