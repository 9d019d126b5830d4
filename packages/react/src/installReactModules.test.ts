import { afterEach, beforeEach, describe, expect, it } from "vitest";
import * as index from "./index.ts";
import { installReactModules } from "./installReactModules.ts";

describe("installReactModules", () => {
  let before: typeof globalThis.__MODULES__;
  beforeEach(() => {
    before = globalThis.__MODULES__;
    globalThis.__MODULES__ = {};
  });
  afterEach(() => {
    globalThis.__MODULES__ = before;
  });

  it("gives components every export of the package's index, the very same values", () => {
    installReactModules();
    const installed = globalThis.__MODULES__?.["@svc/react"] as Record<string, unknown>;
    const exported = index as Record<string, unknown>;
    expect(Object.keys(installed).sort()).toEqual(Object.keys(exported).sort());
    for (const name of Object.keys(exported)) expect(installed[name], name).toBe(exported[name]);
    expect(Object.getPrototypeOf(installed)).toBeNull();
    expect(Object.prototype.toString.call(installed)).toBe("[object Module]");
  });

  it("installs React and the extra modules, keeping what the page registered first", () => {
    const pageReact = { own: true };
    globalThis.__MODULES__ = { react: pageReact };
    const goober = { setup() {} };
    installReactModules({ goober });
    expect(globalThis.__MODULES__.react).toBe(pageReact);
    expect(globalThis.__MODULES__.goober).toBe(goober);
    expect(globalThis.__MODULES__["react/jsx-runtime"]).toBeDefined();
    expect(globalThis.__MODULES__["@svc/react"]).toBeDefined();
  });
});
