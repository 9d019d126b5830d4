import { describe, expect, it } from "vitest";
import { andThen } from "./maybePromise.ts";

describe("andThen", () => {
  it("calls the step at once for a value: no promise, no microtask", () => {
    const order: string[] = [];
    const result = andThen(2, (n) => {
      order.push("step");
      return n * 3;
    });
    order.push("after");
    expect(result).toBe(6);
    expect(order).toEqual(["step", "after"]);
  });

  it("chains the step on a promise, and hands a rejection on untouched", async () => {
    const result = andThen(Promise.resolve(2), (n) => n * 3);
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe(6);
    let called = false;
    const failed = andThen(Promise.reject(new Error("no")), () => {
      called = true;
    });
    await expect(failed).rejects.toThrow("no");
    expect(called).toBe(false);
  });

  it("settles as soon as the hand-written `.then` would: in the same microtask", async () => {
    const order: string[] = [];
    const value = Promise.resolve(1);
    void andThen(value, () => order.push("helper"));
    void value.then(() => order.push("by hand"));
    await value;
    expect(order).toEqual(["helper", "by hand"]);
  });

  it("passes a step's own promise through for a value", async () => {
    const result = andThen(1, (n) => Promise.resolve(n + 1));
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toBe(2);
  });
});
