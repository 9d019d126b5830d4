/**
 * React Fast Refresh for the dev server's browser bundles: an esbuild plugin that runs
 * `react-refresh/babel` over the component's own source files (never `node_modules`), so each
 * component and hook is registered with the page's refresh runtime (`refresh.js`, see
 * `refreshRuntime.ts`) under an id that stays the same from build to build. Development only:
 * `svc build`, static mode and the islands' server bundles never take this plugin, so their
 * bytes are what they were without it.
 */
import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { extname, isAbsolute, relative, sep } from "node:path";
import { REFRESH_GLOBAL } from "@svc/protocol";
import type * as esbuild from "esbuild";
import { LRUCache } from "lru-cache";

/** The source files the transform reads: JavaScript and TypeScript, with or without JSX. */
const SOURCE_FILE = /\.[cm]?[jt]sx?$/;

/** esbuild's loader for each extension, as esbuild picks it itself. */
const LOADERS: Record<string, esbuild.Loader> = {
  ".js": "js",
  ".mjs": "js",
  ".cjs": "js",
  ".jsx": "jsx",
  ".ts": "ts",
  ".mts": "ts",
  ".cts": "ts",
  ".tsx": "tsx",
};

/** What Babel needs: loaded on first use, so servers that never bundle for a page skip it. */
interface BabelParts {
  transformAsync: typeof import("@babel/core").transformAsync;
  refreshPlugin: unknown;
}

let babel: Promise<BabelParts> | undefined;

/** A specifier in a variable: the package has no type declarations, and needs none here. */
const REFRESH_BABEL = "react-refresh/babel";

function loadBabel(): Promise<BabelParts> {
  babel ??= Promise.all([import("@babel/core"), import(REFRESH_BABEL) as Promise<unknown>]).then(
    ([core, refresh]) => ({
      transformAsync: core.transformAsync,
      refreshPlugin: (refresh as { default?: unknown }).default ?? refresh,
    }),
  );
  return babel;
}

/**
 * Transformed sources by id prefix and content: the transform is a pure function of both, so
 * an unchanged file is not run through Babel again at the next rebuild. Bounded by size (the
 * least recently used go first): every saved version of a file is a new entry.
 */
const transformed = new LRUCache<string, { code: string | null }>({
  maxSize: 4 * 1024 * 1024,
  sizeCalculation: ({ code }) => Math.max(1, (code?.length ?? 0) * 2),
});

/**
 * The plugin: each source file of `componentName` below `workingDir` goes through
 * `react-refresh/babel` (TypeScript and JSX kept, only the registrations added), then on to
 * esbuild with its usual loader. A file Babel cannot parse is left to esbuild, whose message
 * the page then shows as for any build.
 */
export function refreshPlugin(options: {
  componentName: string;
  workingDir: string;
}): esbuild.Plugin {
  return {
    name: "svc-react-refresh",
    setup(build) {
      build.onLoad({ filter: SOURCE_FILE, namespace: "file" }, async (args) => {
        if (args.path.includes(`${sep}node_modules${sep}`) || args.path.endsWith(".d.ts")) {
          return undefined;
        }
        const path = relative(options.workingDir, args.path);
        if (path.startsWith("..") || isAbsolute(path)) return undefined;
        const loader = LOADERS[extname(args.path)];
        if (loader === undefined) return undefined;
        const source = await readFile(args.path, "utf8");
        const code = await refreshTransform(source, {
          // Stable across rebuilds and machines: no absolute path.
          idPrefix: `${options.componentName}:${path.split(sep).join("/")}`,
          filename: args.path,
          loader,
        });
        return code === null ? undefined : { contents: code, loader };
      });
    },
  };
}

/**
 * `source` with Fast Refresh registrations, or null when it has nothing to register (or Babel
 * cannot parse it): esbuild then reads the file as it would without the plugin. Each module
 * gets its own `$RefreshReg$`/`$RefreshSig$`, function declarations after the code (hoisted,
 * so lines stay where they were), forwarding to the page's runtime, `globalThis.__svcRefresh`,
 * when there is one and doing nothing otherwise (a server render, a page without it).
 */
export async function refreshTransform(
  source: string,
  options: { idPrefix: string; filename: string; loader: esbuild.Loader },
): Promise<string | null> {
  const key = createHash("sha256")
    .update(options.idPrefix)
    .update("\0")
    .update(options.loader)
    .update("\0")
    .update(source)
    .digest("base64url");
  const cached = transformed.get(key);
  if (cached !== undefined) return cached.code;
  const code = await runBabel(source, options);
  transformed.set(key, { code });
  return code;
}

async function runBabel(
  source: string,
  options: { idPrefix: string; filename: string; loader: esbuild.Loader },
): Promise<string | null> {
  const { transformAsync, refreshPlugin } = await loadBabel();
  const typescript = options.loader === "ts" || options.loader === "tsx";
  const jsx = options.loader !== "ts";
  let output: Awaited<ReturnType<typeof transformAsync>>;
  try {
    output = await transformAsync(source, {
      filename: options.filename,
      babelrc: false,
      configFile: false,
      sourceType: "module",
      parserOpts: {
        plugins: [
          ...(typescript ? (["typescript"] as const) : []),
          ...(jsx ? ["jsx" as const] : []),
        ],
      },
      plugins: [[refreshPlugin as never, { skipEnvCheck: true }]],
      retainLines: true,
      sourceMaps: true,
      // The map's one source is the file itself, as esbuild names it without the plugin.
      sourceFileName: options.filename.split(sep).pop(),
    });
  } catch {
    return null;
  }
  const code = output?.code;
  if (code == null || !/\$Refresh(Reg|Sig)\$/.test(code)) return null;
  const prefix = JSON.stringify(`${options.idPrefix} `);
  const runtime = `globalThis.${REFRESH_GLOBAL}`;
  const map =
    output?.map == null
      ? ""
      : `\n//# sourceMappingURL=data:application/json;base64,${Buffer.from(JSON.stringify(output.map)).toString("base64")}`;
  return (
    `${code}\n` +
    `function $RefreshReg$(type, id) { ${runtime}?.register(type, ${prefix} + id); }\n` +
    `function $RefreshSig$() { return ${runtime}?.signature() ?? ((type) => type); }` +
    map
  );
}
