import { describe, expect, it } from "vitest";
import {
  componentNameProblem,
  fileSafeName,
  fromFileSafeName,
  isValidName,
  isValidSegment,
  joinName,
} from "./names.ts";

describe("names", () => {
  it("accepts dotted identifiers with an optional prefix", () => {
    for (const name of ["counter", "ui.button", "app:header", "_a.b_2.C", "x:y.z"]) {
      expect(isValidName(name), name).toBe(true);
    }
  });

  it("accepts kebab-case segments and prefixes, mixed with identifiers", () => {
    const good = [
      "product-card",
      "nav2-item",
      "a-b",
      "a-1",
      "grid-2col",
      "x1-y2-z3",
      "ui.product-card",
      "product-card.Header",
      "shop:product-card",
      "my-shop:ui.product-card",
      "my-shop:Button",
      "card-0123456789ab.body",
      "card-0123456789a",
      "card-0123456789abc",
    ];
    for (const name of good) expect(isValidName(name), name).toBe(true);
    for (const segment of ["product-card", "nav2-item", "my_widget", "_x"]) {
      expect(isValidSegment(segment), segment).toBe(true);
    }
  });

  it("rejects every malformed shape", () => {
    const bad = [
      "",
      "..",
      "a..b",
      ".a",
      "a.",
      "a/b",
      "a\\b",
      "%2e%2e",
      "a:b:c",
      ":a",
      "a:",
      "1a",
      "a\0b",
      "a".repeat(201),
      "ä",
    ];
    for (const name of bad) expect(isValidName(name), JSON.stringify(name)).toBe(false);
  });

  it("rejects malformed kebab-case", () => {
    const bad = [
      "-a",
      "a-",
      "a--b",
      "A-b",
      "a-B",
      "a_b-c",
      "a-b_c",
      "1-a",
      "2col-grid",
      "ui.-a",
      "a-.b",
      "a--b:c",
      "-a:b",
      "a-:b",
      "a:-b",
      "a b-c",
      "é-a",
    ];
    for (const name of bad) expect(isValidName(name), JSON.stringify(name)).toBe(false);
    for (const segment of ["-a", "a-", "a--b", "A-b", "a_b-c", "a.b", "1a"]) {
      expect(isValidSegment(segment), segment).toBe(false);
    }
  });

  it("refuses a last part of exactly 12 hex digits: the shape of a stylesheet file's name", () => {
    for (const name of ["card-3f2a9c0b1d4e", "ui.card-000000000000", "shop:a-b-abcdefabcdef"]) {
      expect(isValidName(name), name).toBe(false);
      expect(componentNameProblem(name)).toMatch(/12 hex digits/);
    }
  });

  it("says why a name is invalid", () => {
    expect(componentNameProblem("product-card")).toBeUndefined();
    expect(componentNameProblem("a--b")).toMatch(/identifier .* or kebab-case/);
    expect(componentNameProblem("a_b:c")).toBeUndefined();
    expect(componentNameProblem("-a:c")).toBe(
      "the prefix before the colon must be an identifier or kebab-case",
    );
  });

  it("joins path segments with dots behind the prefix", () => {
    expect(joinName(["ui", "button"])).toBe("ui.button");
    expect(joinName(["header"], "app")).toBe("app:header");
    expect(joinName(["header"], "")).toBe("header");
    expect(joinName(["ui", "product-card"], "my-shop")).toBe("my-shop:ui.product-card");
  });

  it("maps names to file-safe names and back", () => {
    expect(fileSafeName("app:ui.button")).toBe("app--ui.button");
    expect(fromFileSafeName("app--ui.button")).toBe("app:ui.button");
    expect(fileSafeName("my-shop:product-card")).toBe("my-shop--product-card");
    expect(fromFileSafeName("my-shop--product-card")).toBe("my-shop:product-card");
  });
});
