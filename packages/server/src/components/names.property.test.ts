import { join, relative, resolve, sep } from "node:path";
import {
  fileSafeName,
  fromFileSafeName,
  isValidName,
  MAX_NAME_LENGTH,
  STYLESHEET_FILE,
} from "@svc/protocol";
import fc from "fast-check";
import { describe, expect, it } from "vitest";

const identifier = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,11}$/);
const kebab = fc.stringMatching(/^[a-z][a-z0-9]{0,5}(?:-[a-z0-9]{1,6}){1,3}$/);
const segment = fc.oneof(identifier, kebab);
const validName = fc
  .tuple(fc.option(segment, { nil: undefined }), fc.array(segment, { minLength: 1, maxLength: 6 }))
  .map(([prefix, segments]) => (prefix ? `${prefix}:${segments.join(".")}` : segments.join(".")))
  .filter((name) => !/-[0-9a-f]{12}$/.test(name));

/** Kebab names whose last part is 11 to 13 characters of hex digits, or almost. */
const hexEnded = fc
  .tuple(
    fc.option(segment, { nil: undefined }),
    kebab,
    fc.stringMatching(/^[0-9a-g]{11,13}$/),
    fc.constantFrom("", ".css"),
  )
  .map(([prefix, head, tail]) => `${prefix ? `${prefix}:` : ""}${head}-${tail}`);

/** Strings biased toward the characters that matter for names and paths. */
const hostile = fc.string({
  unit: fc.constantFrom(
    "a",
    "b",
    "Z",
    "_",
    "1",
    ".",
    ":",
    "/",
    "\\",
    "%",
    "-",
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

/** The rule, written out a second way: by splitting, not by one expression. */
function expectedValid(name: string): boolean {
  if (name.length === 0 || name.length > MAX_NAME_LENGTH) return false;
  const colonParts = name.split(":");
  if (colonParts.length > 2) return false;
  const path = colonParts.at(-1) as string;
  const isIdentifier = (s: string) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(s);
  const isKebab = (s: string) => {
    const parts = s.split("-");
    return parts.length > 1 && /^[a-z]/.test(s) && parts.every((p) => /^[a-z0-9]+$/.test(p));
  };
  const isSegment = (s: string) => isIdentifier(s) || isKebab(s);
  if (colonParts.length === 2 && !isSegment(colonParts[0] as string)) return false;
  const segments = path.split(".");
  if (!segments.every(isSegment)) return false;
  const lastParts = (segments.at(-1) as string).split("-");
  return lastParts.length === 1 || !/^[0-9a-f]{12}$/.test(lastParts.at(-1) as string);
}

describe("names (properties)", () => {
  it("accepts every dotted path of identifiers and kebab-case segments, with an optional prefix", () => {
    fc.assert(fc.property(validName, (name) => name.length > MAX_NAME_LENGTH || isValidName(name)));
  });

  it("round-trips every valid name through the file-safe form, which holds no colon", () => {
    fc.assert(
      fc.property(fc.oneof(validName, hostile, hexEnded), (name) => {
        fc.pre(isValidName(name));
        const safe = fileSafeName(name);
        return !safe.includes(":") && fromFileSafeName(safe) === name;
      }),
    );
  });

  it("gives two valid names two file-safe names (kebab names hold no --)", () => {
    fc.assert(
      fc.property(validName, validName, (a, b) => {
        expect(a.includes("--")).toBe(false);
        return a === b || fileSafeName(a) !== fileSafeName(b);
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

  it("never gives a component's stylesheet URL the shape of a bundle's stylesheet file", () => {
    // `/bundles/<name>.css` is a component's whole stylesheet, `/bundles/<stem>-<12 hex>.css`
    // a file of a bundle: no valid name may read as the second.
    fc.assert(
      fc.property(fc.oneof(validName, hexEnded, hostile), (name) => {
        fc.pre(isValidName(name));
        return (
          !STYLESHEET_FILE.test(`${name}.css`) && !STYLESHEET_FILE.test(`${fileSafeName(name)}.css`)
        );
      }),
      { numRuns: 2000 },
    );
  });

  it("decides validity as the rule says, for hostile strings and near-reserved names", () => {
    fc.assert(
      fc.property(fc.oneof(hostile, hexEnded, validName), (name) => {
        expect([name, isValidName(name)]).toEqual([name, expectedValid(name)]);
      }),
      { numRuns: 3000 },
    );
  });
});
