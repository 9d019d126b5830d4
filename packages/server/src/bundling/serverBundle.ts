/**
 * A component's server bundle, made from its browser bundle: the same code, as CommonJS for
 * the render (`serverModule.ts`) — no second build, no resolution. Converted by hand from the
 * positions its import table records (~0.15 ms, every line and column kept), or by one
 * `esbuild.transform` where that does not apply (`import()`, `import.meta`, no table): a round
 * trip to esbuild's process costs a few ms on a busy host. A browser bundle's only imports are
 * the shared modules (which the render's `require` answers with the server's own React and
 * friends) and its stylesheets (which the island links instead), so the conversion is all a
 * server bundle needs; and since it is a function of the browser bundle, the server renders
 * exactly the code the browser hydrates (CSS module class names, asset URLs,
 * `process.env.NODE_ENV`), checked fresh by one check.
 */
import {
  type ImportClause,
  type ImportRecord,
  readImportTable,
  type TabledModule,
} from "@svc/protocol";
import * as esbuild from "esbuild";
import { BundleError } from "../errors.ts";
import { contentHash } from "../util/contentHash.ts";
import { browserAssetUrl, serverAssetUrl } from "./componentFiles.ts";
import type { FinishedOutput } from "./finishOutput.ts";
import { withoutStylesheetImports } from "./stylesheetImports.ts";

/** What {@link serverBundleOf} reads of a browser bundle. */
export interface BrowserBundleParts {
  readonly name: string;
  /** The browser bundle's bytes, as served. */
  readonly code: Uint8Array;
  /** Its stylesheets, by path relative to the bundle (`card-3f2a9c0b1d4e.css`). */
  readonly stylesheets: readonly { readonly path: string }[];
}

export interface ServerBundleOptions {
  /**
   * Carry the browser bundle's inline source map over (as it is, or chained by esbuild),
   * so frames map to the same `component://` files. Default: false (see `ServerSourceMaps`).
   */
  sourcemap?: boolean;
  /** Print the output without whitespace (`svc build`). Default: false. */
  minify?: boolean;
}

const INLINE_MAP = "\n//# sourceMappingURL=";
/** How a browser bundle's asset URL starts and ends around its JSON string (`browserAssetUrl`). */
const [ASSET_HEAD, ASSET_TAIL] = browserAssetUrl("\0").split("\0") as [string, string];

/**
 * The server bundle of `browser`: its code without its stylesheet imports, the import table
 * and (unless `sourcemap`) the source map, each asset URL made the render's call
 * (`__svcAssetUrl("./assets/…")`, padded to the same length so the map's columns hold), as
 * CommonJS for Node. Deterministic: the same browser bundle gives the same bytes.
 */
export async function serverBundleOf(
  browser: BrowserBundleParts,
  options: ServerBundleOptions = {},
): Promise<FinishedOutput> {
  const byHand = byHandOf(browser, options);
  if (byHand !== undefined) return byHand;
  const bytes = withoutStylesheetImports(
    browser.code,
    browser.stylesheets.map((sheet) => sheet.path),
  );
  let code = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  if (options.sourcemap !== true) {
    const at = code.lastIndexOf(INLINE_MAP);
    if (at !== -1) code = code.slice(0, at + 1);
  }
  code = serverAssetUrls(code);
  let result: esbuild.TransformResult;
  try {
    result = await esbuild.transform(code, {
      loader: "js",
      format: "cjs",
      platform: "node",
      target: "node22",
      sourcemap: options.sourcemap === true ? "inline" : false,
      minifyWhitespace: options.minify === true,
      charset: "utf8",
      legalComments: "none",
      logLevel: "silent",
    });
  } catch (error) {
    const failure = error as esbuild.TransformFailure;
    const texts = Array.isArray(failure.errors)
      ? failure.errors.map((message) => message.text)
      : [String((error as Error)?.message ?? error)];
    throw new BundleError(
      browser.name,
      texts.map((text) => ({ text: `its browser bundle could not be made CommonJS: ${text}` })),
      { cause: error },
    );
  }
  const output = Buffer.from(result.code);
  return { code: output, hash: contentHash(output) };
}

/** {@link serverBundleOf} by {@link toCommonJs}, or undefined where that does not apply. */
function byHandOf(
  browser: BrowserBundleParts,
  options: ServerBundleOptions,
): FinishedOutput | undefined {
  const text = Buffer.from(
    browser.code.buffer,
    browser.code.byteOffset,
    browser.code.byteLength,
  ).toString("utf8");
  let table: TabledModule | undefined;
  try {
    table = readImportTable(text);
  } catch {
    return undefined;
  }
  if (table === undefined) return undefined;
  const mapAt = table.code.lastIndexOf(INLINE_MAP);
  const code = serverAssetUrls(mapAt === -1 ? table.code : table.code.slice(0, mapAt + 1));
  const sheets = new Set(browser.stylesheets.map((sheet) => `./${sheet.path}`));
  const converted = toCommonJs(code, table.imports, table.exports, sheets);
  if (converted === undefined) return undefined;
  let output = `${converted.prelude}${converted.body}`;
  // The prelude fills the reserved first line: the browser bundle's map holds as it is.
  if (options.sourcemap === true && mapAt !== -1) output += table.code.slice(mapAt + 1);
  const bytes = Buffer.from(output);
  return { code: bytes, hash: contentHash(bytes) };
}

