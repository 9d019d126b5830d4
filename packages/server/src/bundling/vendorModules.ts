import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import {
  hashedScriptFile,
  IMPORT_MAP_MODULES,
  type ImportMapModuleName,
  ON_DEMAND_MODULES,
  type OnDemandModuleName,
  RESERVED_LINE,
  readImportTable,
  vendorStem,
} from "@svc/protocol";
import { parse as lexModule } from "es-module-lexer/minimal/js";
import * as esbuild from "esbuild";
import { NotFoundError } from "../errors.ts";
import { contentHash, integrityOfBytes } from "../util/contentHash.ts";
import { loaderFile } from "../util/loaderFiles.ts";
import { BROWSER_BUILD } from "./esbuildOptions.ts";
import { importTableLine } from "./importClauses.ts";

/** The modules the import map maps (`IMPORT_MAP_MODULES` of the protocol). */
export const VENDOR_MODULES = IMPORT_MAP_MODULES;

export type VendorModuleName = ImportMapModuleName;

/** The directory vendor files sit in, in a build directory and below the API prefix. */
export const VENDOR_DIR = "vendor";

/** The ES-module loader's file name, beside the API's `loader.js` and in a build directory. */
export const ESM_LOADER_FILE = "loader.esm.js";

/** One file of the vendor build. */
export interface VendorFile {
  /** Path relative to the API prefix or build directory: `vendor/<name>.<hash>.js`. */
  file: string;
  body: Uint8Array;
  /** First 12 hex characters of the SHA-256 of `body` (also in `file`). */
  hash: string;
  /** `sha384-<base64>`, for the import map's `integrity`. */
  integrity: string;
  /** The other vendor modules it imports. */
  imports?: readonly VendorModuleName[];
}

export interface VendorBuild {
  /** Bare specifier → its file. */
  modules: ReadonlyMap<VendorModuleName, VendorFile>;
  /**
   * `@svc/loader`'s ES-module loader (`loader.esm.js`, `file` without a hash: pages name it
   * by a stable URL); undefined when `@svc/loader` is not installed or not built.
   */
  loader: VendorFile | undefined;
  /**
   * The modules whose packages are not installed beside the server, each with the error that
   * says what to install. The others are built all the same: a bundle that imports
   * `@svc/react` needs its vendor files, not goober's.
   */
  missing: readonly VendorModulesError[];
}

/**
 * A vendor module cannot be built (a package is missing beside the server): over HTTP a 404
 * whose message says what to install, as for a missing `@svc/loader`.
 */
export class VendorModulesError extends NotFoundError {
  /** The module whose package is not installed (undefined: one that failed to build). */
  readonly notInstalled: VendorModuleName | undefined;

  constructor(message: string, options: { cause?: unknown; notInstalled?: VendorModuleName } = {}) {
    super(message, { cause: options.cause });
    this.name = "VendorModulesError";
    this.notInstalled = options.notInstalled;
  }
}

const INSTALL = "npm install react react-dom goober @tanstack/react-query @svc/react @svc/runtime";

// Read the workspace packages as the server itself is read: from their TypeScript sources
// when it runs from them (tests, the repository), else from their published builds.
const FROM_SOURCE = import.meta.url.endsWith(".ts");

let cached: Promise<VendorBuild> | undefined;
/** The vendor build once it is done (for answers that cannot wait). */
let built: VendorBuild | undefined;

/**
 * The vendor build of this server process: built on first use and kept (the packages beside
 * the server do not change while it runs), with what is missing in `missing`. A failed build
 * is not kept.
 */
export function vendorModules(): Promise<VendorBuild> {
  cached ??= buildVendorModules().then(
    (build) => {
      built = build;
      return build;
    },
    (error: unknown) => {
      cached = undefined;
      throw error;
    },
  );
  return cached;
}

/**
 * The vendor build when every module of it is there (the import map names them all).
 * @throws VendorModulesError naming what to install when a package is missing.
 */
export async function completeVendorModules(): Promise<VendorBuild> {
  const build = await vendorModules();
  if (build.missing[0] !== undefined) throw build.missing[0];
  return build;
}

/**
 * The on-demand vendor modules (`ON_DEMAND_MODULES`: what `loader.js` does not carry) that a
 * bundle imports, statically or dynamically: read from its import table (every bundle svc
 * builds has one), else found by their specifiers in its code, where a string that merely
 * looks like such an import only costs a needless fetch.
 */
export function onDemandImports(code: string | Uint8Array): OnDemandModuleName[] {
  const text = typeof code === "string" ? code : new TextDecoder().decode(code);
  // A bundle svc built says what it imports in its import table.
  const table = readTableOrUndefined(text);
  if (table !== undefined) {
    const specifiers = new Set(table.imports.map((record) => record.n));
    return ON_DEMAND_MODULES.filter((specifier) => specifiers.has(specifier));
  }
  // Anything else (a test's snippet): its specifiers, found in the code.
  return ON_DEMAND_MODULES.filter((specifier) => {
    const quoted = specifier.replace(/[/.]/g, "\\$&");
    return new RegExp(`(?:\\bfrom|\\bimport\\s*\\(?)\\s*["']${quoted}["']`).test(text);
  });
}

