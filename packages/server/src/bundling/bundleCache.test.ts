import { rmSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { type Component, ComponentRegistry } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import {
  cn,
  countingBundler,
  settleWrites,
  typicalComponent,
  writeTree,
} from "../test/fixtures.ts";
import { BundleCache } from "./bundleCache.ts";
import { type Bundler, esbuildBundler } from "./bundler.ts";
import { onRecordChange } from "./dirWatches.ts";

function setup(files: Record<string, string>, maxBytes?: number) {
  const dir = writeTree(files);
  const registry = new ComponentRegistry(dir);
  const bundler = countingBundler();
  const cache = new BundleCache(bundler, { maxBytes });
  const get = (name: string): Component => {
    const c = registry.get(cn(name));
    if (!c) throw new Error(`no ${name}`);
    return c;
  };
  return { dir, registry, cache, get, builds: () => bundler.builds };
}

const text = (code: Uint8Array) => Buffer.from(code).toString("utf8");

/** Rewrites a file the way an editor does, moving its mtime forward so the change is unambiguous. */
function edit(path: string, content: string) {
  writeFileSync(path, content);
  const later = new Date(statSync(path).mtimeMs + 2_000);
  utimesSync(path, later, later);
}

/** A cold bundle is cached once its record is taken, just after its answer went out. */
const afterRecord = () => new Promise((resolve) => setImmediate(resolve));

describe("BundleCache", () => {
  it("serves a warm bundle without rebuilding", async () => {
    const t = setup(typicalComponent("card"));
    settleWrites();
    const first = await t.cache.get(t.get(cn("card")));
    const second = await t.cache.get(t.get(cn("card")));
    expect(second.hash).toBe(first.hash);
    expect(t.builds()).toBe(1);
  });

  it("peeks a warm bundle synchronously, and never a stale one", async () => {
    const t = setup(typicalComponent("card"));
    settleWrites();
    expect(t.cache.peek(t.get(cn("card")))).toBeUndefined();
    const built = await t.cache.get(t.get(cn("card")));
    expect(t.cache.peek(t.get(cn("card")))).toBeUndefined(); // its record is taken next
    await afterRecord();
    expect(t.cache.peek(t.get(cn("card")))).toEqual(expect.objectContaining(built));
    edit(join(t.dir, "card/label.ts"), "export const label = (s: string) => `edited ${s}`;\n");
    await new Promise((resolve) => setImmediate(resolve)); // inputs are checked once a turn
    expect(t.cache.peek(t.get(cn("card")))).toBeUndefined();
    expect(text((await t.cache.get(t.get(cn("card")))).code)).toContain("edited");
    expect(t.builds()).toBe(2);
  });

  it("rebuilds after an edit to a sibling implementation file", async () => {
    const t = setup(typicalComponent("card"));
    const before = await t.cache.get(t.get(cn("card")));
    edit(join(t.dir, "card/label.ts"), "export const label = (s: string) => `edited ${s}`;\n");
    const after = await t.cache.get(t.get(cn("card")));
    expect(after.hash).not.toBe(before.hash);
    expect(text(after.code)).toContain("edited");
  });

  it("rebuilds after an edit to a helper outside the component directory", async () => {
    const t = setup({
      "card/index.tsx": 'import { greet } from "../shared/greet";\nexport default () => greet();\n',
      "shared/greet.ts": 'export const greet = () => "first version";\n',
    });
    const before = await t.cache.get(t.get(cn("card")));
    edit(join(t.dir, "shared/greet.ts"), 'export const greet = () => "second version";\n');
    const after = await t.cache.get(t.get(cn("card")));
    expect(after.hash).not.toBe(before.hash);
    expect(text(after.code)).toContain("second version");
  });

  it("picks up a file the entry newly imports", async () => {
    const t = setup({ "card/index.tsx": "export default () => 1;\n" });
    await t.cache.get(t.get(cn("card")));
    writeTree({ "card/extra.ts": 'export const extra = "brand new file";\n' }, t.dir);
    edit(
      join(t.dir, "card/index.tsx"),
      'import { extra } from "./extra";\nexport default () => extra;\n',
    );
    expect(text((await t.cache.get(t.get(cn("card")))).code)).toContain("brand new file");
  });

  it("rebuilds when an input vanished", async () => {
    const t = setup({
      "card/index.tsx": 'import { x } from "./x";\nexport default () => x;\n',
      "card/x.ts": "export const x = 1;\n",
    });
    await t.cache.get(t.get(cn("card")));
    rmSync(join(t.dir, "card/x.ts"));
    await expect(t.cache.get(t.get(cn("card")))).rejects.toThrow(/Could not resolve "\.\/x"/);
  });

  it("does not trust a bundle whose inputs changed within a timestamp tick of its build", async () => {
    const t = setup({ "card/index.tsx": 'export default () => "AAAA";\n' });
    const file = join(t.dir, "card/index.tsx");
    writeFileSync(file, 'export default () => "BBBB";\n'); // mtime: now, as a fast editor leaves it
    const racy = statSync(file);
    expect(text((await t.cache.get(t.get(cn("card")))).code)).toContain("BBBB");
    // Same size, same mtime: indistinguishable by stat, as a second save in the same tick is.
    writeFileSync(file, 'export default () => "CCCC";\n');
    utimesSync(file, racy.atime, racy.mtime);
    expect(text((await t.cache.get(t.get(cn("card")))).code)).toContain("CCCC");
  });

  it("checks inputs once per event-loop turn, so an edit shows from the next turn on", async () => {
    const t = setup(typicalComponent("card"));
    settleWrites();
    await t.cache.get(t.get(cn("card")));
    await new Promise((resolve) => setImmediate(resolve));
    const checked = await t.cache.get(t.get(cn("card"))); // this turn's check: fresh
    edit(join(t.dir, "card/label.ts"), "export const label = (s: string) => `turn ${s}`;\n");
    // Requests of one turn are concurrent: the turn's check holds for all of them.
    expect((await t.cache.get(t.get(cn("card")))).hash).toBe(checked.hash);
    await new Promise((resolve) => setImmediate(resolve));
    expect(text((await t.cache.get(t.get(cn("card")))).code)).toContain("turn");
  });

  it("shares one build among 50 concurrent cold requests", async () => {
    const t = setup(typicalComponent("card"));
    settleWrites(); // just-written inputs make the build racy, and then joiners build again
    const results = await Promise.all(
      Array.from({ length: 50 }, () => t.cache.get(t.get(cn("card")))),
    );
    expect(t.builds()).toBe(1);
    for (const r of results)
      expect(Buffer.compare(r.code, results[0]?.code ?? new Uint8Array())).toBe(0);
  });

  it("keeps total cached bytes within the bound, evicting the least recently used", async () => {
    const files = Object.assign({}, ...["a", "b", "c"].map((n) => typicalComponent(n)));
    const probe = setup(files);
    settleWrites();
    const size = (await probe.cache.get(probe.get(cn("a")))).code.byteLength;
    const t = setup(files, Math.floor(size * 2.5));
    await t.cache.get(t.get(cn("a")));
    await t.cache.get(t.get(cn("b")));
    await afterRecord();
    await t.cache.get(t.get(cn("a"))); // a is now more recent than b
    await t.cache.get(t.get(cn("c")));
    await afterRecord(); // evicts b
    expect(t.cache.bytes).toBeLessThanOrEqual(Math.floor(size * 2.5));
    const builds = t.builds();
    await t.cache.get(t.get(cn("a")));
    expect(t.builds()).toBe(builds);
    await t.cache.get(t.get(cn("b")));
    expect(t.builds()).toBe(builds + 1);
  });
});

describe("BundleCache, a build of files saved a moment ago (racy) while watches are followed", () => {
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const labelSource = (word: string) =>
    `export function label(text: string): string {\n  return \`${word} \${text}\`;\n}\n`;

  /** A card built and kept out of the racy window, with someone following the watches. */
  async function followed(bundler: Bundler) {
    const dir = writeTree(typicalComponent("card"));
    const registry = new ComponentRegistry(dir);
    const cache = new BundleCache(bundler);
    onTestFinished(onRecordChange(() => {})); // live reload listens
    await sleep(80); // the files written above are out of the racy window
    const card = registry.get(cn("card")) as Component;
    await cache.get(card);
    await afterRecord();
    // A save, heard before the next build begins (as live reload's check starts after it).
    writeFileSync(join(dir, "card/label.ts"), labelSource("saved"));
    await sleep(20);
    return { dir, cache, card };
  }

  it("is kept on the watches' word: the next request is answered without a build, stats alone never vouch for it until the window is past", async () => {
    const bundler = countingBundler();
    const { cache, card } = await followed(bundler);
    const rebuilt = await cache.get(card);
    expect(text(rebuilt.code)).toContain("saved");
    await afterRecord();
    // A stat check cannot tell this version from one saved in the same tick.
    expect(cache.peek(card)).toBeUndefined();
    expect((await cache.current(card))?.hash).toBe(rebuilt.hash);
    expect(bundler.builds).toBe(2);
    // Past the window, with nothing heard, its stamps hold: stats may check it again.
    await sleep(60);
    expect((await cache.current(card))?.hash).toBe(rebuilt.hash);
    await afterRecord();
    expect(cache.peek(card)?.hash).toBe(rebuilt.hash);
    expect(bundler.builds).toBe(2);
  });

  it("a racy entry asked for only after its watches' word has lapsed (1 s) is checked by stats then, not built again", async () => {
    const bundler = countingBundler();
    const { cache, card } = await followed(bundler);
    const rebuilt = await cache.get(card);
    await afterRecord();
    await sleep(1_100);
    expect((await cache.current(card))?.hash).toBe(rebuilt.hash);
    expect(bundler.builds).toBe(2);
  });

  it("is not kept when a file changed while it was built: the next request builds again", async () => {
    let during: (() => void) | undefined;
    let builds = 0;
    const bundler: Bundler = {
      async bundle(component, options) {
        builds++;
        const output = await esbuildBundler.bundle(component, options);
        if (during !== undefined) {
          during();
          during = undefined;
          await sleep(20); // the write's event arrives before the build's record is taken
        }
        return output;
      },
    };
    const { dir, cache, card } = await followed(bundler);
    during = () => writeFileSync(join(dir, "card/label.ts"), labelSource("again"));
    expect(text((await cache.get(card)).code)).toContain("saved");
    await afterRecord();
    expect(await cache.current(card)).toBeUndefined();
    expect(text((await cache.get(card)).code)).toContain("again");
    expect(builds).toBe(3);
  });
});

describe("BundleCache, a build that fails while its folder changes", () => {
  it("is tried once more: a file gone mid-build (a save in steps) is no error of the files as they are now", async () => {
    const dir = writeTree(typicalComponent("card"));
    const card = new ComponentRegistry(dir).get(cn("card")) as Component;
    let builds = 0;
    const bundler: Bundler = {
      async bundle(component, options) {
        builds++;
        if (builds === 1) {
          // As an unshadowing does: the file found is removed before it is read.
          writeTree({ "card/extra.ts": "export {};\n" }, dir);
          rmSync(join(dir, "card/extra.ts"));
          throw new BundleError(component.name, [{ text: "ENOENT: no such file" }]);
        }
        return esbuildBundler.bundle(component, options);
      },
    };
    const cache = new BundleCache(bundler);
    expect(text((await cache.get(card)).code)).toContain("toUpperCase");
    expect(builds).toBe(2);
  });

  it("is not tried again after running out of time, even if its folder changed", async () => {
    const dir = writeTree(typicalComponent("card"));
    const card = new ComponentRegistry(dir).get(cn("card")) as Component;
    let builds = 0;
    const bundler: Bundler = {
      async bundle(component, options) {
        builds++;
        writeTree({ [`card/extra${builds}.ts`]: "export {};\n" }, dir);
        await new Promise((resolve) => setTimeout(resolve, 200));
        return esbuildBundler.bundle(component, options);
      },
    };
    await expect(new BundleCache(bundler, { buildTimeoutMs: 50 }).get(card)).rejects.toThrow(
      /did not finish within/,
    );
    expect(builds).toBe(1);
  });

  it("is not tried again when nothing in its folder changed", async () => {
    const dir = writeTree(typicalComponent("card"));
    const card = new ComponentRegistry(dir).get(cn("card")) as Component;
    let builds = 0;
    const bundler: Bundler = {
      async bundle(component) {
        builds++;
        throw new BundleError(component.name, [{ text: 'Expected ";"' }]);
      },
    };
    await expect(new BundleCache(bundler).get(card)).rejects.toThrow(/Expected/);
    expect(builds).toBe(1);
  });
});
