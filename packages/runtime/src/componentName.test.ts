import { describe, expect, it } from "vitest";
import { assertComponentName, componentNameProblem, fileSafeName } from "./componentName.ts";

describe("componentName", () => {
  it("accepts kebab-case names as the server does", () => {
    for (const name of ["product-card", "ui.product-card", "my-shop:nav2-item", "counter"]) {
      expect(() => assertComponentName(name), name).not.toThrow();
      expect(componentNameProblem(name)).toBeUndefined();
    }
    expect(fileSafeName("my-shop:product-card")).toBe("my-shop--product-card");
  });

  it("refuses malformed kebab-case and a last part of 12 hex digits, saying why", () => {
    for (const name of ["-a", "a-", "a--b", "A-b", "a_b-c"]) {
      expect(() => assertComponentName(name), name).toThrow(/kebab-case/);
    }
    expect(() => assertComponentName("card-3f2a9c0b1d4e")).toThrow(
      'Invalid component name "card-3f2a9c0b1d4e": its last part "3f2a9c0b1d4e" is 12 hex digits',
    );
  });
});
