import { mkdirSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InvalidComponentNameError } from "../errors.ts";
import type { Logger } from "../logger.ts";
import { cn, writeTree } from "../test/fixtures.ts";
import { ComponentRegistry } from "./componentRegistry.ts";

const entry = "export default () => null;\n";

function recordingLogger() {
  const warnings: string[] = [];
  const logger: Logger = { info() {}, warn: (m) => warnings.push(m), error() {} };
  return { logger, warnings };
}

describe("ComponentRegistry", () => {
  it("discovers nested components, preferring index.tsx over index.ts", () => {
    const dir = writeTree({
      "button/index.tsx": entry,
      "button/index.ts": entry,
      "ui/card/index.ts": entry,
      "ui/card/deep/index.tsx": entry,
      "ui/notacomponent.ts": entry,
      "index.tsx": entry, // the source root itself is never a component
    });
    const registry = new ComponentRegistry(dir);
    expect(registry.list().map((c) => c.name)).toEqual(["button", "ui.card", "ui.card.deep"]);
    expect(registry.get(cn("button"))?.entry).toBe(join(dir, "button/index.tsx"));
    expect(registry.get(cn("ui.card"))?.entry).toBe(join(dir, "ui/card/index.ts"));
    expect(registry.get(cn("ui"))).toBeUndefined();
  });

  it("skips invalid directory names with one warning each, and never walks node_modules or dot-dirs", () => {
    const dir = writeTree({
      "my_widget-x/index.tsx": entry,
      "Nav-item/index.tsx": entry,
      "double--dash/index.tsx": entry,
      "2fast/index.tsx": entry,
      "node_modules/pkg/index.ts": entry,
      ".hidden/thing/index.tsx": entry,
      "ok/index.tsx": entry,
    });
    const { logger, warnings } = recordingLogger();
    const registry = new ComponentRegistry(dir, { logger });
    registry.refresh();
    registry.refresh();
    expect(registry.list().map((c) => c.name)).toEqual(["ok"]);
    for (const skipped of ["my_widget-x", "Nav-item", "double--dash", "2fast"]) {
      expect(warnings.filter((w) => w.includes(`"${skipped}"`))).toHaveLength(1);
    }
    expect(warnings).toHaveLength(4);
    expect(warnings[0]).toMatch(/an identifier .* or kebab-case/);
    expect(warnings.join("\n")).not.toMatch(/node_modules|hidden/);
  });

  it("discovers kebab-case directories without a warning, nested, beside identifiers", async () => {
    const dir = writeTree({
      "product-card/index.tsx": entry,
      "nav2-item/index.tsx": entry,
      "ui/product-card/index.tsx": entry,
      "ui/product-card/price-tag/index.ts": entry,
      "shop-v2/my_card/index.tsx": entry,
    });
    const { logger, warnings } = recordingLogger();
    const registry = new ComponentRegistry(dir, { logger });
    await registry.refreshAsync();
    expect(registry.list().map((c) => c.name)).toEqual([
      "nav2-item",
      "product-card",
      "shop-v2.my_card",
      "ui.product-card",
      "ui.product-card.price-tag",
    ]);
    expect(registry.get(cn("ui.product-card"))?.dir).toBe(join(dir, "ui/product-card"));
    expect(warnings).toEqual([]);

    // A kebab-case prefix (the same rule as a segment), and a kebab name created since.
    const prefixed = new ComponentRegistry(dir, { prefix: "my-shop", logger });
    expect(prefixed.get(cn("my-shop:product-card"))?.dir).toBe(join(dir, "product-card"));
    writeTree({ "new-one/index.tsx": entry }, dir);
    expect(prefixed.probe(cn("my-shop:new-one"))?.dir).toBe(join(dir, "new-one"));
    expect(warnings).toEqual([]);
  });

  it("refuses a component whose last kebab part is 12 hex digits, warning once", async () => {
    const dir = writeTree({
      "card-3f2a9c0b1d4e/index.tsx": entry,
      "card-3f2a9c0b1d4e/inner/index.tsx": entry,
      "card-3f2a9c0b1d4/index.tsx": entry,
    });
    const { logger, warnings } = recordingLogger();
    const registry = new ComponentRegistry(dir, { logger });
    await registry.refreshAsync();
    registry.refresh();
    // Its children keep their names: only a last part of 12 hex digits reads as a file's hash.
    expect(registry.list().map((c) => c.name)).toEqual([
      "card-3f2a9c0b1d4",
      "card-3f2a9c0b1d4e.inner",
    ]);
    expect(warnings).toEqual([
      `skipped ${join(dir, "card-3f2a9c0b1d4e")}: its name "card-3f2a9c0b1d4e" is refused: its last part "3f2a9c0b1d4e" is 12 hex digits, which svc keeps for the names of stylesheet files (<stem>-<hash>.css)`,
    ]);
  });

  it("skips a directory whose name would exceed 200 characters, warning once across refreshes", async () => {
    // Each segment fits a file name; joined with a dot they make 200 and 201 characters.
    const [a, b, c] = ["a".repeat(100), "b".repeat(99), "c".repeat(100)];
    const dir = writeTree({ [`${a}/${b}/index.tsx`]: entry, [`${a}/${c}/index.tsx`]: entry });
    const { logger, warnings } = recordingLogger();
    const registry = new ComponentRegistry(dir, { logger });
    registry.refresh();
    await registry.refreshAsync();
    registry.refresh();
    expect(registry.list().map((c) => c.name)).toEqual([`${a}.${b}`]);
    expect(warnings).toEqual([
      `skipped ${join(dir, a, c)}: its name is longer than 200 characters`,
    ]);

    // A prefix counts: "app:" makes the 200-character name 204.
    const prefixed = new ComponentRegistry(dir, { prefix: "app", logger });
    expect(prefixed.list()).toEqual([]);
    expect(warnings).toHaveLength(3);
  });

  it("applies a prefix and lets a later source win a collision, logging it", () => {
    const a = writeTree({ "header/index.tsx": entry, "only_a/index.tsx": entry });
    const b = writeTree({ "header/index.tsx": entry });
    const { logger, warnings } = recordingLogger();
    const registry = new ComponentRegistry(a, { logger });
    registry.addSource(b);
    expect(registry.get(cn("header"))?.dir).toBe(join(b, "header"));
    expect(registry.get(cn("only_a"))?.dir).toBe(join(a, "only_a"));
    expect(warnings.some((w) => w.includes('"header"') && w.includes("replaces"))).toBe(true);

    const prefixed = new ComponentRegistry(a, { prefix: "app", logger });
    expect(prefixed.list().map((c) => c.name)).toEqual(["app:header", "app:only_a"]);
    expect(() => new ComponentRegistry(a, { prefix: "bad--prefix", logger })).toThrow(
      /Invalid prefix/,
    );
  });

  it("warns about a missing or non-directory source and does not record it", () => {
    const dir = writeTree({ "file.txt": "x" });
    const { logger, warnings } = recordingLogger();
    const registry = new ComponentRegistry(undefined, { logger });
    expect(registry.addSource(join(dir, "missing"))).toBe(false);
    expect(registry.addSource(join(dir, "file.txt"))).toBe(false);
    expect(registry.sources).toHaveLength(0);
    expect(warnings).toEqual([
      expect.stringContaining("does not exist"),
      expect.stringContaining("is not a directory"),
    ]);
  });

  it("registers a symlinked directory once and survives symlink cycles", () => {
    const dir = writeTree({ "real/index.tsx": entry });
    symlinkSync(join(dir, "real"), join(dir, "alias"));
    mkdirSync(join(dir, "loop"));
    symlinkSync(dir, join(dir, "loop", "back"));
    const registry = new ComponentRegistry(dir);
    expect(registry.list().map((c) => c.name)).toEqual(["alias"]);
  });

  it("does not follow symlinks out of the source unless told to", () => {
    const outside = writeTree({ "secret/index.tsx": entry });
    const dir = writeTree({ "inside/index.tsx": entry });
    symlinkSync(join(outside, "secret"), join(dir, "linked"));
    const { logger, warnings } = recordingLogger();
    expect(new ComponentRegistry(dir, { logger }).list().map((c) => c.name)).toEqual(["inside"]);
    expect(warnings.some((w) => w.includes("links outside"))).toBe(true);
    const following = new ComponentRegistry(dir, { logger, followExternalSymlinks: true });
    expect(following.list().map((c) => c.name)).toEqual(["inside", "linked"]);
  });

  it("picks up added and removed components on refresh", () => {
    const dir = writeTree({ "one/index.tsx": entry });
    const registry = new ComponentRegistry(dir);
    mkdirSync(join(dir, "two"));
    writeFileSync(join(dir, "two/index.tsx"), entry);
    expect(registry.get(cn("two"))).toBeUndefined();
    registry.refresh();
    expect(registry.get(cn("two"))).toBeDefined();
    rmSync(join(dir, "one"), { recursive: true });
    registry.refresh();
    expect(registry.list().map((c) => c.name)).toEqual(["two"]);
  });

  it("throws InvalidComponentNameError for malformed names and returns undefined for unknown ones", () => {
    const registry = new ComponentRegistry(writeTree({ "a/index.tsx": entry }));
    expect(() => registry.get(cn("../etc"))).toThrow(InvalidComponentNameError);
    expect(registry.get(cn("nope"))).toBeUndefined();
  });
});
