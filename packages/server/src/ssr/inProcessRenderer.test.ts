import type { ComponentMetadata, ComponentName } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { InProcessRenderer } from "./inProcessRenderer.ts";
import type { IslandSources, Rendered, RenderJob, ServerBundle } from "./renderEngine.ts";

/** Server bundles written by hand (CommonJS, as svc makes them for Node). */
const BUNDLES: Record<string, string> = {
  // Text first and last, numbers: what React parts with `<!-- -->` between neighbours.
  fragment: `const { createElement: h, Fragment } = require("react");
exports.default = ({ n }) => h(Fragment, null, "a", n, h("b", { title: "x\\"y" }, "c"), "d");`,
  text: `exports.default = ({ text }) => text;`,
  empty: `exports.default = () => null;`,
  // Ids depend on the component's place in React's tree.
  ids: `const { createElement: h, useId } = require("react");
exports.default = ({ withId }) => h("label", { htmlFor: withId ? useId() : "fixed" }, "L");`,
  // React writes a preload hint for each image ahead of all the HTML of its render.
  images: `const { createElement: h } = require("react");
exports.default = ({ srcs }) => h("figure", null, srcs.map((src) => h("img", { key: src, src, alt: "" })));`,
  // React hoists a <style> with a precedence ahead of all the HTML of its render too.
  styled: `const { createElement: h, Fragment } = require("react");
exports.default = ({ css }) => h(Fragment, null,
  css ? h("style", { href: "s", precedence: "p" }, css) : null, h("p", null, "styled"));`,
  thrower: `const { createElement: h } = require("react");
exports.default = ({ bad }) => { if (bad) throw new Error("bad props"); return h("i", null, "fine"); };`,
};

const bundles = new Map<string, ServerBundle>();

/** The same bundle object per component, as a handler set hands over a version while unchanged. */
function bundleOf(name: string): ServerBundle {
  let bundle = bundles.get(name);
  if (bundle === undefined) {
    bundle = {
      code: new TextEncoder().encode(BUNDLES[name]),
      serverHash: `s${name.length}`,
      hash: `h${name.length}`,
      stylesheets: [],
    };
    bundles.set(name, bundle);
  }
  return bundle;
}

const never = () => Promise.reject(new Error("nothing to load"));
const sources: IslandSources = { serverBundle: never, metadata: never };

function job(name: string, props: Record<string, unknown>): RenderJob {
  return {
    name: name as ComponentName,
    props,
    own: bundleOf(name),
    metadata: { name, dependencies: [] } as unknown as ComponentMetadata,
    filesRoot: "/api",
  };
}

async function renderer(): Promise<InProcessRenderer> {
  const engine = new InProcessRenderer(sources, { timeoutMs: 5000 });
  await engine.prepare("fragment" as ComponentName);
  return engine;
}

type Asked = readonly (readonly [string, Record<string, unknown>])[];

/** Each one on its own: every render is the first of its burst, so it renders alone. */
async function oneByOne(engine: InProcessRenderer, asked: Asked): Promise<string[]> {
  const html: string[] = [];
  for (const [name, props] of asked) html.push((await engine.render(job(name, props))).html);
  return html;
}

/** All asked for at once, as `Promise.all` of a page's islands asks. */
async function together(engine: InProcessRenderer, asked: Asked): Promise<string[]> {
  const rendered: (Rendered | Promise<Rendered>)[] = asked.map(([name, props]) =>
    engine.render(job(name, props)),
  );
  return (await Promise.all(rendered)).map((r) => r.html);
}

describe("InProcessRenderer, islands asked for together", () => {
  it("renders them in one renderToString, each one's HTML as it renders alone", async () => {
    const engine = await renderer();
    const asked: Asked = [
      ["fragment", { n: 1 }],
      ["text", { text: "a <b> & c" }],
      ["text", { text: "next to text" }],
      ["empty", {}],
      ["fragment", { n: 2 }],
      ["ids", { withId: false }],
      ["empty", {}],
      ["text", { text: "last" }],
    ];
    const alone = await oneByOne(engine, asked);
    expect(engine.batches).toBe(0);
    expect(alone[0]).toBe('<!--$-->a<!-- -->1<b title="x&quot;y">c</b>d<!--/$-->');
    expect(alone[3]).toBe("<!--$--><!--/$-->");
    const batched = await together(engine, asked);
    // The first renders at once, the others in one batch at the end of the burst.
    expect(engine.batches).toBe(1);
    expect(batched).toEqual(alone);
  });

  it("renders alone a version that asks for an id, writes a hint or throws, and the others as before", async () => {
    const engine = await renderer();
    // What each renders alone, from a renderer of its own (whose versions batch nothing).
    const reference = await renderer();
    // Rendered alone once without an id or a hint: batched from then on, until one shows.
    await oneByOne(engine, [
      ["fragment", { n: 0 }],
      ["ids", { withId: false }],
      ["images", { srcs: [] }],
      ["styled", {}],
      ["thrower", { bad: false }],
    ]);
    const withId: Asked = [
      ["fragment", { n: 1 }],
      ["ids", { withId: true }],
      ["fragment", { n: 2 }],
    ];
    const idsAlone = await oneByOne(reference, withId);
    expect(idsAlone[1]).toMatch(/^<!--\$--><label for="(«|_)R/);
    expect(await together(engine, withId)).toEqual(idsAlone);
    // The batch was tried, and each rendered alone instead.
    expect(engine.batches).toBe(0);

    const withImages: Asked = [
      ["fragment", { n: 3 }],
      ["images", { srcs: ["/a.png"] }],
      ["fragment", { n: 4 }],
    ];
    const imagesAlone = await oneByOne(reference, withImages);
    expect(imagesAlone[1]).toMatch(/^<link rel="preload" [^>]*href="\/a\.png"[^>]*><!--\$-->/);
    expect(await together(engine, withImages)).toEqual(imagesAlone);
    expect(engine.batches).toBe(0);

    const withStyle: Asked = [
      ["fragment", { n: 9 }],
      ["fragment", { n: 10 }],
      ["styled", { css: "p { color: red }" }],
    ];
    const styleAlone = await oneByOne(reference, withStyle);
    expect(styleAlone[2]).toMatch(
      /^<style data-precedence="p"[^>]*>p \{ color: red \}<\/style><!--\$-->/,
    );
    expect(await together(engine, withStyle)).toEqual(styleAlone);
    expect(engine.batches).toBe(0);

    const [first, thrown, last] = [
      engine.render(job("fragment", { n: 5 })),
      engine.render(job("thrower", { bad: true })),
      engine.render(job("fragment", { n: 6 })),
    ];
    await expect(thrown).rejects.toMatchObject({ kind: "RenderError" });
    await expect(thrown).rejects.toThrow(/bad props/);
    expect((await first).html).toBe('<!--$-->a<!-- -->5<b title="x&quot;y">c</b>d<!--/$-->');
    expect((await last).html).toBe('<!--$-->a<!-- -->6<b title="x&quot;y">c</b>d<!--/$-->');
    expect(engine.batches).toBe(0);

    // The versions that asked for an id or wrote a hint are not batched again; the others are.
    const again: Asked = [
      ["fragment", { n: 7 }],
      ["ids", { withId: false }],
      ["images", { srcs: [] }],
      ["fragment", { n: 8 }],
      ["thrower", { bad: false }],
    ];
    expect(await together(engine, again)).toEqual(await oneByOne(reference, again));
    expect(engine.batches).toBe(1);
  });
});
