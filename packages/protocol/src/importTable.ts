/**
 * Where a browser bundle's import statements stand, so the page can rewrite them without a
 * lexer of its own: the server lexes each bundle once (es-module-lexer, at bundle time) and
 * appends the result as one comment line, after the code and before the source map. The line
 * is part of the bundle's bytes, so its hash and integrity cover it.
 *
 * ```js
 * //# svcImports={"v":1,"i":[[1,0,31,25,30,"react"]],"x":["default"]}
 * ```
 *
 * Positions are UTF-16 offsets into the bundle's text (as `response.text()` decodes it) and
 * refer to the code before the line, so cutting the line out moves nothing they point at.
 */

/** How the line starts; it is the bundle's last line but for the source map comment. */
export const IMPORT_TABLE_PREFIX = "//# svcImports=";

const VERSION = 1;

/**
 * One import record, as es-module-lexer's minimal build reports it: `t` its kind (1 static,
 * 2 dynamic, 3 `import.meta`, 4 source phase, 6 defer phase, 8 `export *`), `ss`/`se` the
 * statement, `s`/`e` the specifier without its quotes, `n` the specifier's value.
 */
export interface ImportRecord {
  readonly t: number;
  readonly ss: number;
  readonly se: number;
  readonly s: number;
  readonly e: number;
  readonly n: string | undefined;
}

/** A bundle's code (the table's line cut out) and what the table says about it. */
export interface TabledModule {
  code: string;
  imports: ImportRecord[];
  /** The names the module exports. */
  exports: string[];
}

/** The line (with its line break) recording `imports` and the names in `exports`. */
export function formatImportTable(
  imports: readonly ImportRecord[],
  exports: readonly { readonly n: string }[],
): string {
  const i = imports.map((r) => [r.t, r.ss, r.se, r.s, r.e, r.n ?? null]);
  const x = exports.map((e) => e.n);
  return `${IMPORT_TABLE_PREFIX}${JSON.stringify({ v: VERSION, i, x })}\n`;
}

/**
 * Reads the table of `bundle` and returns its code without the table's line; undefined when
 * it has none (a bundle svc did not write). Throws when the line is there but unreadable, or
 * names a place outside the code.
 */
export function readImportTable(bundle: string): TabledModule | undefined {
  const at = bundle.lastIndexOf(`\n${IMPORT_TABLE_PREFIX}`);
  if (at === -1 && !bundle.startsWith(IMPORT_TABLE_PREFIX)) return undefined;
  const start = at === -1 ? 0 : at + 1;
  const lineEnd = bundle.indexOf("\n", start);
  const end = lineEnd === -1 ? bundle.length : lineEnd + 1;
  const table = JSON.parse(bundle.slice(start + IMPORT_TABLE_PREFIX.length, end)) as {
    v?: unknown;
    i?: unknown;
    x?: unknown;
  };
  if (table.v !== VERSION || !Array.isArray(table.i) || !Array.isArray(table.x)) {
    throw new Error(`unknown import table version ${JSON.stringify(table.v)}`);
  }
  const imports: ImportRecord[] = [];
  for (const row of table.i as unknown[]) {
    if (!Array.isArray(row) || row.length !== 6) throw new Error("malformed import table");
    const [t, ss, se, s, e, n] = row as unknown[];
    const inside = (p: unknown) =>
      Number.isInteger(p) && (p as number) >= -1 && (p as number) <= start;
    if (typeof t !== "number" || ![ss, se, s, e].every(inside)) {
      throw new Error("malformed import table");
    }
    if (n !== null && typeof n !== "string") throw new Error("malformed import table");
    imports.push({
      t,
      ss: ss as number,
      se: se as number,
      s: s as number,
      e: e as number,
      n: n ?? undefined,
    });
  }
  const exports = (table.x as unknown[]).filter((n): n is string => typeof n === "string");
  return { code: bundle.slice(0, start) + bundle.slice(end), imports, exports };
}
