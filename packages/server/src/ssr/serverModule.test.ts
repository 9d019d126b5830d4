import { randomBytes } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import * as esbuild from "esbuild";
import { describe, expect, it } from "vitest";
import { contentHash } from "../bundling/bundler.ts";
import { evaluateServerBundle, mapServerFrames, serverFramesOf } from "./serverModule.ts";

/** A full garbage collection (V8's `gc`, reached without starting the process with a flag). */
function collect(): void {
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

describe("evaluateServerBundle", () => {
  it("evaluates CommonJS with the shared modules and Node's built-ins", () => {
    const react = { marker: true };
    const { module } = evaluateServerBundle(
      `const r = require("react"); const path = require("node:path");
module.exports = { same: r, joined: path.posix.join("a", "b"), url: __svcAssetUrl("./assets/x.png") };`,
      "card",
      "0123456789ab",
      { react },
      (path) => `/api/bundles/${path.slice(2)}`,
    );
    expect(module).toEqual({ same: react, joined: "a/b", url: "/api/bundles/assets/x.png" });
    expect(() => evaluateServerBundle(`require("left-pad")`, "card", "0123456789ab", {})).toThrow(
      /Component "card" needs "left-pad" on the server, which is neither bundled nor shared/,
    );
  });

  it("lets every replaced version be collected: 200 versions of 256 KiB retain less than 10 MiB", () => {
    const versions = 200;
    let current: unknown;
    const evaluate = (version: number) => {
      // Code of its own per version, as each edit of a component makes it.
      const block = randomBytes(128 * 1024).toString("hex");
      current = evaluateServerBundle(
        `const BLOCK = "${block}";\nexports.default = function Card() { return BLOCK.length + ${version}; };`,
        "card",
        String(version).padStart(12, "0"),
        {},
      ).module;
    };
    for (let version = 0; version < 10; version++) evaluate(version);
    collect();
    const before = process.memoryUsage().heapUsed;
    for (let version = 10; version < versions; version++) evaluate(version);
    collect();
    const grown = process.memoryUsage().heapUsed - before;
    // Kept, each version's source and bytecode would be 190 × 512 KiB or more: ~95 MiB.
    expect(grown).toBeLessThan(10 * 1024 * 1024);
    expect((current as { default: () => number }).default()).toBe(256 * 1024 + versions - 1);
  });

  it("maps a stack through the version's code built again with its map, and only through that version's", async () => {
    /** A version's code without a map, and the same built again with an inline one. */
    const versionOf = async (source: string) => {
      const options = {
        loader: "ts",
        format: "cjs",
        sourcefile: "component://card/Card.ts",
      } as const;
      const plain = (await esbuild.transform(source, options)).code;
      const withMap = (await esbuild.transform(source, { ...options, sourcemap: "inline" })).code;
      expect(withMap.startsWith(plain)).toBe(true);
      return { plain, hash: contentHash(Buffer.from(plain)), withMap: Buffer.from(withMap) };
    };
    const first = await versionOf(
      `export default function Card(): never {\n  const why = "broken";\n  throw new Error(why);\n}\n`,
    );
    // The next version: code of its own (another message), its throw two lines further down.
    const next = await versionOf(
      `export default function Card(): never {\n  const why = "broken again";\n\n\n  throw new Error(why);\n}\n`,
    );
    const { module } = evaluateServerBundle(first.plain, "card", first.hash, {});
    let stack = "";
    try {
      (module.default as () => never)();
    } catch (error) {
      stack = (error as Error).stack ?? "";
    }
    expect(serverFramesOf(stack)).toEqual([{ name: "card", serverHash: first.hash }]);
    expect(mapServerFrames(stack, "card", first.hash, first.withMap)).toMatch(
      /at (Object\.)?Card \(component:\/\/card\/Card\.ts:3:9\)/,
    );
    // Another version's map would point at the wrong lines: the frames stay as they are.
    expect(mapServerFrames(stack, "card", first.hash, next.withMap)).toBe(stack);
  });
});
