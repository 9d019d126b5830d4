import { randomBytes } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { evaluateServerBundle } from "./serverModule.ts";

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
      { react },
      (path) => `/api/bundles/${path.slice(2)}`,
    );
    expect(module).toEqual({ same: react, joined: "a/b", url: "/api/bundles/assets/x.png" });
    expect(() => evaluateServerBundle(`require("left-pad")`, "card", {})).toThrow(
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
});
