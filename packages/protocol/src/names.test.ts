import { describe, expect, it } from "vitest";
import { fileSafeName, fromFileSafeName, isValidName, joinName } from "./names.ts";

describe("names", () => {
  it("accepts dotted identifiers with an optional prefix", () => {
    for (const name of ["counter", "ui.button", "app:header", "_a.b_2.C", "x:y.z"]) {
      expect(isValidName(name), name).toBe(true);
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
      "a-b",
      "a\0b",
      "a".repeat(201),
      "ä",
    ];
    for (const name of bad) expect(isValidName(name), JSON.stringify(name)).toBe(false);
  });

  it("joins path segments with dots behind the prefix", () => {
    expect(joinName(["ui", "button"])).toBe("ui.button");
    expect(joinName(["header"], "app")).toBe("app:header");
    expect(joinName(["header"], "")).toBe("header");
  });

  it("maps names to file-safe names and back", () => {
    expect(fileSafeName("app:ui.button")).toBe("app--ui.button");
    expect(fromFileSafeName("app--ui.button")).toBe("app:ui.button");
  });
});
