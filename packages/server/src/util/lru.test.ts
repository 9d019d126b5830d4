import { describe, expect, it } from "vitest";
import { ByteLru } from "./lru.ts";

const bytes = (n: number) => new Uint8Array(n);

function lru(maxBytes: number) {
  const dropped: number[] = [];
  const cache = new ByteLru<string, Uint8Array>(
    maxBytes,
    (value) => value.byteLength,
    (value) => dropped.push(value.byteLength),
  );
  return { cache, dropped };
}

describe("ByteLru", () => {
  it("keeps the total size within its bound, evicting the least recently used first", () => {
    const { cache, dropped } = lru(10);
    cache.set("a", bytes(4));
    cache.set("b", bytes(4));
    expect(cache.get("a")?.byteLength).toBe(4); // a is now the most recent
    cache.set("c", bytes(4));
    expect(cache.peek("b")).toBeUndefined();
    expect(cache.peek("a")).toBeDefined();
    expect(cache.bytes).toBe(8);
    expect(cache.size).toBe(2);
    expect(dropped).toEqual([4]);
  });

  it("leaves recency alone on peek", () => {
    const { cache } = lru(8);
    cache.set("a", bytes(4));
    cache.set("b", bytes(4));
    cache.peek("a");
    cache.set("c", bytes(4));
    expect(cache.peek("a")).toBeUndefined();
    expect(cache.peek("b")).toBeDefined();
  });

  it("tells of every value that leaves: replaced, deleted, cleared — not one set again", () => {
    const { cache, dropped } = lru(100);
    const a = bytes(1);
    cache.set("a", a);
    cache.set("a", a);
    expect(dropped).toEqual([]);
    cache.set("a", bytes(2));
    expect(dropped).toEqual([1]);
    cache.set("b", bytes(3));
    cache.delete("a");
    cache.delete("nothing");
    expect(dropped).toEqual([1, 2]);
    cache.clear();
    expect(dropped).toEqual([1, 2, 3]);
    expect([cache.size, cache.bytes]).toEqual([0, 0]);
  });

  it("does not keep a value larger than the whole bound, and tells of it", () => {
    const { cache, dropped } = lru(10);
    cache.set("a", bytes(4));
    expect(cache.set("a", bytes(11))).toBe(false);
    expect(cache.peek("a")).toBeUndefined();
    expect(dropped).toEqual([4, 11]);
    expect(cache.set("b", bytes(10))).toBe(true);
  });

  it("keeps empty values (an empty asset) too", () => {
    const { cache } = lru(10);
    expect(cache.set("empty", bytes(0))).toBe(true);
    expect(cache.get("empty")?.byteLength).toBe(0);
  });
});
