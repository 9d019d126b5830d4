import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { writeTree } from "../test/fixtures.ts";
import { type SourceWatcher, watchSources } from "./sourceWatcher.ts";

const open: SourceWatcher[] = [];
afterEach(() => {
  for (const watcher of open.splice(0)) watcher.close();
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function start(root: string) {
  const events: boolean[] = [];
  const watcher = watchSources([root], (listing) => events.push(listing));
  open.push(watcher);
  return { watcher, events };
}

describe("watchSources", () => {
  it("reports every save, also saves made within one timestamp tick of each other", async () => {
    const root = writeTree({ "card/index.tsx": "export default 0;\n" });
    const { watcher, events } = start(root);
    await watcher.ready;
    let missed = 0;
    for (let i = 0; i < 30; i++) {
      const before = events.length;
      writeFileSync(join(root, "card/index.tsx"), `export default ${i};\n`);
      await pause(20);
      if (events.length === before) missed++;
    }
    expect(missed).toBe(0);
  });

  it("follows directories created later, and lets go of removed ones", async () => {
    const root = writeTree({ "card/index.tsx": "export default 0;\n" });
    const { watcher, events } = start(root);
    await watcher.ready;
    expect(watcher.size).toBe(2);
    mkdirSync(join(root, "fresh/deep"), { recursive: true });
    await expect.poll(() => watcher.size).toBe(4);
    const before = events.length;
    writeFileSync(join(root, "fresh/deep/index.tsx"), "export default 1;\n");
    await expect.poll(() => events.length).toBeGreaterThan(before);
    rmSync(join(root, "fresh"), { recursive: true });
    await expect.poll(() => watcher.size).toBe(2);
  });

  it("never watches node_modules or dot-directories", async () => {
    const tree: Record<string, string> = { "card/index.tsx": "export default 0;\n" };
    for (let i = 0; i < 20; i++) {
      tree[`node_modules/p${i}/index.js`] = "";
      tree[`card/node_modules/q${i}/index.js`] = "";
      tree[`.git/o${i}/x`] = "";
    }
    const root = writeTree(tree);
    const { watcher } = start(root);
    await watcher.ready;
    expect(watcher.size).toBe(2); // the root and card
    mkdirSync(join(root, "card/.cache/x"), { recursive: true });
    await pause(100);
    expect(watcher.size).toBe(2);
  });
});
