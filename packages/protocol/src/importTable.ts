/**
 * Where a browser bundle's import statements stand, so the page can rewrite them without a
 * lexer of its own: the server lexes each bundle once (es-module-lexer, at bundle time) and
 * appends the result as one comment line, after the code and before the source map. The line
 * is part of the bundle's bytes, so its hash and integrity cover it.
 *
 * ```js
 * //# svcImports={"v":3,"i":[[1,1,32,26,31,"react",[null,null,[["useState","useState","u"]]]]],"x":["default"]}
 * ```
 *
 * Each static import and re-export also carries its clause, read by the server with a small
 * grammar (what lies between the keyword and the specifier), so the page parses nothing.
 *
 * Positions are UTF-16 offsets into the bundle's text (as `response.text()` decodes it) and
 * refer to the code before the line, so cutting the line out moves nothing they point at.
 *
 * A tabled bundle's first line is empty, reserved for whoever rewrites its imports: the page
 * writes the declarations that replace them there (and a server bundle its `require`s), so no
 * line of the code moves and its source map holds as written, with nothing to decode.
 */

/** How the line starts; it is the bundle's last line but for the source map comment. */
export const IMPORT_TABLE_PREFIX = "//# svcImports=";

/** How a tabled bundle starts: its empty first line, where a rewrite puts its declarations. */
export const RESERVED_LINE = "\n";

// 3: the first line is reserved (2 had none; an older svc build's output must be rebuilt).
const VERSION = 3;

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
  /** The clause of a static import or re-export (as the server read it); else absent. */
  readonly c?: ImportClause | ReexportClause;
}

/**
 * An import statement's bindings: `[default, namespace, named]`, each named binding
 * `[imported, key, local]` — `key` the imported name as written (a string literal keeps its
 * quotes), `imported` its value (null when the literal has escapes: not checked).
 */
export type ImportClause = [
  string | null,
  string | null,
  [imported: string | null, key: string, local: string][],
];

/**
 * A re-export statement's clause: `0` for `export * from`, `[as]` for `export * as ns from`,
 * or `{ a as b, "c" as d }` as `[imported, key, as]` triples in an object's `n`.
 */
export type ReexportClause =
  | 0
  | [as: string]
  | { n: [imported: string | null, key: string, as: string][] };

/** A bundle's code (the table's line cut out) and what the table says about it. */
export interface TabledModule {
  code: string;
  imports: ImportRecord[];
  /** The names the module exports. */
  exports: string[];
}

/**
 * The line (with its line break) recording `imports` and the names in `exports`. Each static
 * import and re-export carries its clause (`c`), which the server reads (its clause grammar);
 * the page parses none.
 */
export function formatImportTable(
  code: string,
  imports: readonly ImportRecord[],
  exports: readonly { readonly n: string }[],
): string {
  if (!code.startsWith(RESERVED_LINE)) {
    throw new Error("svc: a tabled module's first line must be empty (RESERVED_LINE)");
  }
  const i = imports.map((r) => {
    const row: unknown[] = [r.t, r.ss, r.se, r.s, r.e, r.n ?? null];
    if (isStatic(r.t)) {
      if (r.c === undefined) throw new Error("svc: a static import's record needs its clause");
      row.push(r.c);
    }
    return row;
  });
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
  if (table.v !== VERSION) {
    throw new Error(
      `import table version ${JSON.stringify(table.v)}, not ${VERSION}: built by another svc; build it again`,
    );
  }
  if (!Array.isArray(table.i) || !Array.isArray(table.x)) throw new Error("malformed import table");
  if (!bundle.startsWith(RESERVED_LINE)) throw new Error("malformed import table");
  const imports: ImportRecord[] = [];
  for (const row of table.i as unknown[]) {
    if (!Array.isArray(row) || row.length < 6) throw new Error("malformed import table");
    const [t, ss, se, s, e, n, c] = row as unknown[];
    const inside = (p: unknown) =>
      Number.isInteger(p) && (p as number) >= -1 && (p as number) <= start;
    if (typeof t !== "number" || ![ss, se, s, e].every(inside)) {
      throw new Error("malformed import table");
    }
    if (n !== null && typeof n !== "string") throw new Error("malformed import table");
    if (isStatic(t) !== (c === 0 || (typeof c === "object" && c !== null))) {
      throw new Error("malformed import table");
    }
    const record: { -readonly [K in keyof ImportRecord]: ImportRecord[K] } = {
      t,
      ss: ss as number,
      se: se as number,
      s: s as number,
      e: e as number,
      n: n ?? undefined,
    };
    if (isStatic(t)) record.c = c as ImportClause | ReexportClause;
    imports.push(record);
  }
  const exports = (table.x as unknown[]).filter((n): n is string => typeof n === "string");
  return { code: bundle.slice(0, start) + bundle.slice(end), imports, exports };
}

/** Static imports and re-exports (with or without a `defer` phase): those with a clause. */
export function isStatic(t: number): boolean {
  return t === 1 || t === 6 || t === 8;
}
