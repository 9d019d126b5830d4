/**
 * The freshness state belongs to its handler set: two handler sets in one process share no
 * stats and hear only their own records' changes, while the `fs.watch` of a directory both
 * need is one (the inotify limit is the process's, not a handler set's). Real files, real
 * inotify, real esbuild.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { cn, settleWrites, writeTree } from "../test/fixtures.ts";
import { DirWatches, watchedPaths } from "./dirWatches.ts";
import { Freshness, unownedFreshness } from "./freshness.ts";
import { TurnStats } from "./turnStats.ts";

const card = `import { value } from "./value";\nexport default function Card() { return value; }\n`;
const value = (text: string) => `export const value = "${text}";\n`;

/** A handler set over a project of its own holding the card. */
function project() {
  const root = writeTree({
    "package.json": "{}",
    "components/card/index.tsx": card,
    "components/card/value.ts": value("one"),
  });
  const registry = new ComponentRegistry(join(root, "components"), { logger: silentLogger });
  const handlers = createHandlers(registry, { logger: silentLogger });
  return { root, handlers, freshness: Freshness.of(handlers) };
}

const later = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Freshness", () => {
  it("is one per owner, never the one of parts made without a handler set", () => {
    const a = {};
    const b = {};
    expect(Freshness.of(a)).toBe(Freshness.of(a));
    expect(Freshness.of(a)).not.toBe(Freshness.of(b));
    expect(Freshness.of(a)).not.toBe(unownedFreshness);
    expect(Freshness.of(a).stats).not.toBe(Freshness.of(b).stats);
    expect(Freshness.of(a).watches).not.toBe(Freshness.of(b).watches);
  });

  it("keeps each handler set's stats of a turn apart", () => {
    const root = writeTree({ "a.ts": "one\n" });
    const file = join(root, "a.ts");
    const [first, second] = [new TurnStats(), new TurnStats()];
    const before = first.shared(file, false);
    writeFileSync(file, "three\n"); // same turn: `first` answers from its memo, `second` stats
    expect(first.shared(file, false)).toBe(before);
    expect(second.shared(file, false)?.size).toBe(6n);
  });
});

describe.runIf(process.platform === "linux")("Freshness: watches", () => {
  it("tells a handler set's hearers of its own records' changes, not of another's", async () => {
    settleWrites(); // builds kept (not racy), so their records are watched
    const [a, b] = [project(), project()];
    const heard = { a: 0, b: 0 };
    const stopA = a.freshness.watches.onRecordChange(() => heard.a++);
    const stopB = b.freshness.watches.onRecordChange(() => heard.b++);
    try {
      await a.handlers.getBundle(cn("card"));
      await b.handlers.getBundle(cn("card"));
      await later(50); // the records, taken after the answers
      writeFileSync(join(b.root, "components/card/value.ts"), value("two"));
      await vi.waitFor(() => expect(heard.b).toBeGreaterThan(0));
      await later(100);
      expect(heard.a).toBe(0);
      writeFileSync(join(a.root, "components/card/value.ts"), value("two"));
      await vi.waitFor(() => expect(heard.a).toBeGreaterThan(0));
    } finally {
      stopA();
      stopB();
    }
  });

  it("shares one fs.watch of a directory between handler sets, told apart by name", async () => {
    const root = writeTree({ "a.ts": "", "b.ts": "" });
    const [first, second] = [new DirWatches(), new DirWatches()];
    const heard = { first: 0, second: 0 };
    first.onRecordChange(() => heard.first++);
    second.onRecordChange(() => heard.second++);
    const a = first.watch([{ path: root, names: ["a.ts"], listing: false }]);
    const b = second.watch([{ path: root, names: ["b.ts"], listing: false }]);
    expect(watchedPaths().filter((path) => path === root)).toHaveLength(1);
    a?.mark();
    a?.confirm();
    writeFileSync(join(root, "b.ts"), "changed\n");
    await vi.waitFor(() => expect(heard.second).toBeGreaterThan(0));
    await later(50);
    expect(heard.first).toBe(0);
    expect(a?.quiet()).toBe(true); // b.ts is none of its business
    a?.release();
    expect(watchedPaths()).toContain(root); // still held by the other
    b?.release();
    expect(watchedPaths()).not.toContain(root);
  });
});
