/**
 * Directory watches vouching for warm bundles: no stat while nothing changed, yet never a
 * stale answer — not for a write made a moment before the question in the same poll phase,
 * not after a link is re-pointed (a watch follows an inode, not a path). Real files, real
 * inotify, real esbuild.
 */
import { execFileSync } from "node:child_process";
import { linkSync, renameSync, stat, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Component, ComponentRegistry } from "../components/componentRegistry.ts";
import { cn, countingBundler, settleWrites, writeTree } from "../test/fixtures.ts";
import { BundleCache } from "./bundleCache.ts";
import { BundleInputs } from "./bundleInputs.ts";
import { afterPoll, onRecordChange, watchedPaths, watchRecord } from "./dirWatches.ts";

const card = (text: string) =>
  `import { value } from "./value";\nexport default function Card() { return value + "${text}"; }\n`;
const value = (text: string) => `export const value = "${text}";\n`;

function setup(files: Record<string, string>, options: { links?: Record<string, string> } = {}) {
  const root = writeTree({ "package.json": "{}", ...files });
  for (const [link, target] of Object.entries(options.links ?? {})) {
    symlinkSync(target, join(root, link));
  }
  const registry = new ComponentRegistry(join(root, "components"));
  const bundler = countingBundler();
  const cache = new BundleCache(bundler);
  const component = (name = "card"): Component => {
    const found = registry.get(cn(name));
    if (found === undefined) throw new Error(`no ${name}`);
    return found;
  };
  // As a bundle request asks: vouched for by the watches when they can, else built.
  const code = async (name = "card") => {
    const now = cache.current(component(name));
    const bundle = (now instanceof Promise ? await now : now) ?? (await cache.get(component(name)));
    return Buffer.from(bundle.code).toString("utf8");
  };
  return { root, cache, component, code, builds: () => bundler.builds };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.restoreAllMocks();
});

