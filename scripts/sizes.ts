/**
 * The shipped sources' sizes, as the house style bounds them: files over `MAX_FILE_LINES`
 * lines and functions over `MAX_FUNCTION_LINES` (a function's own lines, from its first line
 * to its last). `node scripts/sizes.ts` lists them; `test/house.test.ts` keeps the list empty.
 */
import { globSync, readFileSync } from "node:fs";
import ts from "typescript";

export const MAX_FILE_LINES = 500;
export const MAX_FUNCTION_LINES = 120;

/** Shipped sources: every package's `src/` (tests and test helpers aside) and the playground. */
export function shippedSources(root = "."): string[] {
  return globSync(
    ["packages/*/src/**/*.{ts,tsx}", "packages/server/playground/src/**/*.{ts,tsx}"],
    {
      cwd: root,
    },
  )
    .filter((file) => !/\.test\.tsx?$/.test(file) && !file.includes("/test/"))
    .sort();
}

export interface Oversize {
  file: string;
  /** The function's name (or `<file>` for the file itself). */
  what: string;
  lines: number;
}

/** What in `file` is over the bounds. */
export function oversizes(file: string, text = readFileSync(file, "utf8")): Oversize[] {
  const found: Oversize[] = [];
  const lines = text.split("\n").length;
  if (lines > MAX_FILE_LINES) found.push({ file, what: "<file>", lines });
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const visit = (node: ts.Node) => {
    if (ts.isFunctionLike(node) && "body" in node && node.body !== undefined) {
      const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const length = end - start + 1;
      if (length > MAX_FUNCTION_LINES) found.push({ file, what: nameOf(node), lines: length });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function nameOf(node: ts.Node): string {
  const named = node as { name?: ts.Node };
  if (named.name !== undefined) return named.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) {
    return parent.name.getText();
  }
  return "<anonymous>";
}

if (import.meta.main) {
  const all = shippedSources().flatMap((file) => oversizes(file));
  for (const { file, what, lines } of all) console.log(`${file}  ${what}  ${lines} lines`);
  // Silent when all is within bounds; otherwise the count, and a failing exit code.
  if (all.length > 0) {
    console.log(
      `${all.length} over ${MAX_FILE_LINES} lines a file or ${MAX_FUNCTION_LINES} a function`,
    );
    process.exitCode = 1;
  }
}
