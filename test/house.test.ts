/**
 * The house rules a reader can check with `ls` and `git grep` (docs/STYLE.md, issue 35): no
 * shipped source file over 500 lines nor function over 120 (`scripts/sizes.ts`), and the wire
 * — route paths, `data-svc-*` attribute names, the content-hash pattern — spelled only in
 * `@svc/protocol`, imported everywhere else.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { MAX_FILE_LINES, MAX_FUNCTION_LINES, oversizes, shippedSources } from "../scripts/sizes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Shipped sources outside `@svc/protocol` (tests and test helpers aside), for `git grep`. */
const OUTSIDE_PROTOCOL = [
  "packages/*/src/**",
  "packages/server/playground/src/**",
  ":!packages/protocol/**",
  ":!*.test.*",
  ":!**/test/**",
];

/** What only `@svc/protocol` may spell (POSIX extended regular expressions, as JS reads them too). */
const WIRE = {
  /** A string that starts with an endpoint's path: `"/bundles`, `` `/loader.js``, `"/health"`. */
  routes:
    '["`]/(bundles|loader\\.(dev\\.|extras\\.|esm\\.)?js|islands(\\.js)?|health|events|vendor/|static/)',
  /** An island attribute's name: `data-svc-component`, `data-svc-props`, … */
  attributes: "data-svc-",
  /** The content hash's length, written out: `[0-9a-f]{12}`, `slice(0, 12)`. */
  hash: "\\[0-9a-f\\]\\{12\\}|slice\\(0, 12\\)",
} as const;

/**
 * Whether a `git grep -n` hit is code, not a comment: a line that starts a comment (`*`, `//`,
 * `/*`) is not, and a trailing `// …` is cut off before the pattern is tried again.
 */
function inCode(hit: string, pattern: RegExp): boolean {
  const text = hit.replace(/^[^:]+:\d+:/, "");
  if (/^\s*(\*|\/\/|\/\*)/.test(text)) return false;
  return pattern.test(text.replace(/(^|\s)\/\/.*$/, ""));
}

/** The hits of `pattern` in code outside `@svc/protocol`, as `file:line:text`. */
function spelledOutside(pattern: string): string[] {
  let out: string;
  try {
    out = execFileSync("git", ["grep", "--untracked", "-nE", pattern, "--", ...OUTSIDE_PROTOCOL], {
      cwd: root,
      encoding: "utf8",
    });
  } catch (error) {
    // `git grep` exits 1 when nothing matches.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
  const regex = new RegExp(pattern);
  return out.split("\n").filter((hit) => hit !== "" && inCode(hit, regex));
}

describe("house", () => {
  it(`keeps every shipped file within ${MAX_FILE_LINES} lines and every function within ${MAX_FUNCTION_LINES}`, () => {
    const files = shippedSources(root);
    expect(files.length).toBeGreaterThan(100);
    const over = files.flatMap((file) =>
      oversizes(join(root, file)).map(({ what, lines }) => `${file} ${what} ${lines}`),
    );
    expect(over).toEqual([]);
  });

  it("measures what it bounds: a long file and a long function are reported", () => {
    const body = Array.from({ length: MAX_FUNCTION_LINES }, (_, i) => `  const a${i} = ${i};`);
    const long = `function long() {\n${body.join("\n")}\n}\n`;
    expect(oversizes("long.ts", long).map((o) => o.what)).toEqual(["long"]);
    const big = "const x = 1;\n".repeat(MAX_FILE_LINES);
    expect(oversizes("big.ts", big).map((o) => o.what)).toEqual(["<file>"]);
  });

  it.each(Object.entries(WIRE))("spells the wire's %s only in @svc/protocol", (_, pattern) => {
    expect(spelledOutside(pattern)).toEqual([]);
  });

  it("tells a spelled name from one in a comment", () => {
    const attributes = new RegExp(WIRE.attributes);
    expect(inCode('a.ts:1:  el.getAttribute("data-svc-props");', attributes)).toBe(true);
    expect(inCode("a.ts:2: * reads `data-svc-props`", attributes)).toBe(false);
    expect(inCode('a.ts:3:  f(x); // the "data-svc-props" JSON', attributes)).toBe(false);
    const routes = new RegExp(WIRE.routes);
    expect(inCode("a.ts:4:  const url = `/bundles/${name}.js`;", routes)).toBe(true);
    expect(inCode('a.ts:5:  fetch("/health")', routes)).toBe(true);
    expect(inCode('a.ts:7:  const other = "/api/things"', routes)).toBe(false);
    const hash = new RegExp(WIRE.hash);
    expect(inCode("a.ts:8:  digest.slice(0, 12)", hash)).toBe(true);
    expect(inCode("a.ts:9:  const H = /^[0-9a-f]{12}$/;", hash)).toBe(true);
  });
});