describe.runIf(process.platform === "linux")("dev cache: directory watches", () => {
  it("vouch for a warm bundle: after the first check, no stats while nothing changes", async () => {
    const t = setup({
      "components/card/index.tsx": card("A"),
      "components/card/value.ts": value("one"),
    });
    settleWrites();
    await t.code();
    await nextTurn();
    await t.code(); // the first check by stats arms the watches
    const checks = vi.spyOn(BundleInputs.prototype, "isFresh");
    for (let i = 0; i < 5; i++) {
      await nextTurn();
      expect(t.cache.current(t.component())).toBeInstanceOf(Promise);
      expect(await t.code()).toContain("one");
    }
    expect(checks).not.toHaveBeenCalled();
    expect(t.builds()).toBe(1);
  });

  it("are backed by a stat check once a second (the kernel may drop events unannounced)", async () => {
    const t = setup({
      "components/card/index.tsx": card("A"),
      "components/card/value.ts": value("one"),
    });
    settleWrites();
    await t.code();
    await nextTurn();
    await t.code();
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    try {
      const checks = vi.spyOn(BundleInputs.prototype, "isFresh");
      vi.advanceTimersByTime(900);
      await nextTurn();
      await t.code();
      expect(checks).not.toHaveBeenCalled();
      vi.advanceTimersByTime(200);
      await nextTurn();
      await t.code();
      expect(checks).toHaveBeenCalledTimes(1);
      await nextTurn();
      await t.code();
      expect(checks).toHaveBeenCalledTimes(1);
    } finally {
      vi.useRealTimers();
    }
  });

  it("see a write this process made in the same poll phase, just before the question", async () => {
    const t = setup({
      "components/card/index.tsx": card("A"),
      "components/card/value.ts": value("one"),
    });
    settleWrites();
    await t.code();
    await nextTurn();
    await t.code(); // checked by stats: watched from now on
    await nextTurn();
    await t.code(); // vouched for by the watches, as every later question
    // An fs callback runs in the poll phase: the write's event is only delivered by the next one.
    const after = await new Promise<string>((resolve, reject) => {
      stat(t.root, () => {
        writeFileSync(join(t.root, "components/card/value.ts"), value("two"));
        t.code().then(resolve, reject);
      });
    });
    expect(after).toContain("two");
    expect(t.builds()).toBe(2);
  });

  it("wait a poll phase more for a call than for a request read from a socket", async () => {
    // A request read from a socket: the end of its turn (its writes' events came with it); a
    // call: after the next poll phase too (this process's own write is delivered only then).
    const order: string[] = [];
    const socket = afterPoll(true).then(() => order.push("socket"));
    const call = afterPoll().then(() => order.push("call"));
    setImmediate(() => {
      order.push("check 1");
      setImmediate(() => order.push("check 2"));
    });
    await Promise.all([socket, call]);
    await nextTurn();
    expect(order).toEqual(["socket", "check 1", "call", "check 2"]);
  });

  it("answer a request read from a socket at the end of its turn, fresh after a write by another process", async () => {
    const t = setup({
      "components/card/index.tsx": card("A"),
      "components/card/value.ts": value("one"),
    });
    settleWrites();
    const fromSocket = async () => {
      const now = t.cache.current(t.component(), true);
      const bundle =
        (now instanceof Promise ? await now : now) ?? (await t.cache.get(t.component()));
      return Buffer.from(bundle.code).toString("utf8");
    };
    await fromSocket();
    for (const text of ["two", "three", "four"]) {
      await nextTurn();
      await fromSocket(); // checked by stats: watched from now on
      await nextTurn();
      expect(t.cache.current(t.component(), true)).toBeInstanceOf(Promise);
      // Another process writes and exits before the question, as an editor saves before a reload.
      execFileSync(process.execPath, [
        "-e",
        `require("node:fs").writeFileSync(${JSON.stringify(join(t.root, "components/card/value.ts"))}, ${JSON.stringify(value(text))})`,
      ]);
      expect(await fromSocket()).toContain(text);
    }
  });

  it("follow a link re-pointed twice: an edit behind the second link is seen", async () => {
    const t = setup(
      {
        "components/store/v1/index.tsx": card("A"),
        "components/store/v1/value.ts": value("v1"),
        "components/store/v2/index.tsx": card("A"),
        "components/store/v2/value.ts": value("v2"),
      },
      { links: { "components/card": "store/v1" } },
    );
    const repoint = (target: string) => {
      const link = join(t.root, "components/card");
      symlinkSync(target, `${link}.tmp`);
      renameSync(`${link}.tmp`, link);
    };
    settleWrites();
    expect(await t.code()).toContain("v1");
    await nextTurn();
    repoint("store/v2");
    await nextTurn();
    expect(await t.code()).toContain("v2");
    await nextTurn();
    await t.code(); // confirmed, and watched from now on
    repoint("store/v1");
    await nextTurn();
    expect(await t.code()).toContain("v1");
    await nextTurn();
    await t.code();
    writeFileSync(join(t.root, "components/store/v1/value.ts"), value("v1-edited"));
    await nextTurn();
    expect(await t.code()).toContain("v1-edited");
  });

  it("follow what a path names now: a link re-pointed gets a watch of its own", async () => {
    const root = writeTree({ "v1/a.ts": "", "v2/a.ts": "" });
    const link = join(root, "current");
    symlinkSync("v1", link);
    const interest = [{ path: link, names: ["b.ts"], listing: false }];
    const first = watchRecord(interest);
    symlinkSync("v2", `${link}.tmp`);
    renameSync(`${link}.tmp`, link);
    const second = watchRecord(interest);
    expect(first).toBeDefined();
    expect(second).toBeDefined();
    second?.mark();
    second?.confirm();
    writeFileSync(join(root, "v2/b.ts"), "");
    await afterPoll();
    expect(second?.quiet()).toBe(false);
    first?.release();
    second?.release();
  });

  it("hear a file with another hard link written through that other name", async () => {
    const t = setup({
      "components/card/index.tsx": card("A"),
      "shared/value.ts": value("one"),
    });
    // The component's value.ts is the same inode as shared/value.ts (as a pnpm store does).
    linkSync(join(t.root, "shared/value.ts"), join(t.root, "components/card/value.ts"));
    settleWrites();
    await t.code();
    await nextTurn();
    await t.code();
    await nextTurn();
    expect(await t.code()).toContain("one"); // vouched for by the watches
    writeFileSync(join(t.root, "shared/value.ts"), value("two")); // no event in components/card
    await nextTurn();
    expect(await t.code()).toContain("two");
  });

  it("are not trusted on a file system whose changes may raise no event", () => {
    // procfs stands for them here (NFS, SMB, 9p, FUSE, virtiofs): its files change unannounced.
    expect(watchRecord([{ path: "/proc/self", names: ["status"], listing: false }])).toBe(
      undefined,
    );
    const root = writeTree({ "a.ts": "" });
    const local = watchRecord([{ path: root, names: ["a.ts"], listing: false }]);
    expect(local).toBeDefined();
    local?.release();
  });

  it("are confirmed by stats taken after them, not by ones shared from earlier in the turn", async () => {
    const files = {
      "components/card/index.tsx": `import { value } from "../../shared/value";\nexport default () => value;\n`,
      "shared/value.ts": value("one"),
    };
    const t = setup(files);
    // A second handler set's cache, checking by stats alone: it shares its stats within a turn.
    const statsOnly = new BundleCache(countingBundler(), { watch: false });
    settleWrites();
    await t.code();
    await statsOnly.get(t.component());
    await nextTurn();
    // In one turn: a stat of shared/value.ts, then an edit, then the first check that sets the
    // watches (which cannot hear an edit made before them).
    expect(statsOnly.peek(t.component())).toBeDefined();
    writeFileSync(join(t.root, "shared/value.ts"), value("two"));
    t.cache.peek(t.component());
    await nextTurn();
    expect(await t.code()).toContain("two");
  });

  it("tell who listens of an event a record cares about, not of other files, and watch at once", async () => {
    const t = setup({
      "components/card/index.tsx": card("A"),
      "components/card/value.ts": value("one"),
    });
    settleWrites();
    let heard = 0;
    const stop = onRecordChange(() => heard++);
    try {
      await t.code();
      await new Promise((resolve) => setTimeout(resolve, 20)); // the record, after the answer
      // Someone listens: the bundle asked for once is watched already.
      expect(watchedPaths()).toContain(join(t.root, "components", "card"));
      writeFileSync(join(t.root, "notes.md"), "not read by any bundle\n");
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(heard).toBe(0);
      writeFileSync(join(t.root, "components", "card", "value.ts"), value("two"));
      await vi.waitFor(() => expect(heard).toBeGreaterThan(0));
    } finally {
      stop();
    }
    const before = heard;
    writeFileSync(join(t.root, "components", "card", "value.ts"), value("three"));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(heard).toBe(before); // stopped
  });

  it("are let go with the bundles that hold them", async () => {
    const files: Record<string, string> = {};
    for (const name of ["a", "b", "c"]) {
      files[`components/${name}/index.tsx`] = card(name);
      files[`components/${name}/value.ts`] = value(name);
    }
    const t = setup(files);
    settleWrites();
    const ours = () => watchedPaths().filter((path) => path.startsWith(t.root));
    const dir = (name: string) => join(t.root, "components", name);
    for (const name of ["a", "b", "c"]) await t.code(name);
    expect(ours()).toEqual([]); // a bundle asked for once is not watched
    await nextTurn();
    for (const name of ["a", "b", "c"]) await t.code(name); // checked by stats, watched from now on
    expect(ours()).toEqual(expect.arrayContaining([dir("a"), dir("b"), dir("c")]));
    t.cache.invalidate(cn("b"));
    expect(ours()).toEqual(expect.arrayContaining([dir("a"), dir("c")]));
    expect(ours()).not.toContain(dir("b"));
    t.cache.invalidate();
    expect(ours()).toEqual([]);
  });
});
