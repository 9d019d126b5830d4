/**
 * The record of what a bundle depends on checks the absent files of a directory through the
 * directory's own stamp: fewer stats per check, and still no change missed. Real files.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import type { Component } from "../components/componentRegistry.ts";
import { cn, settleWrites, writeTree } from "../test/fixtures.ts";
import { nowNs } from "../util/fileStamp.ts";
import { BundleInputs } from "./bundleInputs.ts";

/** Every stat the records take, by path (the real stats, counted). */
const stats = vi.hoisted(() => [] as string[]);
vi.mock("../util/fileStamp.ts", async (importOriginal) => {
  const original = await importOriginal<typeof import("../util/fileStamp.ts")>();
  return {
    ...original,
    stampOf: (path: string, options?: { link?: boolean }) => {
      stats.push(path);
      return original.stampOf(path, options);
    },
  };
});

function component(root: string): Component {
  const dir = join(root, "components", "card");
  return {
    name: cn("card"),
    dir,
    entry: join(dir, "index.tsx"),
    source: { dir: join(root, "components"), prefix: "" } as Component["source"],
  };
}

/** A record of the card's entry alone, as a build that read only that file makes it. */
function record(root: string) {
  const card = component(root);
  return BundleInputs.collect(card, [card.entry], [], nowNs()).inputs;
}

/** The next turn of the event loop: stats are shared within one. */
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

const FILES = {
  "package.json": "{}",
  "components/card/index.tsx": "export default () => null;\n",
};

describe("absent files checked through their directory", () => {
  it("checks a settled directory's absent entries with one stat of it", async () => {
    settleWrites();
    const inputs = record(writeTree(FILES));
    // tsconfig.json, jsconfig.json and package.json absent in components/card, and so on up.
    expect(inputs.checks).toBeLessThan(inputs.size - 2);
    await nextTurn();
    expect(inputs.isFresh()).toBe(true);
  });

  it("stays fresh when an unrelated entry appears, and sees a config file created after it", async () => {
    settleWrites();
    const root = writeTree(FILES);
    const inputs = record(root);
    writeFileSync(join(root, "components", "card", "notes.md"), "unrelated\n");
    await nextTurn();
    expect(inputs.isFresh()).toBe(true);
    writeFileSync(join(root, "components", "card", "tsconfig.json"), "{}\n");
    await nextTurn();
    expect(inputs.isFresh()).toBe(false);
  });

  it("sees a config file created further up", async () => {
    settleWrites();
    const root = writeTree(FILES);
    const inputs = record(root);
    writeFileSync(join(root, "components", "jsconfig.json"), "{}\n");
    await nextTurn();
    expect(inputs.isFresh()).toBe(false);
  });

  it("does not let a directory changed within the racy window vouch for its entries", async () => {
    // Before settleWrites: this fixture's directories were changed just now.
    const racy = record(writeTree(FILES));
    settleWrites();
    const settled = record(writeTree(FILES));
    expect(racy.size).toBe(settled.size);
    expect(racy.checks).toBeGreaterThan(settled.checks);
    await nextTurn();
    expect(racy.isFresh()).toBe(true);
  });
});

describe("one check, one stat per path", () => {
  it("stats the component's directory once, and no config file esbuild would not read", async () => {
    settleWrites();
    const root = writeTree({
      ...FILES,
      "tsconfig.json": JSON.stringify({ extends: "./tsconfig.base.json" }),
      "tsconfig.base.json": "{}",
    });
    const card = component(root);
    // The card's directory is listed (what its import resolved in) and holds absent configs.
    const inputs = BundleInputs.collect(
      card,
      [card.entry, join(card.dir, "format.ts")],
      [{ importer: card.entry, specifier: "./format", path: join(card.dir, "format.ts") }],
      nowNs(),
    ).inputs;
    await nextTurn();
    stats.length = 0;
    expect(inputs.isFresh(false)).toBe(true);
    expect(stats.filter((path) => path === card.dir)).toHaveLength(1);
    expect(new Set(stats).size).toBe(stats.length);
    expect(stats.length).toBe(inputs.checks);
    // Read only when there is no tsconfig.json beside it / no file of the name as written.
    expect(stats).not.toContain(join(root, "jsconfig.json"));
    expect(stats).not.toContain(join(root, "tsconfig.base.json.json"));
    expect(stats).toContain(join(root, "tsconfig.base.json"));
  });
});

describe("stats shared within a turn", () => {
  it("lets a check that may share stats take those a check confirming watches took afresh", async () => {
    settleWrites();
    const root = writeTree(FILES);
    // A component's browser bundle (watched: stats afresh) and its server bundle (not).
    const browser = record(root);
    const server = record(root);
    await nextTurn();
    stats.length = 0;
    expect(browser.isFresh(false)).toBe(true);
    const taken = stats.length;
    expect(taken).toBeGreaterThan(0);
    expect(server.isFresh()).toBe(true);
    expect(stats.length).toBe(taken);
    // A check confirming watches never takes a stat from the memo: it stats again.
    expect(browser.isFresh(false)).toBe(true);
    expect(stats.length).toBe(2 * taken);
    // The next turn stats again.
    await nextTurn();
    expect(server.isFresh()).toBe(true);
    expect(stats.length).toBe(3 * taken);
  });
});
