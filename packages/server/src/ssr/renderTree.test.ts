import type { ComponentMetadata } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import { Evaluations } from "./evaluations.ts";
import { loadPeers } from "./peers.ts";
import { renderTree, type TreeRender } from "./renderTree.ts";

/** Server bundles written by hand (CommonJS, as esbuild writes them for Node). */
const BUNDLES = {
  // Ids depend on the component's place in the tree: the tree around it must not move them.
  ids: `const { createElement: h, Fragment, useId } = require("react");
function Field({ label }) {
  const id = useId();
  return h(Fragment, null, h("label", { htmlFor: id }, label), h("input", { id }));
}
exports.default = function Form({ items }) {
  const id = useId();
  return h("form", { "aria-labelledby": id },
    h("h2", { id }, "Form ", items.length),
    items.map((item) => h(Field, { key: item, label: item })),
    "text", 1, null, h(Field, { label: "last" }));
};`,
  fragment: `const { createElement: h, Fragment } = require("react");
exports.default = ({ n }) => h(Fragment, null, "a", n, h("b", null, "c"), "d");`,
  text: `exports.default = ({ text }) => text;`,
  // React writes a preload hint for each image ahead of the HTML, outside the boundary.
  images: `const { createElement: h } = require("react");
exports.default = ({ srcs }) => h("figure", null, srcs.map((src) => h("img", { key: src, src, alt: "" })));`,
  // Hoisted likewise: a <title>, a <meta>, a stylesheet with a precedence, an icon, an async
  // script, a <style> with a precedence (its `</style` escaped by React).
  hoisted: `const { createElement: h, Fragment } = require("react");
exports.default = ({ title }) => h(Fragment, null,
  h("title", null, title), h("meta", { name: "d", content: "x>y" }),
  h("link", { rel: "stylesheet", href: "/a.css", precedence: "default" }),
  h("link", { rel: "icon", href: "/f.ico" }), h("script", { async: true, src: "/s.js" }),
  h("style", { href: "s", precedence: "default" }, "p > b { content: '</style>' }"),
  h("p", null, title));`,
  // Not hoisted: written where it stands, inside the boundary.
  inPlace: `const { createElement: h, Fragment } = require("react");
exports.default = () => h(Fragment, null,
  h("link", { rel: "stylesheet", href: "/plain.css" }), h("meta", { itemProp: "n", content: "v" }),
  h("p", null, "text"));`,
};

async function render(code: string, props: Record<string, unknown>, bare: boolean) {
  const peers = await loadPeers();
  const own = new Evaluations().get(peers.shared, "x", "1", "h", "/api", () => code);
  const metadata = { name: "x", dependencies: [] } as unknown as ComponentMetadata;
  const never = () => Promise.reject(new Error("loads nothing"));
  const job: TreeRender = {
    name: "x",
    props,
    own,
    metadata,
    filesRoot: "/api",
    load: never,
    loadMetadata: never,
    waits: () => new AbortController().signal,
    bare,
  };
  return { html: (await renderTree(peers, job)).html, alone: own.bare };
}

describe("renderTree", () => {
  it("renders a component alone exactly as svc's tree renders it: the HTML the browser hydrates", async () => {
    const cases = [
      [BUNDLES.ids, { items: ["a", "b", "c"] }],
      [BUNDLES.fragment, { n: 2 }],
      [BUNDLES.text, { text: "<plain> & text" }],
      [BUNDLES.images, { srcs: ["/a.png", "/b>.png"] }],
      [BUNDLES.hoisted, { title: "A <b> & c" }],
      [BUNDLES.inPlace, {}],
    ] as const;
    for (const [code, props] of cases) {
      const alone = await render(code, props, true);
      const tree = await render(code, props, false);
      expect(alone.alone).toBe(true);
      expect(tree.alone).toBeUndefined();
      expect(alone.html).toBe(tree.html);
    }
    const { html } = await render(BUNDLES.ids, { items: ["a"] }, true);
    expect(html).toMatch(/^<!--\$--><form aria-labelledby="(«|_)[^"]+"/);
  });

  it("renders a component that needs svc's tree (useSvc) in the tree, and never alone again", async () => {
    const peers = await loadPeers();
    const code = `const { useSvc } = require("@svc/react");
exports.default = () => useSvc().client.apiBase;`;
    const own = new Evaluations().get(peers.shared, "x", "1", "h", "/svc", () => code);
    const job: TreeRender = {
      name: "x",
      props: {},
      own,
      metadata: { name: "x", dependencies: [] } as unknown as ComponentMetadata,
      filesRoot: "/svc",
      load: () => Promise.reject(new Error("none")),
      loadMetadata: () => Promise.reject(new Error("none")),
      waits: () => new AbortController().signal,
    };
    expect((await renderTree(peers, job)).html).toBe("<!--$-->/svc<!--/$-->");
    expect(own.bare).toBe(false);
  });
});