function readTableOrUndefined(text: string) {
  try {
    return readImportTable(text);
  } catch {
    return undefined;
  }
}

/**
 * The vendor files `loader.js` fetches for a bundle that imports `specifiers`: those and the
 * on-demand modules they import, transitively, each after the ones it imports.
 */
export function vendorClosure(
  build: VendorBuild,
  specifiers: readonly VendorModuleName[],
): (VendorFile & { module: VendorModuleName })[] {
  const onDemand = new Set<string>(ON_DEMAND_MODULES);
  const ordered: (VendorFile & { module: VendorModuleName })[] = [];
  const seen = new Set<string>();
  const visit = (specifier: VendorModuleName) => {
    if (seen.has(specifier) || !onDemand.has(specifier)) return;
    seen.add(specifier);
    const file = build.modules.get(specifier);
    if (file === undefined) return;
    for (const dependency of file.imports ?? []) visit(dependency);
    ordered.push({ ...file, module: specifier });
  };
  for (const specifier of specifiers) visit(specifier);
  return ordered;
}

const scanned = new WeakMap<Uint8Array, OnDemandModuleName[]>();
const linked = new WeakMap<Uint8Array, string | undefined>();

/**
 * The `Link` header entries that announce a bundle's vendor files (`<../vendor/<stem>.<hash>.js>;
 * rel=modulepreload`, relative to the bundle's URL), so `loader.js` fetches them alongside it.
 * Undefined when it needs none (most bundles) or the vendor build failed; a promise only while
 * the vendor build is still under way.
 */
export function vendorLinks(code: Uint8Array): string | undefined | Promise<string | undefined> {
  // Warm bundles are answered often, with the same bytes: each is scanned once.
  let needed = scanned.get(code);
  if (needed === undefined) {
    needed = onDemandImports(code);
    scanned.set(code, needed);
  }
  if (needed.length === 0) return undefined;
  const links = (build: VendorBuild) =>
    vendorClosure(build, needed)
      .map(({ file }) => `<../${file}>; rel=modulepreload`)
      .join(", ") || undefined;
  if (built !== undefined) {
    // Once the build is done a bundle's links never change: written once, not per answer.
    if (!linked.has(code)) linked.set(code, links(built));
    return linked.get(code);
  }
  // Without its packages the bundle is still served: the loader then names what is missing.
  return vendorModules().then(links, () => undefined);
}

export interface BuildVendorOptions {
  /** Where the packages are resolved from. Default: this package's own directory. */
  resolveDir?: string;
}

/**
 * Builds each vendor module as a minified production ES module with esbuild, from the
 * packages installed beside the server, keeping the other vendor modules external (resolved
 * by the page's import map), so the page holds exactly one React: `react-dom`'s CommonJS
 * `require("react")` becomes an import of `react`. Content-hashed; no path of this machine
 * appears in any file.
 *
 * A module whose package is not installed is left out and named in `missing`.
 */
export async function buildVendorModules(options: BuildVendorOptions = {}): Promise<VendorBuild> {
  const resolveDir = options.resolveDir ?? dirname(fileURLToPath(import.meta.url));
  const require = createRequire(`${resolveDir}/`);
  const settled = await Promise.allSettled(
    VENDOR_MODULES.map(async (specifier) => {
      const { code, imports } = await buildOne(specifier, resolveDir, require);
      const file = describe(
        `${VENDOR_DIR}/${hashedScriptFile(vendorStem(specifier), contentHash(code))}`,
        code,
      );
      return [specifier, { ...file, imports }] as const;
    }),
  );
  const modules = new Map<VendorModuleName, VendorFile>();
  const missing: VendorModulesError[] = [];
  for (const result of settled) {
    if (result.status === "fulfilled") modules.set(...result.value);
    else if (result.reason instanceof VendorModulesError && result.reason.notInstalled) {
      missing.push(result.reason);
    } else throw result.reason;
  }
  return { modules, loader: await readEsmLoader(), missing };
}

