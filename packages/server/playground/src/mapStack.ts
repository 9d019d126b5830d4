import { originalPositionFor, sourceContentFor, TraceMap } from "@jridgewell/trace-mapping";

/** One line of a stack trace, mapped to the original file when it is in a component. */
export interface StackFrame {
  /** The function, when the engine names it. */
  fn: string | undefined;
  /** `component://<name>/<file>` for a component's frame; otherwise the URL as given. */
  file: string;
  /** 1-based. */
  line: number;
  /** 1-based. */
  column: number;
  /** True when the frame is in a component and was mapped through its source map. */
  mapped: boolean;
  /** The original source around the line (mapped frames only). */
  context?: { line: number; text: string }[];
}

// Chromium's format: "    at fn (url:line:column)" or "    at url:line:column".
const FRAME = /^\s*at (?:(.*?) \()?(.+?):(\d+):(\d+)\)?\s*$/;
const BUNDLE = /^component:\/\/(.+)\/bundle\.js$/;

/**
 * Parses an `Error.stack` and maps each frame in a component bundle
 * (`component://<name>/bundle.js`, the bundle's `sourceURL`) through that bundle's inline
 * source map, fetched from the API. Chromium does not apply source maps to `Error.stack`.
 */
export async function mapStack(stack: string, apiBase: string): Promise<StackFrame[]> {
  const maps = new Map<string, Promise<TraceMap | undefined>>();
  const frames: StackFrame[] = [];
  for (const text of stack.split("\n")) {
    const match = FRAME.exec(text);
    if (match === null) continue;
    const [, fn, file = "", line = "0", column = "0"] = match;
    const frame: StackFrame = {
      fn: fn || undefined,
      file,
      line: Number(line),
      column: Number(column),
      mapped: false,
    };
    const component = BUNDLE.exec(file)?.[1];
    if (component !== undefined) {
      let map = maps.get(component);
      if (map === undefined) {
        map = loadSourceMap(apiBase, component);
        maps.set(component, map);
      }
      const traced = await map;
      if (traced !== undefined) mapFrame(frame, traced);
    }
    frames.push(frame);
  }
  return frames;
}

function mapFrame(frame: StackFrame, map: TraceMap): void {
  // The loader's import declarations fill the bundle's reserved first line: the evaluated
  // module's lines are the bundle's, which its map describes.
  const position = originalPositionFor(map, { line: frame.line, column: frame.column - 1 });
  if (position.source === null || position.line === null || position.column === null) return;
  frame.file = position.source;
  frame.line = position.line;
  frame.column = position.column + 1;
  frame.fn = position.name ?? frame.fn;
  frame.mapped = true;
  const content = sourceContentFor(map, position.source);
  if (content !== null) {
    const lines = content.split("\n");
    const first = Math.max(1, position.line - 2);
    const last = Math.min(lines.length, position.line + 2);
    frame.context = [];
    for (let n = first; n <= last; n++) frame.context.push({ line: n, text: lines[n - 1] ?? "" });
  }
}

async function loadSourceMap(apiBase: string, name: string): Promise<TraceMap | undefined> {
  try {
    const response = await fetch(`${apiBase}/bundles/${name}.js`, { cache: "no-cache" });
    if (!response.ok) return undefined;
    const code = await response.text();
    const match =
      /\/\/# sourceMappingURL=data:application\/json;(?:charset=utf-8;)?base64,([A-Za-z0-9+/=]+)\s*$/.exec(
        code,
      );
    if (match?.[1] === undefined) return undefined;
    const bytes = Uint8Array.from(atob(match[1]), (c) => c.charCodeAt(0));
    return new TraceMap(new TextDecoder().decode(bytes));
  } catch {
    return undefined;
  }
}
