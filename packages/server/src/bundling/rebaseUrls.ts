/**
 * Rewrites the relative `url()`s of a stylesheet that Sass loads on behalf of another one (a
 * partial), so that they still name the same files once the partial's rules sit in the other
 * stylesheet's output. Sass copies `url()`s as written, and esbuild resolves them from the
 * compiled file's folder; Vite and webpack's resolve-url-loader rebase them the same way.
 *
 * The scan knows just enough of the syntax to leave alone what only looks like a `url()`:
 * comments, strings (a `url(` inside `content: "…"` is text), and values it cannot read
 * without running Sass (`url($image)`, `url(#{$dir}/x.png)`, `url("a" + $b)`). Replacements
 * never contain a line break, so the line numbers of Sass errors stay those of the file.
 */
import { posix } from "node:path";

/** The syntax of a stylesheet, as Sass names it: it decides what a comment is. */
export type StyleSyntax = "scss" | "indented" | "css";

/**
 * `source` with each relative `url()` prefixed by `dir`: the partial's folder as seen from the
 * folder of the stylesheet being compiled (posix, `../shared`). An empty `dir` changes nothing.
 */
export function rebaseUrls(source: string, dir: string, syntax: StyleSyntax): string {
  if (dir === "" || !/url\(/i.test(source)) return source;
  const scanner = new UrlScanner(source, syntax);
  let out = "";
  let copied = 0;
  for (const token of scanner.urls()) {
    const rebased = rebaseUrl(token.value, dir);
    if (rebased === undefined) continue;
    out += source.slice(copied, token.start) + written(rebased, token.quote);
    copied = token.end;
  }
  return copied === 0 ? source : out + source.slice(copied);
}

/**
 * `url` as seen from a folder `dir` above or beside its own, or undefined when it is not a
 * relative path: absolute paths, URLs with a scheme (`data:`, `https:`), protocol-relative
 * `//host`, fragments (`#filter`, SVG references), `~` package paths and anything computed.
 */
export function rebaseUrl(url: string, dir: string): string | undefined {
  if (url === "" || /^(?:[a-z][a-z\d+.-]*:|[/#~$])/i.test(url)) return undefined;
  if (url.includes("#{") || url.includes("\\")) return undefined;
  const cut = url.search(/[?#]/);
  const path = cut === -1 ? url : url.slice(0, cut);
  const suffix = cut === -1 ? "" : url.slice(cut);
  if (path === "") return undefined;
  const joined = posix.join(dir, path);
  return (joined.startsWith("../") || joined === ".." ? joined : `./${joined}`) + suffix;
}

/** One `url()` argument: where its text (quotes included) is, and the text without quotes. */
interface UrlToken {
  start: number;
  end: number;
  value: string;
  quote: '"' | "'" | undefined;
}

/** `url` written back as the argument of a `url()`, quoted when it needs to be. */
function written(url: string, quote: '"' | "'" | undefined): string {
  // A folder name with a space or a parenthesis cannot stand in an unquoted url().
  const use = quote ?? (/[\s"'()]/.test(url) ? '"' : undefined);
  if (use === undefined) return url;
  return (
    use +
    url.replace(/["'\\]/g, (char) => (char === use || char === "\\" ? `\\${char}` : char)) +
    use
  );
}

/**
 * Walks a stylesheet once, skipping comments and strings, and yields the `url()` arguments
 * that are a plain path: a quoted string alone, or unquoted text without spaces, quotes,
 * parentheses, variables or interpolation.
 */
class UrlScanner {
  private readonly text: string;
  private readonly syntax: StyleSyntax;

  constructor(text: string, syntax: StyleSyntax) {
    this.text = text;
    this.syntax = syntax;
  }

  *urls(): Generator<UrlToken> {
    const text = this.text;
    let i = 0;
    while (i < text.length) {
      const char = text[i];
      if (char === '"' || char === "'") {
        i = this.skipString(i);
      } else if (char === "/" && (text[i + 1] === "*" || this.isLineComment(i))) {
        i = this.skipComment(i);
      } else if ((char === "u" || char === "U") && this.isUrlFunction(i)) {
        const { token, end } = this.readUrl(i + 4);
        if (token !== undefined) yield token;
        i = end;
      } else {
        i++;
      }
    }
  }

  /** `url(` at `i`, not the end of a longer name (`my-url(`, a module's `theme.url(`). */
  private isUrlFunction(i: number): boolean {
    return (
      this.text.slice(i, i + 4).toLowerCase() === "url(" &&
      !/[\w\-.\\\u0080-\uffff]/.test(this.text[i - 1] ?? "")
    );
  }

  /** `//` starts a comment in Sass; in plain CSS it is ordinary text. */
  private isLineComment(i: number): boolean {
    return this.syntax !== "css" && this.text[i + 1] === "/";
  }

  /** The argument of the `url(` whose parenthesis ends before `from`, and where the call ends. */
  private readUrl(from: number): { token?: UrlToken; end: number } {
    const text = this.text;
    const start = skipSpaces(text, from);
    const quote = text[start];
    if (quote === '"' || quote === "'") {
      const end = this.skipString(start);
      const close = skipSpaces(text, end);
      // `url("a" + $b)` and friends are Sass expressions: only a lone string is a path.
      if (text[end - 1] !== quote || text[close] !== ")") return { end };
      return { token: { start, end, value: text.slice(start + 1, end - 1), quote }, end };
    }
    const close = text.indexOf(")", start);
    if (close === -1) return { end: from };
    const value = text.slice(start, close).trimEnd();
    if (value === "" || /[\s"'(]|\$|#\{/.test(value)) {
      // Past the `)` when no string could hide it, so `//` in `url(#{$cdn}//x.png)` is no comment.
      return { end: /["']/.test(value) ? from : close + 1 };
    }
    return { token: { start, end: start + value.length, value, quote: undefined }, end: close + 1 };
  }

  /** The index just past the string opening at `i` (or the line break that cuts it short). */
  private skipString(i: number): number {
    const text = this.text;
    const quote = text[i];
    let j = i + 1;
    while (j < text.length) {
      const char = text[j];
      if (char === "\\") j += 2;
      else if (char === quote) return j + 1;
      else if (char === "\n") return j;
      else if (char === "#" && text[j + 1] === "{") j = this.skipInterpolation(j + 2);
      else j++;
    }
    return j;
  }

  /** The index just past the `}` closing the interpolation whose body starts at `i`. */
  private skipInterpolation(i: number): number {
    const text = this.text;
    let depth = 1;
    let j = i;
    while (j < text.length) {
      const char = text[j];
      if (char === '"' || char === "'") j = this.skipString(j);
      else if (char === "{") {
        depth++;
        j++;
      } else if (char === "}" && --depth === 0) return j + 1;
      else j++;
    }
    return j;
  }

  /** The index just past the comment at `i`. */
  private skipComment(i: number): number {
    const text = this.text;
    const block = text[i + 1] === "*";
    if (this.syntax === "indented" && startsLine(text, i)) return indentedCommentEnd(text, i);
    if (!block) return lineEnd(text, i);
    const close = text.indexOf("*/", i + 2);
    if (close !== -1 && (this.syntax !== "indented" || close < lineEnd(text, i))) return close + 2;
    // An indented-syntax `/*` needs no `*/`: it ends with its line.
    return this.syntax === "indented" ? lineEnd(text, i) : text.length;
  }
}

function skipSpaces(text: string, i: number): number {
  let j = i;
  while (j < text.length && /\s/.test(text[j] ?? "")) j++;
  return j;
}

function lineEnd(text: string, i: number): number {
  const end = text.indexOf("\n", i);
  return end === -1 ? text.length : end;
}

/** Whether only spaces stand between the start of `i`'s line and `i`. */
function startsLine(text: string, i: number): boolean {
  return /^[ \t]*$/.test(text.slice(text.lastIndexOf("\n", i - 1) + 1, i));
}

/**
 * In the indented syntax a comment that starts a line goes on through the lines indented
 * deeper than it (and blank ones), whatever they contain.
 */
function indentedCommentEnd(text: string, i: number): number {
  const lineStart = text.lastIndexOf("\n", i - 1) + 1;
  const indent = i - lineStart;
  let end = lineEnd(text, i);
  while (end < text.length) {
    const next = lineEnd(text, end + 1);
    const line = text.slice(end + 1, next);
    const lineIndent = line.length - line.trimStart().length;
    if (line.trim() !== "" && lineIndent <= indent) break;
    end = next;
  }
  return end;
}
