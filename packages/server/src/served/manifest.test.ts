import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { writeTree } from "../test/fixtures.ts";
import { ManifestError, parseManifest, readManifest, resolveBuildDir } from "./manifest.ts";

const good = {
  card: {
    file: "bundles/card.0123456789ab.js",
    hash: "0123456789ab",
    integrity: "sha384-AAAA",
    size: 12,
  },
  "app:ui.button": { file: "bundles/app--ui.button.ba9876543210.js", hash: "ba9876543210" },
};

describe("parseManifest", () => {
  it("accepts a manifest keyed by component name, keeping file, hash, integrity and size", () => {
    expect(parseManifest(JSON.stringify({ ...good, card: { ...good.card, extra: 1 } }))).toEqual(
      good,
    );
  });

  it.each([
    ["{", /^m\.json is not valid JSON: /],
    ["[]", /^m\.json must hold a JSON object keyed by component name, not an array$/],
    ["null", /not null$/],
    [{ "a/b": good.card }, /entry "a\/b": the key is not a valid component name/],
    [{ card: "bundles/x.js" }, /entry "card" must be an object with "file" and "hash"/],
    [{ card: { hash: "0123456789ab" } }, /entry "card" has no "file"/],
    [{ card: { file: "bundles/card.js" } }, /entry "card" has no "hash"/],
    [{ card: { file: "bundles/card.js", hash: "XYZ" } }, /"hash" "XYZ" is not lowercase hex/],
    [{ card: { ...good.card, file: "../secret.js" } }, /"file" "..\/secret.js" points outside/],
    [{ card: { ...good.card, file: "/etc/passwd" } }, /points outside the build directory/],
    [{ card: { ...good.card, file: "bundles/../../x.js" } }, /points outside/],
    [{ card: { ...good.card, file: "bundles\\..\\..\\x.js" } }, /points outside/],
    [{ card: { ...good.card, file: "C:/x.js" } }, /points outside/],
    [{ card: { ...good.card, integrity: "md5-abc" } }, /"integrity" must look like "sha384-/],
    [{ card: { ...good.card, size: -1 } }, /"size" must be a whole number of bytes/],
  ])("rejects %j with a message naming the problem", (value, message) => {
    const text = typeof value === "string" ? value : JSON.stringify(value);
    expect(() => parseManifest(text, "m.json")).toThrow(ManifestError);
    expect(() => parseManifest(text, "m.json")).toThrow(message);
  });
});

describe("readManifest", () => {
  it("tells how to create a missing manifest", () => {
    const dir = writeTree({ "bundles/README": "" });
    expect(() => readManifest(dir)).toThrow(
      `${join(dir, "manifest.json")} does not exist — run \`svc build --output ${dir}\` first`,
    );
  });
});

describe("resolveBuildDir", () => {
  const built = writeTree({ "manifest.json": "{}" });
  const unbuilt = writeTree({ "README.md": "" });

  it("uses SVC_BUILD_DIR when set, whatever the default", () => {
    expect(resolveBuildDir(unbuilt, { SVC_BUILD_DIR: built })).toBe(built);
    expect(resolveBuildDir(undefined, { SVC_BUILD_DIR: built })).toBe(built);
  });

  it("disables pre-built bundles when SVC_BUILD_DIR is the empty string", () => {
    expect(resolveBuildDir(built, { SVC_BUILD_DIR: "" })).toBeUndefined();
  });

  it("falls back to the default path only when it holds manifest.json, when unset", () => {
    expect(resolveBuildDir(built, {})).toBe(built);
    expect(resolveBuildDir(unbuilt, {})).toBeUndefined();
    expect(resolveBuildDir(join(unbuilt, "missing"), {})).toBeUndefined();
    expect(resolveBuildDir(undefined, {})).toBeUndefined();
  });

  it("reads process.env by default", () => {
    const saved = process.env.SVC_BUILD_DIR;
    try {
      process.env.SVC_BUILD_DIR = "";
      expect(resolveBuildDir(built)).toBeUndefined();
      delete process.env.SVC_BUILD_DIR;
      expect(resolveBuildDir(built)).toBe(built);
    } finally {
      if (saved === undefined) delete process.env.SVC_BUILD_DIR;
      else process.env.SVC_BUILD_DIR = saved;
    }
  });
});
