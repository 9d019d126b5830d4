/**
 * `JSON.parse`'s message for `text` with where it failed as `(line L column C)`, 1-based, the
 * way V8 words most of its messages ("… in JSON at position 41 (line 3 column 12)"). V8 leaves
 * the position out of two ("Unexpected end of JSON input", and "Unexpected token 'x', "…" is
 * not valid JSON", which quotes the text instead): those get it from {@link jsonErrorOffset}.
 */
export function describeJsonError(text: string, message: string): string {
  if (/\(line \d+ column \d+\)$/.test(message)) return message;
  const offset = jsonErrorOffset(text) ?? text.length;
  const { line, column } = lineColumn(text, offset);
  // The quoted text adds nothing once the place is named, and may be long.
  const reason = message.replace(/^(Unexpected token '.*?'), .* is not valid JSON$/s, "$1");
  return `${reason} in JSON at position ${offset} (line ${line} column ${column})`;
}

/** The 1-based line and column of `offset` in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let at = text.indexOf("\n"); at !== -1 && at < offset; at = text.indexOf("\n", at + 1)) {
    line++;
    lineStart = at + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

type Expect = "value" | "valueOrClose" | "key" | "keyOrClose" | "colon" | "commaOrClose" | "end";

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS = ["true", "false", "null"];
const ESCAPES = new Set(['"', "\\", "/", "b", "f", "n", "r", "t"]);

/**
 * The offset of the first character where `text` stops being JSON (`text.length` when it ends
 * too soon), or undefined when it is JSON. A scan without recursion, so any depth is fine.
 */
export function jsonErrorOffset(text: string): number | undefined {
  const open: string[] = [];
  let expect: Expect = "value";
  let at = 0;
  const afterValue = (): Expect => (open.length === 0 ? "end" : "commaOrClose");
  for (;;) {
    while (at < text.length && " \t\n\r".includes(text[at] as string)) at++;
    if (at >= text.length) return expect === "end" ? undefined : text.length;
    const char = text[at] as string;
    switch (expect) {
      case "end":
        return at;
      case "colon":
        if (char !== ":") return at;
        at++;
        expect = "value";
        break;
      case "commaOrClose":
        if (char === ",") {
          at++;
          expect = open.at(-1) === "{" ? "key" : "value";
        } else if (char === (open.at(-1) === "{" ? "}" : "]")) {
          open.pop();
          at++;
          expect = afterValue();
        } else {
          return at;
        }
        break;
      case "key":
      case "keyOrClose":
        if (char === "}" && expect === "keyOrClose") {
          open.pop();
          at++;
          expect = afterValue();
          break;
        }
        if (char !== '"') return at;
        {
          const [end, closed] = stringEnd(text, at);
          if (!closed) return end;
          at = end;
        }
        expect = "colon";
        break;
      default: {
        if (char === "]" && expect === "valueOrClose") {
          open.pop();
          at++;
          expect = afterValue();
          break;
        }
        if (char === "{" || char === "[") {
          open.push(char);
          at++;
          expect = char === "{" ? "keyOrClose" : "valueOrClose";
          break;
        }
        if (char === '"') {
          const [end, closed] = stringEnd(text, at);
          if (!closed) return end;
          at = end;
        } else {
          const literal = LITERALS.find((word) => word[0] === char);
          if (literal !== undefined) {
            // Wrong at the first letter that differs, as V8 says ("tru}": the "}").
            for (const letter of literal) {
              if (text[at] !== letter) return Math.min(at, text.length);
              at++;
            }
          } else {
            NUMBER.lastIndex = at;
            const number = NUMBER.exec(text);
            // A lone minus is wrong where its digits should be, as V8 says.
            if (number === null) return char === "-" ? at + 1 : at;
            at += number[0].length;
          }
        }
        expect = afterValue();
      }
    }
  }
}

/**
 * The offset just past the string starting at `start` (its closing quote) and true, or the
 * offset of what ends it wrongly (a control character, a bad escape, the end of the text) and
 * false.
 */
function stringEnd(text: string, start: number): [number, boolean] {
  for (let at = start + 1; at < text.length; at++) {
    const char = text[at] as string;
    if (char === '"') return [at + 1, true];
    if (char < " ") return [at, false];
    if (char === "\\") {
      const next = text[at + 1];
      if (next === "u") {
        if (!/^[0-9a-fA-F]{4}$/.test(text.slice(at + 2, at + 6))) return [at + 1, false];
        at += 5;
      } else if (next !== undefined && ESCAPES.has(next)) {
        at++;
      } else {
        return [Math.min(at + 1, text.length), false];
      }
    }
  }
  return [text.length, false];
}
