import { join, relative, resolve, sep } from "node:path";
import { fileSafeName, fromFileSafeName, isValidName, MAX_NAME_LENGTH } from "@svc/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const segment = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);
const validName = fc
  .tuple(fc.option(segment, { nil: undefined }), fc.array(segment, { minLength: 1, maxLength: 6 }))
  .map(([prefix, segments]) => (prefix ? `${prefix}:${segments.join(".")}` : segments.join(".")));

/** Strings biased toward the characters that matter for names and paths. */
const hostile = fc.string({
  unit: fc.constantFrom(
    "a",
    "Z",
    "_",
    "1",
    ".",
    ":",
    "/",
    "\\",
    "%",
    "-",
    "\0",
    " ",
    "é",
    "‥",
    "．",
    "／",
  ),
  maxLength: 40,
});

describe("names (properties)", () => {
  it("accepts every dotted identifier path with an optional prefix", () => {
    fc.assert(fc.property(validName, (name) => name.length > MAX_NAME_LENGTH || isValidName(name)));
  });

  it("round-trips every valid name through the file-safe form", () => {
    fc.assert(
      fc.property(validName, (name) => {
        const safe = fileSafeName(name);
        return !safe.includes(":") && fromFileSafeName(safe) === name;
      }),
    );
  });

  it("never maps a valid name outside the bundles directory", () => {
    const bundles = resolve("/srv/build/bundles");
    fc.assert(
      fc.property(fc.oneof(validName, hostile), (name) => {
        fc.pre(isValidName(name));
        const file = resolve(bundles, `${fileSafeName(name)}.0123456789ab.js`);
        const rel = relative(bundles, file);
        return !rel.startsWith("..") && !rel.includes(sep) && join(bundles, rel) === file;
      }),
    );
  });

  it("rejects every name with a character outside the alphabet, an empty segment or two colons", () => {
    fc.assert(
      fc.property(hostile, (name) => {
        const segments = name.split(":");
        const plausible =
          segments.length <= 2 &&
          segments.every((part, i) =>
            (i < segments.length - 1 ? [part] : part.split(".")).every((s) =>
              /^[A-Za-z_][A-Za-z0-9_]*$/.test(s),
            ),
          );
        expect(isValidName(name)).toBe(plausible && name.length <= MAX_NAME_LENGTH);
      }),
      { numRuns: 2000 },
    );
  });
});
