import { builtinModules, SourceMap } from "node:module";
import { contentHash } from "../bundling/bundler.ts";
import { SERVER_ASSET_URL } from "../bundling/componentFiles.ts";
import { compileUncached } from "./reactInterop.ts";

/** A component's server bundle, evaluated: its exports. */
export type ServerModule = Readonly<Record<string, unknown>>;

/** The modules a server bundle gets for its `require` of a shared module (React, …). */
export type SharedModules = Readonly<Record<string, unknown>>;

/** One version of a component's server bundle, ready to render. */
export interface EvaluatedBundle {
  readonly module: ServerModule;
  /** Maps a stack trace of this version to the component's own files. */
  mapStack(stack: string): string;
}

const builtins = new Set(builtinModules);

/**
 * The file name a server bundle's version is evaluated under, which its stack frames show:
 * `svc-server:<name>@<serverHash>.cjs` (the version, so a stack names which one threw).
 */
export function serverBundleFile(name: string, serverHash: string): string {
  return `svc-server:${name}@${serverHash}.cjs`;
}

/** Frames of server bundles in a stack: `svc-server:<name>@<serverHash>.cjs:line:column`. */
const SERVER_FRAME = /svc-server:([^\s@()]+)@([0-9a-f]+)\.cjs:\d+:\d+/g;

/** The server bundle versions a stack has frames of, each once. */
export function serverFramesOf(stack: string): { name: string; serverHash: string }[] {
  const versions = new Map<string, { name: string; serverHash: string }>();
  for (const [, name, serverHash] of stack.matchAll(SERVER_FRAME)) {
    versions.set(`${name}@${serverHash}`, {
      name: name as string,
      serverHash: serverHash as string,
    });
  }
  return [...versions.values()];
}

/**
 * Evaluates a server bundle (CommonJS, as `serverBundleOf` makes it from the browser bundle) as a function
 * of its own — never through Node's module cache, which keeps every version it ever loaded,
 * nor V8's compilation cache (see `compile`). Nothing holds on to a version but whoever holds
 * its `EvaluatedBundle`, so replacing it lets the old one be collected: memory stays flat
 * across any number of edits. `require` answers
 * the shared modules with `shared` (the server's own React and friends, so a component and
 * the renderer share one React) and Node's built-in modules; anything else was bundled.
 * `assetUrl` gives the URL of a file the component imports (`./assets/logo-24WHYHIF.png`,
 * relative to the bundles directory), as the browser bundle's would be: see
 * `resolveAssetUrls`. Its frames are named after `name` and `serverHash` (see
 * {@link serverBundleFile}); a bundle with an inline source map maps them itself
 * (`mapStack`), one without (the dev server's) leaves them to {@link mapServerFrames}.
 */
export function evaluateServerBundle(
  code: string,
  name: string,
  serverHash: string,
  shared: SharedModules,
  assetUrl: (path: string) => string = (path) => path,
): EvaluatedBundle {
  const filename = serverBundleFile(name, serverHash);
  // The wrapper's first line is its own, so the bundle's line n is the script's line n + 1.
  const source = `(function (exports, require, module, __filename, __dirname, ${SERVER_ASSET_URL}) {\n${code}\n})`;
  const run = compileUncached(source, filename).runInThisContext() as (
    exports: object,
    require: (id: string) => unknown,
    module: { exports: object },
    filename: string,
    dirname: string,
    assetUrl: (path: string) => string,
  ) => void;
  const module: { exports: object } = { exports: {} };
  const require = (id: string): unknown => {
    if (Object.hasOwn(shared, id)) return shared[id];
    const bare = id.startsWith("node:") ? id.slice(5) : id;
    if (builtins.has(bare)) return process.getBuiltinModule(id);
    throw new Error(
      `Component "${name}" needs "${id}" on the server, which is neither bundled nor shared`,
    );
  };
  run.call(module.exports, module.exports, require, module, filename, "/", assetUrl);
  const exports = module.exports as ServerModule;
  return { module: exports, mapStack: (stack) => mapStack(stack, code, filename) };
}

/**
 * `stack` with the frames of version `serverHash` of `name` mapped through `withMap`: the
 * component's server bundle built again, from its sources as they are now, with an inline
 * source map. Mapped only when that is the code that ran — the code up to the map has the
 * version's hash, so the map's positions hold for it; after an edit that changed the code,
 * the map would point at the wrong lines, and `stack` is left as it is.
 */
export function mapServerFrames(
  stack: string,
  name: string,
  serverHash: string,
  withMap: Uint8Array,
): string {
  const text = Buffer.from(withMap.buffer, withMap.byteOffset, withMap.byteLength);
  const at = text.lastIndexOf(INLINE_MAP);
  if (at === -1 || contentHash(text.subarray(0, at)) !== serverHash) return stack;
  return mapStack(stack, text.toString("utf8"), serverBundleFile(name, serverHash));
}

const INLINE_MAP = "//# sourceMappingURL=data:application/json;base64,";

/**
 * `stack` with this bundle's frames (`svc-server:<name>@<serverHash>.cjs:line:column`) replaced
 * by the original positions its inline source map gives (`component://<name>/<file>:line:column`).
 */
function mapStack(stack: string, code: string, filename: string): string {
  const map = inlineMap(code);
  if (map === undefined) return stack;
  const escaped = filename.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
  return stack.replace(new RegExp(`${escaped}:(\\d+):(\\d+)`, "g"), (whole, line, column) => {
    // One line of wrapper above the bundle; SourceMap counts lines and columns from 0.
    const entry = map.findEntry(Number(line) - 2, Number(column) - 1) as {
      originalSource?: string;
      originalLine?: number;
      originalColumn?: number;
    };
    if (entry.originalSource === undefined) return whole;
    return `${entry.originalSource}:${(entry.originalLine ?? 0) + 1}:${(entry.originalColumn ?? 0) + 1}`;
  });
}

function inlineMap(code: string): SourceMap | undefined {
  const at = code.lastIndexOf(INLINE_MAP);
  if (at === -1) return undefined;
  try {
    const json = Buffer.from(code.slice(at + INLINE_MAP.length).trim(), "base64").toString("utf8");
    return new SourceMap(JSON.parse(json));
  } catch {
    return undefined;
  }
}