async function buildOne(
  specifier: VendorModuleName,
  resolveDir: string,
  require: NodeJS.Require,
): Promise<{ code: Uint8Array; imports: VendorModuleName[] }> {
  const common: esbuild.BuildOptions = {
    absWorkingDir: resolveDir,
    ...BROWSER_BUILD,
    minify: true,
    legalComments: "none",
    logLevel: "silent",
    conditions: FROM_SOURCE ? ["source"] : [],
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [otherVendorModulesExternal(specifier), withoutPropsValidation],
  };
  const run = async (contents: string) => {
    try {
      return await esbuild.build({ ...common, stdin: { contents, resolveDir, loader: "js" } });
    } catch (error) {
      const text = (error as esbuild.BuildFailure).errors?.[0]?.text ?? String(error);
      if (/Could not resolve/.test(text)) {
        throw new VendorModulesError(
          `svc: the import map needs ${specifier} installed beside @svc/server: run \`${INSTALL}\``,
          { cause: error, notInstalled: specifier },
        );
      }
      throw new VendorModulesError(
        `svc: could not build ${specifier} for the import map: ${text}`,
        {
          cause: error,
        },
      );
    }
  };
  const source = JSON.stringify(specifier);
  const probe = await run(`export * from ${source};`);
  if (!isCommonJs(probe.metafile)) return output(probe);
  // esbuild cannot see the exports of a CommonJS module (React's), so name them: the keys of
  // its `module.exports` as Node loads it.
  const names = Object.keys(require(specifier) as object).filter(
    (name) => name !== "default" && /^[A-Za-z_$][\w$]*$/.test(name),
  );
  return output(
    await run(
      `import * as m from ${source};\nexport const { ${names.join(", ")} } = m;\nexport default m.default;\n`,
    ),
  );
}

/** Whether the module the entry re-exports is CommonJS. */
function isCommonJs(metafile: esbuild.Metafile | undefined): boolean {
  const target = metafile?.inputs["<stdin>"]?.imports[0]?.path;
  return target !== undefined && metafile?.inputs[target]?.format === "cjs";
}

function output(result: esbuild.BuildResult): { code: Uint8Array; imports: VendorModuleName[] } {
  const file = result.outputFiles?.[0];
  if (file === undefined) throw new VendorModulesError("svc: esbuild produced no vendor module");
  const names = new Set<string>(VENDOR_MODULES);
  const imports = new Set<VendorModuleName>();
  for (const { imports: list } of Object.values(result.metafile?.outputs ?? {})) {
    for (const { path, external } of list) {
      if (external === true && names.has(path)) imports.add(path as VendorModuleName);
    }
  }
  return { code: withImportTable(file.contents), imports: [...imports] };
}

/**
 * The vendor module with the import table svc's server appends to every module a page
 * rewrites (`//# svcImports=…`): `loader.js` fetches `@svc/react` and the others on demand
 * and rewrites their imports against the registry, as it does a bundle's.
 */
function withImportTable(code: Uint8Array): Uint8Array {
  // Its first line reserved for the rewrite, as a bundle's (`RESERVED_LINE`).
  let text = RESERVED_LINE + new TextDecoder().decode(code);
  if (!text.endsWith("\n")) text += "\n";
  const [imports, exports] = lexModule(text);
  return new TextEncoder().encode(text + importTableLine(text, imports, exports));
}

/**
 * Every other vendor module stays a bare import. A CommonJS `require()` of one (react-dom's
 * `require("react")`) gets a module that re-exports it, so it too reads the page's one copy.
 */
function otherVendorModulesExternal(self: string): esbuild.Plugin {
  const names = new Set<string>(VENDOR_MODULES);
  return {
    name: "svc-vendor-externals",
    setup(build) {
      build.onResolve({ filter: /^[@a-z]/ }, (args) => {
        if (!names.has(args.path) || (args.path === self && args.importer === "<stdin>")) {
          return undefined;
        }
        if (args.kind === "require-call") return { path: args.path, namespace: "svc-vendor" };
        return { path: args.path, external: true };
      });
      build.onLoad({ filter: /.*/, namespace: "svc-vendor" }, (args) => ({
        contents: `export * from ${JSON.stringify(args.path)};`,
        loader: "js",
      }));
    },
  };
}

/**
 * Props validation is development-only (production `useComponent` never calls it), and these
 * files are production builds: `@svc/react`'s `validateProps` would keep
 * `@cfworker/json-schema` (6.7 kB gzip) in its vendor file. It gets a `validateProps` that
 * says where the real one is, as `loader.js` always did.
 */
const withoutPropsValidation: esbuild.Plugin = {
  name: "svc-without-props-validation",
  setup(build) {
    build.onResolve({ filter: /[\\/]validateProps(\.ts|\.js)$/ }, (args) =>
      /[\\/]react[\\/](src|dist)$/.test(args.resolveDir)
        ? { path: "validateProps", namespace: "svc-production-stub" }
        : undefined,
    );
    build.onLoad({ filter: /.*/, namespace: "svc-production-stub" }, () => ({
      loader: "js",
      contents:
        "export function validateProps() {\n" +
        '  throw new Error("svc: props validation is development-only: not in the vendor @svc/react (use @svc/react from npm in a development build)");\n' +
        "}\n",
    }));
  },
};

/** `@svc/loader`'s `loader.esm.js` as installed, or undefined. */
async function readEsmLoader(): Promise<VendorFile | undefined> {
  const path = loaderFile(ESM_LOADER_FILE);
  if (path === undefined) return undefined;
  let body: Uint8Array;
  try {
    body = new Uint8Array(await readFile(path));
  } catch {
    return undefined;
  }
  return describe(ESM_LOADER_FILE, body);
}

function describe(file: string, body: Uint8Array): VendorFile {
  return {
    file,
    body,
    hash: contentHash(body),
    integrity: integrityOfBytes(body),
  };
}