/** `code` with each browser asset URL replaced by the server's, padded to the same length. */
function serverAssetUrls(code: string): string {
  let at = code.indexOf(ASSET_HEAD);
  if (at === -1) return code;
  let out = "";
  let position = 0;
  for (; at !== -1; at = code.indexOf(ASSET_HEAD, at + 1)) {
    const start = at + ASSET_HEAD.length;
    const end = code.indexOf(ASSET_TAIL, start);
    const literal = end === -1 ? "" : code.slice(start, end);
    // The file loader's content-hashed path, as `resolveAssetUrls` wrote it: nothing else.
    if (!/^"\.\/assets\/[^"\\\n]*"$/.test(literal)) continue;
    const whole = end + ASSET_TAIL.length - at;
    out += code.slice(position, at) + serverAssetUrl(literal).padEnd(whole);
    position = at + whole;
  }
  return out + code.slice(position);
}

/**
 * `code` (a browser bundle without its table line, `imports` from its table) as CommonJS made
 * by hand: every import statement blanked to spaces (the stylesheets' for good), the shared
 * modules required in a prelude for the code's reserved empty first line (`RESERVED_LINE`),
 * the final `export { … }` blanked and assigned after it. Every line and column of the code
 * stays where it was, so the browser bundle's map holds as it is. Undefined for anything else
 * (`import()`, `import.meta`, `export * from`, a form esbuild does not print): the transform
 * does those.
 */
export function toCommonJs(
  code: string,
  imports: readonly ImportRecord[],
  exported: readonly string[],
  stylesheets: ReadonlySet<string>,
): { prelude: string; body: string } | undefined {
  let body = code;
  const blank = (from: number, to: number) => {
    body = body.slice(0, from) + body.slice(from, to).replace(/[^\n]/g, " ") + body.slice(to);
  };
  const requires: string[] = [];
  let end = code.length;
  for (const record of imports) {
    if (record.t !== 1 || record.n === undefined) return undefined;
    const statement = code.slice(record.ss, record.se);
    blank(record.ss, record.se);
    if (stylesheets.has(record.n)) {
      end = Math.min(end, record.ss);
      continue;
    }
    // The clause as the server read it when it wrote the table; a re-export goes the slow way.
    if (!statement.startsWith("import") || !Array.isArray(record.c) || record.c.length !== 3) {
      return undefined;
    }
    const [def, namespace, named] = record.c as ImportClause;
    const module = `require(${JSON.stringify(record.n)})`;
    if (def === null && namespace === null && named.length === 0) {
      requires.push(module);
      continue;
    }
    if (def !== null) requires.push(`${def} = __svcDefault(${module})`);
    if (namespace !== null) requires.push(`${namespace} = __svcNamespace(${module})`);
    if (named.length > 0) {
      requires.push(
        `{ ${named.map(([, key, local]) => `${key}: ${local}`).join(", ")} } = ${module}`,
      );
    }
  }
  // The entry's exports: one `export { … };` after the code, naming what the table lists.
  const js = body.slice(0, end);
  const at = Math.max(js.lastIndexOf("export {"), js.lastIndexOf("export{"));
  let assigned = "";
  if (exported.length > 0 || at !== -1) {
    const close = at === -1 ? -1 : js.indexOf("}", at);
    if (close === -1 || !/^\s*;?\s*$/.test(js.slice(close + 1))) return undefined;
    const names: string[] = [];
    for (const item of js.slice(js.indexOf("{", at) + 1, close).split(",")) {
      const name = item.trim();
      if (name === "") continue;
      const as = /^([\w$]+)(?:\s+as\s+([\w$]+))?$/.exec(name);
      if (as === null) return undefined;
      const local = as[1] as string;
      const out = as[2] ?? local;
      names.push(out);
      assigned += `Object.defineProperty(exports, ${JSON.stringify(out)}, { enumerable: true, get: () => ${local} });\n`;
    }
    if (names.length !== exported.length || names.some((n, i) => n !== exported[i])) {
      if ([...names].sort().join() !== [...exported].sort().join()) return undefined;
    }
    blank(at, close + 1 + (js.slice(close + 1).indexOf(";") + 1));
  }
  const prelude = requires.length === 0 ? "" : `var ${requires.join(", ")};`;
  return {
    prelude: `Object.defineProperty(exports, "__esModule", { value: true });${prelude}`,
    body: `${body.slice(0, end).replace(/\s+$/, "\n")}${assigned}${HELPERS}`,
  };
}

const HELPERS =
  "function __svcDefault(m) { return m && m.__esModule ? m.default : m; }\n" +
  "function __svcNamespace(m) { return m && m.__esModule ? m : Object.assign({}, m, { default: m }); }\n";
