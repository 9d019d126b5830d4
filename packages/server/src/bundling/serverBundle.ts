/**
 * A component's server bundle, made from its browser bundle: the same code, as CommonJS for
 * the render (`serverModule.ts`), by one `esbuild.transform` — no second build, no
 * resolution. A browser bundle's only imports are the shared modules (which the render's
 * `require` answers with the server's own React and friends) and its stylesheets (which the
 * island links instead), so the conversion is all a server bundle needs; and since it is a
 * function of the browser bundle, the server renders exactly the code the browser hydrates
 * (CSS module class names, asset URLs, `process.env.NODE_ENV`), checked fresh by one check.
 */
import * as esbuild from "esbuild";
import { BundleError } from "../errors.ts";
import { contentHash, type FinishedOutput } from "./bundler.ts";
import { browserAssetUrl, serverAssetUrl } from "./componentFiles.ts";
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
   * Carry the browser bundle's inline source map through (esbuild chains it), so frames map to
   * the same `component://` files. Default: false (see `ServerSourceMaps`).
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
 * (`__svcAssetUrl("./assets/…")`, padded to the same length so the map's columns hold), then
 * converted to CommonJS for Node. Deterministic: the same browser bundle gives the same bytes.
 */
export async function serverBundleOf(
  browser: BrowserBundleParts,
  options: ServerBundleOptions = {},
): Promise<FinishedOutput> {
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
