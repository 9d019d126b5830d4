/**
 * The clauses of a bundle's import statements, read once on the server so the page parses
 * none: what lies between the `import`/`export` keyword and the specifier, which the lexer
 * (es-module-lexer) has already located exactly. Written into the bundle's import table
 * (`formatImportTable` of `@svc/protocol`).
 */
import {
  formatImportTable,
  type ImportClause,
  type ImportRecord,
  isStatic,
  type ReexportClause,
} from "@svc/protocol";

/** A record as the lexer reports it: without its clause. */
export type LexedImport = Omit<ImportRecord, "c">;

/** The import table line of `code`: `imports` and `exports` as the lexer found them. */
export function importTableLine(
  code: string,
  imports: readonly LexedImport[],
  exports: readonly { readonly n: string }[],
): string {
  return formatImportTable(code, withClauses(code, imports), exports);
}

/**
 * `imports` with the clause of each static import and re-export read from `code`.
 * @throws Error naming the statement when a clause is not in the grammar
 */
export function withClauses(code: string, imports: readonly LexedImport[]): ImportRecord[] {
  return imports.map((r) => {
    if (!isStatic(r.t)) return { ...r };
    const c = code.startsWith("export", r.ss)
      ? parseReexportClause(code, r)
      : parseImportClause(code, r);
    return { ...r, c };
  });
}

function unreadable(code: string, record: LexedImport): () => never {
  return () => {
    throw new Error(`cannot read the import statement \`${code.slice(record.ss, record.se)}\``);
  };
}

/** Parses the bindings of `import <clause> from "x"`. */
function parseImportClause(code: string, record: LexedImport): ImportClause {
  const start = record.ss + "import".length;
  // `record.s` is the first character of the specifier, just after its opening quote.
  const tokens = tokenize(code, start, record.s - 1);
  const fail = unreadable(code, record);
  const clause: ImportClause = [null, null, []];
  if (tokens.length === 0) return clause;
  if (tokens.pop() !== "from") fail();
  if (record.t === 6 && tokens[0] === "defer") tokens.shift();
  let i = 0;
  const next = () => tokens[i++] ?? fail();
  const identifier = () => {
    const token = next();
    if (isPunctuator(token) || isQuoted(token)) fail();
    return token;
  };
  const namespace = () => {
    if (next() !== "as") fail();
    clause[1] = identifier();
  };
  const named = () => {
    while (tokens[i] !== "}") {
      const token = next();
      if (token === "," || token === "}") fail();
      const quoted = isQuoted(token);
      let localName = token;
      if (tokens[i] === "as") {
        i++;
        localName = identifier();
      } else if (quoted) {
        fail();
      }
      clause[2].push([quoted ? unquote(token) : token, token, localName]);
      if (tokens[i] === ",") i++;
      else if (tokens[i] !== "}") fail();
    }
    i++;
  };
  const first = next();
  if (first === "*") namespace();
  else if (first === "{") named();
  else {
    if (isPunctuator(first)) fail();
    clause[0] = first;
    if (i < tokens.length) {
      if (next() !== ",") fail();
      const second = next();
      if (second === "*") namespace();
      else if (second === "{") named();
      else fail();
    }
  }
  if (i !== tokens.length) fail();
  return clause;
}

/** Parses the clause of `export <clause> from "x"`, as `parseImportClause` does for imports. */
function parseReexportClause(code: string, record: LexedImport): ReexportClause {
  const tokens = tokenize(code, record.ss + "export".length, record.s - 1);
  const fail = unreadable(code, record);
  if (tokens.pop() !== "from") fail();
  let i = 0;
  const next = () => tokens[i++] ?? fail();
  const name = () => {
    const token = next();
    if (isPunctuator(token)) fail();
    return token;
  };
  let clause: ReexportClause;
  const first = next();
  if (first === "*") {
    if (i === tokens.length) return 0;
    if (next() !== "as") fail();
    clause = [name()];
  } else if (first === "{") {
    const named: [string | null, string, string][] = [];
    while (tokens[i] !== "}") {
      const key = name();
      let as = key;
      if (tokens[i] === "as") {
        i++;
        as = name();
      }
      named.push([isQuoted(key) ? unquote(key) : key, key, as]);
      if (tokens[i] === ",") i++;
      else if (tokens[i] !== "}") fail();
    }
    i++;
    clause = { n: named };
  } else {
    return fail();
  }
  if (i !== tokens.length) fail();
  return clause;
}

function isQuoted(token: string): boolean {
  return token.startsWith('"') || token.startsWith("'");
}

function isPunctuator(token: string): boolean {
  return token === "{" || token === "}" || token === "," || token === "*";
}

/** Splits `code[start, end)` into punctuators, words and string literals; skips comments. */
function tokenize(code: string, start: number, end: number): string[] {
  const tokens: string[] = [];
  let i = start;
  while (i < end) {
    const c = code[i] as string;
    if (c === "/" && code[i + 1] === "/") {
      while (i < end && code[i] !== "\n" && code[i] !== "\r") i++;
    } else if (c === "/" && code[i + 1] === "*") {
      const close = code.indexOf("*/", i + 2);
      i = close === -1 ? end : close + 2;
    } else if (c === "{" || c === "}" || c === "," || c === "*") {
      tokens.push(c);
      i++;
    } else if (c === '"' || c === "'") {
      let j = i + 1;
      while (j < end && code[j] !== c) j += code[j] === "\\" ? 2 : 1;
      tokens.push(code.slice(i, j + 1));
      i = j + 1;
    } else if (/\s/.test(c)) {
      i++;
    } else {
      let j = i;
      while (j < end && !/[\s{},*"'/]/.test(code[j] as string)) j++;
      tokens.push(code.slice(i, j));
      i = j;
    }
  }
  return tokens;
}

/** A string literal's value; null when it has escapes (its name is then not checked). */
function unquote(literal: string): string | null {
  const inner = literal.slice(1, -1);
  return inner.includes("\\") ? null : inner;
}
