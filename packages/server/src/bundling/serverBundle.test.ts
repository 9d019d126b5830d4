import { describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { evaluateServerBundle, mapServerFrames } from "../ssr/serverModule.ts";
import { cn, writeTree } from "../test/fixtures.ts";
import { type BundleOutput, contentHash, esbuildBundler, type FinishedOutput } from "./bundler.ts";
import { serverBundleOf } from "./serverBundle.ts";

const FILES = {
  "card/index.tsx": `import { useState } from "react";
import styles from "./card.module.css";
import "./plain.css";
import photo from "./photo.png";
export default function Card({ title }: { title: string }) {
  const [shown] = useState(title);
  if (shown === "boom") throw new Error("boom " + shown);
  return <h3 className={styles.title} data-src={photo}>{shown}</h3>;
}
`,
  "card/card.module.css": ".title { color: red; }\n",
  "card/plain.css": "h3 { margin: 0; }\n",
  "card/photo.png": "not really a png",
};

async function browserBundle(
  options = {},
  files: Record<string, string> = FILES,
): Promise<BundleOutput & { name: string }> {
  const registry = new ComponentRegistry(writeTree(files), { logger: silentLogger });
  const component = registry.get(cn("card"));
  if (component === undefined) throw new Error("no card");
  return { name: "card", ...(await esbuildBundler.bundle(component, options)) };
}

const decode = (bytes: Uint8Array) => Buffer.from(bytes).toString("utf8");

/**
 * The stack of the card's server bundle `plain` thrown while rendering ("boom"), its frames
 * mapped through `withMap` (the same bundle with its source map).
 */
function mappedStack(plain: FinishedOutput, withMap: FinishedOutput): string {
  const { module } = evaluateServerBundle(decode(plain.code), "card", plain.hash, {
    react: { useState: (value: unknown) => [value] },
    "react/jsx-runtime": { jsx: () => null },
  });
  let stack = "";
  try {
    (module.default as (props: object) => unknown)({ title: "boom" });
  } catch (error) {
    stack = (error as Error).stack ?? "";
  }
  return mapServerFrames(stack, "card", plain.hash, withMap.code);
}

describe("serverBundleOf", () => {
  it("makes the browser bundle CommonJS: shared modules required, stylesheets left to the island, asset URLs the render's", async () => {
    const browser = await browserBundle();
    const server = await serverBundleOf({ ...browser, stylesheets: browser.stylesheets ?? [] });
    const code = decode(server.code);
    expect(server.hash).toBe(contentHash(server.code));
    expect(code).toContain('require("react")');
    expect(code).not.toMatch(/\.css"|svcImports|sourceMappingURL|import\.meta/);
    const react = { useState: (value: unknown) => [value] };
    const runtime = {
      jsx: (type: string, props: Record<string, unknown>) => ({ type, props }),
    };
    const { module } = evaluateServerBundle(
      code,
      "card",
      server.hash,
      { react, "react/jsx-runtime": runtime },
      (path) => `/api/bundles/${path.slice(2)}`,
    );
    const element = (module.default as (props: object) => { props: Record<string, unknown> })({
      title: "Mug",
    });
    // The browser bundle's own CSS module class name and the asset's path below the API base.
    const title = /(card_[0-9a-f]+_title)/.exec(decode(browser.code))?.[1];
    expect(title).toBeDefined();
    expect(element.props).toMatchObject({ className: title, children: "Mug" });
    expect(element.props["data-src"]).toMatch(/^\/api\/bundles\/assets\/photo-[A-Z0-9]{8}\.png$/);
    // The same browser bundle, the same server bundle.
    expect(
      (await serverBundleOf({ ...browser, stylesheets: browser.stylesheets ?? [] })).hash,
    ).toBe(server.hash);
  });

  it("carries the browser bundle's source map through when asked, for the same code", async () => {
    const browser = await browserBundle();
    const parts = { ...browser, stylesheets: browser.stylesheets ?? [] };
    const plain = await serverBundleOf(parts);
    const withMap = await serverBundleOf(parts, { sourcemap: true });
    expect(decode(withMap.code).startsWith(decode(plain.code))).toBe(true);
    expect(mappedStack(plain, withMap)).toMatch(
      /at (Object\.)?Card \(component:\/\/card\/index\.tsx:7:31\)/,
    );
  });

  it("converts default, namespace and named imports as esbuild's CommonJS does, and leaves what it does not convert to esbuild", async () => {
    const card = `import React, { useState as useS } from "react";
import * as R from "react";
export const twice = (n: number) => n * 2;
export default function Card() {
  return [React === R.default, useS === R.useState, typeof React.createElement];
}
`;
    const react = { useState: () => [], createElement: () => null };
    const run = async (files: Record<string, string>) => {
      const browser = await browserBundle({}, files);
      const server = await serverBundleOf({ ...browser, stylesheets: [] });
      const code = decode(server.code);
      const { module } = evaluateServerBundle(code, "card", server.hash, { react });
      return { code, module };
    };
    const byHand = await run({ "card/index.tsx": card });
    expect((byHand.module.default as () => unknown)()).toEqual([true, true, "function"]);
    expect((byHand.module.twice as (n: number) => number)(4)).toBe(8);
    expect(byHand.code).not.toContain("__toESM"); // converted by hand
    // `import.meta` (so `import()` too): esbuild's transform, with its own interop.
    const transformed = await run({
      "card/index.tsx": `${card}export const where = String(import.meta.url);\n`,
    });
    expect(transformed.code).toContain("__toESM");
    expect((transformed.module.default as () => unknown)()).toEqual([true, true, "function"]);
    expect(transformed.module.where).toBe("undefined");
  });

  it("keeps the browser bundle's map in step when converting a minified bundle by hand", async () => {
    const browser = await browserBundle({ minify: true, mode: "production" });
    const parts = { ...browser, stylesheets: browser.stylesheets ?? [] };
    const plain = await serverBundleOf(parts, { minify: true });
    const withMap = await serverBundleOf(parts, { minify: true, sourcemap: true });
    expect(decode(plain.code)).not.toContain("__toESM");
    expect(decode(withMap.code).startsWith(decode(plain.code))).toBe(true);
    expect(mappedStack(plain, withMap)).toMatch(/component:\/\/card\/index\.tsx:7:\d+\)/);
  });
});
