import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { writeTree } from "../test/fixtures.ts";
import { createRebasingImporter, resolveSassFile } from "./sassImporter.ts";

describe("resolveSassFile", () => {
  const root = writeTree({
    "_theme.scss": "",
    "plain.css": "",
    "both.scss": "",
    "_both.scss": "",
    "old.import.scss": "",
    "old.scss": "",
    "kit/_index.sass": "",
  });

  it("finds files as Sass does: partials, extensions, index files, .import files for @import", () => {
    expect(resolveSassFile(join(root, "theme"), false)).toBe(join(root, "_theme.scss"));
    expect(resolveSassFile(join(root, "theme.scss"), false)).toBe(join(root, "_theme.scss"));
    expect(resolveSassFile(join(root, "plain"), false)).toBe(join(root, "plain.css"));
    expect(resolveSassFile(join(root, "kit"), false)).toBe(join(root, "kit/_index.sass"));
    expect(resolveSassFile(join(root, "old"), false)).toBe(join(root, "old.scss"));
    expect(resolveSassFile(join(root, "old"), true)).toBe(join(root, "old.import.scss"));
    expect(resolveSassFile(join(root, "missing"), false)).toBeUndefined();
  });

  it("refuses to choose between a partial and a file of the same name", () => {
    expect(() => resolveSassFile(join(root, "both"), false)).toThrow(
      "It's not clear which file to import. Found: _both.scss, both.scss",
    );
  });
});

describe("createRebasingImporter", () => {
  it("loads a partial with its url()s rebased onto the entry's folder", async () => {
    const root = writeTree({
      "shared/_theme.scss": "a { b: url(./bg.png); }\n",
      "shared/_tokens.sass": "a\n  b: url(img/x.svg)\n",
      "card/_near.scss": "a { b: url(./near.png); }\n",
    });
    const importer = createRebasingImporter(join(root, "card/index.scss"));
    const load = async (path: string) => {
      const url = importer.canonicalize(pathToFileURL(join(root, path)).href, {
        fromImport: false,
      });
      return url === null ? null : importer.load(url);
    };
    expect(await load("shared/theme")).toEqual({
      contents: "a { b: url(../shared/bg.png); }\n",
      syntax: "scss",
    });
    expect(await load("shared/tokens")).toEqual({
      contents: "a\n  b: url(../shared/img/x.svg)\n",
      syntax: "indented",
    });
    expect(await load("card/near")).toEqual({
      contents: "a { b: url(./near.png); }\n",
      syntax: "scss",
    });
    expect(importer.canonicalize("pkg:theme", { fromImport: false })).toBeNull();
  });
});
