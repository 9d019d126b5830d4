import { RESERVED_LINE } from "@svc/protocol";
import { parse } from "es-module-lexer/minimal/js";
// The server's own clause reader: the table as the server writes it.
import { importTableLine } from "../../../server/src/bundling/importClauses.ts";

const MAP_COMMENT = /\n\/\/# sourceMappingURL=[^\n]*\n?$/;

/**
 * `code` as svc's server writes every browser bundle: its empty first line reserved for the
 * rewrite, the import table after the code (before the source map comment, if any), made with
 * the same lexer, and an inline map moved down the reserved line: what the rewriter is given
 * in a page.
 */
export function withImportTable(code: string): string {
  const map = MAP_COMMENT.exec(code);
  const body = map === null ? code : code.slice(0, map.index + 1);
  const tail = map === null ? "" : code.slice(map.index + 1);
  const line = RESERVED_LINE + (body.endsWith("\n") || body === "" ? body : `${body}\n`);
  const [imports, exports] = parse(line);
  return line + importTableLine(line, imports, exports) + downOneLine(tail);
}

/** An inline map comment (esbuild's) with the reserved line counted, as the server writes it. */
function downOneLine(comment: string): string {
  const match = /^(\/\/# sourceMappingURL=data:application\/json;base64,)(\S+)/.exec(comment);
  if (match === null) return comment;
  const bytes = Uint8Array.from(atob(match[2] ?? ""), (c) => c.charCodeAt(0));
  const map = JSON.parse(new TextDecoder().decode(bytes));
  map.mappings = `;${map.mappings}`;
  const json = new TextEncoder().encode(JSON.stringify(map));
  return `${match[1]}${btoa(String.fromCharCode(...json))}\n`;
}
