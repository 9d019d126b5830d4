import { formatImportTable } from "@svc/protocol";
import { parse } from "es-module-lexer/minimal/js";

const MAP_COMMENT = /\n\/\/# sourceMappingURL=[^\n]*\n?$/;

/**
 * `code` with the import table svc's server appends to every browser bundle (before the
 * source map comment, if any), made with the same lexer: what the rewriter is given in a page.
 */
export function withImportTable(code: string): string {
  const map = MAP_COMMENT.exec(code);
  const body = map === null ? code : code.slice(0, map.index + 1);
  const tail = map === null ? "" : code.slice(map.index + 1);
  const line = body.endsWith("\n") || body === "" ? body : `${body}\n`;
  const [imports, exports] = parse(line);
  return line + formatImportTable(line, imports, exports) + tail;
}
