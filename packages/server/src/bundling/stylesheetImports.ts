/**
 * The imports of a browser bundle's stylesheets, which `finishOutput` appends after the code
 * (`import "./card-3f2a9c0b1d4e.css";`, one line each, before the import table and the source
 * map): written here and taken out here, so the two never disagree.
 */

import { IMPORT_TABLE_PREFIX } from "@svc/protocol";

const MAP_COMMENT = Buffer.from("//# sourceMappingURL=");
const TABLE_COMMENT = Buffer.from(IMPORT_TABLE_PREFIX);

/** The lines a bundle importing `specifiers` (`./card-3f2a9c0b1d4e.css`) ends with. */
export function stylesheetImports(specifiers: readonly string[]): string {
  return specifiers.map((specifier) => `import ${JSON.stringify(specifier)};\n`).join("");
}

/**
 * `code` without the imports of its stylesheets `paths`: the bundle as `moduleLoading: "url"`
 * imports it (a browser refuses a CSS file as a module; the client applies the stylesheets
 * itself). Everything else keeps its bytes, and the source map its lines: the imports stand
 * after the code. `code` itself when it has no such imports (no CSS, or another bundler's).
 */
export function withoutStylesheetImports(code: Uint8Array, paths: readonly string[]): Uint8Array {
  if (paths.length === 0) return code;
  const block = Buffer.from(stylesheetImports(paths.map((path) => `./${path}`)));
  const bytes = Buffer.from(code.buffer, code.byteOffset, code.byteLength);
  const at = bytes.lastIndexOf(block);
  // Only at the end of the code: followed by nothing, or by the source map's comment.
  if (at === -1 || (at > 0 && bytes[at - 1] !== 0x0a && bytes[at - 1] !== 0x3b)) return code;
  let rest = bytes.subarray(at + block.length);
  // The import table names the imports taken out: it goes too (a module imported by its URL
  // is never rewritten, so it needs none).
  if (rest.subarray(0, TABLE_COMMENT.length).equals(TABLE_COMMENT)) {
    const end = rest.indexOf(0x0a);
    rest = end === -1 ? rest.subarray(rest.length) : rest.subarray(end + 1);
  }
  if (rest.length > 0 && !rest.subarray(0, MAP_COMMENT.length).equals(MAP_COMMENT)) {
    return code;
  }
  return Buffer.concat([bytes.subarray(0, at), rest]);
}
