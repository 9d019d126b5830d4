import { describe, expect, it } from "vitest";
import { forEachConcurrently } from "./forEachConcurrently.ts";

describe("forEachConcurrently", () => {
  it("runs every item once, starting them in order, never more than the limit at a time", async () => {
    const started: number[] = [];
    let running = 0;
    let most = 0;
    const gates = new Map<number, () => void>();
    const done = forEachConcurrently([1, 2, 3, 4, 5, 6], 2, async (item) => {
      started.push(item);
      most = Math.max(most, ++running);
      await new Promise<void>((resolve) => gates.set(item, resolve));
      running--;
    });
    // Release the items one by one, latest started first, so finishing out of order is covered.
    // Bounded, so a broken scheduler fails the test instead of spinning forever.
    for (let turn = 0; turn < 1000 && (started.length < 6 || running > 0); turn++) {
      await Promise.resolve();
      const open = [...gates.keys()].at(-1);
      if (open === undefined) continue;
      gates.get(open)?.();
      gates.delete(open);
    }
    await done;
    expect(started).toEqual([1, 2, 3, 4, 5, 6]);
    expect(most).toBe(2);
  });

  it("starts nothing for no items, and stops at the first failure's rejection", async () => {
    await forEachConcurrently([], 4, () => Promise.reject(new Error("never called")));
    await expect(
      forEachConcurrently([1, 2], 1, async (item) => {
        if (item === 1) throw new Error("first");
      }),
    ).rejects.toThrow("first");
  });
});
