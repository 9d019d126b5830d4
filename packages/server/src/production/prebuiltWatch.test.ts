/**
 * A build directory's manifest vouched for by a directory watch (Linux, local file systems):
 * warm bundles are answered after the poll phase without a stat of `manifest.json`, and a new
 * build swapped in is still seen by the next request. Real files, real watches; the stats
 * are counted, not faked.
 */
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it, vi } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { createHandlers } from "../http/handlers.ts";
import { silentLogger } from "../logger.ts";
import { cn, typicalComponent, writeTree } from "../test/fixtures.ts";
import { build } from "./build.ts";

/** Every stat taken, by path. */
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

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function builtProject() {
  const sources = writeTree(typicalComponent("card"));
  const parent = mkdtempSync(join(tmpdir(), "svc-prebuilt-watch-"));
  scratch.push(parent);
  const buildDir = join(parent, "build");
  const registry = new ComponentRegistry(sources, { logger: silentLogger });
  const { manifest } = await build({ registry, outDir: buildDir });
  return { sources, parent, buildDir, registry, manifest };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
const manifestStats = (from: number) =>
  stats.slice(from).filter((path) => path.endsWith("manifest.json")).length;

describe("a build directory's manifest, vouched for by its watch", () => {
  it("answers warm bundles turn after turn without a stat of the manifest", async () => {
    const { buildDir, registry, manifest } = await builtProject();
    const handlers = createHandlers(registry, { buildDir, logger: silentLogger });
    expect((await handlers.getBundle(cn("card"))).hash).toBe(manifest.card?.hash);
    await nextTurn();
    const before = stats.length;
    for (let turn = 0; turn < 30; turn++) {
      const bundle = await handlers.getBundle(cn("card"), { readFromSocket: true });
      expect(bundle.hash).toBe(manifest.card?.hash);
      await nextTurn();
    }
    // Stat'ed once a turn, that would be 30; the watch vouches (a stat a second at most).
    expect(manifestStats(before)).toBeLessThanOrEqual(2);
  });

  it("sees each new build swapped in at the next request, even one made a moment before it", async () => {
    const { sources, buildDir, registry } = await builtProject();
    const handlers = createHandlers(registry, { buildDir, logger: silentLogger });
    await handlers.getBundle(cn("card"));
    for (let round = 0; round < 5; round++) {
      // Warm and vouched for, then a new build replaces the manifest just before the request.
      await handlers.getBundle(cn("card"), { readFromSocket: true });
      await nextTurn();
      writeTree(typicalComponent("card", `Round ${round}`), sources);
      const next = await build({ registry, outDir: buildDir });
      const bundle = await handlers.getBundle(cn("card"));
      expect(bundle.hash).toBe(next.manifest.card?.hash);
      expect(Buffer.from(bundle.code).toString()).toContain(`Round ${round}`);
    }
  });

  it("checks a build directory reached through a symbolic link by stats, every turn", async () => {
    const { parent, buildDir, registry } = await builtProject();
    const link = join(parent, "current");
    symlinkSync(buildDir, link);
    const handlers = createHandlers(registry, { buildDir: link, logger: silentLogger });
    await handlers.getBundle(cn("card"));
    await nextTurn();
    const before = stats.length;
    for (let turn = 0; turn < 10; turn++) {
      await handlers.getBundle(cn("card"), { readFromSocket: true });
      await nextTurn();
    }
    // `ln -sfn` to a new build changes nothing a watch of the old target would see.
    expect(manifestStats(before)).toBeGreaterThanOrEqual(10);
  });
});
