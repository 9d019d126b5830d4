import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname } from "node:path";
import { fileURLToPath } from "node:url";
import { IMPORT_MAP_MODULES, type ImportMapModuleName } from "@svc/protocol";
import * as esbuild from "esbuild";
import { NotFoundError } from "../errors.ts";

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
}

export interface VendorBuild {
  /** Bare specifier → its file. */
  modules: ReadonlyMap<VendorModuleName, VendorFile>;
  /**
   * `@svc/loader`'s ES-module loader (`loader.esm.js`, `file` without a hash: pages name it
   * by a stable URL); undefined when `@svc/loader` is not installed or not built.
   */
  loader: VendorFile | undefined;
}

/**
 * A vendor module cannot be built (a package is missing beside the server): over HTTP a 404
 * whose message says what to install, as for a missing `@svc/loader`.
 */
export class VendorModulesError extends NotFoundError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = "VendorModulesError";
  }
}

const INSTALL = "npm install react react-dom goober @tanstack/react-query @svc/react";

// Read the workspace packages as the server itself is read: from their TypeScript sources
// when it runs from them (tests, the repository), else from their published builds.
const FROM_SOURCE = import.meta.url.endsWith(".ts");

let cached: Promise<VendorBuild> | undefined;

/**
 * The vendor build of this server process: built on first use and kept (the packages beside
 * the server do not change while it runs). A failed build is not kept.
 */
export function vendorModules(): Promise<VendorBuild> {
  cached ??= buildVendorModules().catch((error: unknown) => {
    cached = undefined;
    throw error;
  });
  return cached;
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
 * @throws VendorModulesError naming what to install when a package is missing.
 */
export async function buildVendorModules(options: BuildVendorOptions = {}): Promise<VendorBuild> {
  const resolveDir = options.resolveDir ?? dirname(fileURLToPath(import.meta.url));
  const require = createRequire(`${resolveDir}/`);
  const built = await Promise.all(
    VENDOR_MODULES.map(async (specifier) => {
      const code = await buildOne(specifier, resolveDir, require);
      const hash = sha256(code).slice(0, 12);
      const base = specifier.replace(/^@/, "").replace(/[^A-Za-z0-9]+/g, "-");
      return [specifier, describe(`${VENDOR_DIR}/${base}.${hash}.js`, code)] as const;
    }),
  );
  return { modules: new Map(built), loader: await readEsmLoader() };
}

async function buildOne(
  specifier: VendorModuleName,
  resolveDir: string,
  require: NodeJS.Require,
): Promise<Uint8Array> {
  const common: esbuild.BuildOptions = {
    absWorkingDir: resolveDir,
    bundle: true,
    write: false,
    metafile: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    logLevel: "silent",
    conditions: FROM_SOURCE ? ["source"] : [],
    define: { "process.env.NODE_ENV": '"production"' },
    plugins: [otherVendorModulesExternal(specifier)],
  };
  const run = async (contents: string) => {
    try {
      return await esbuild.build({ ...common, stdin: { contents, resolveDir, loader: "js" } });
    } catch (error) {
      const text = (error as esbuild.BuildFailure).errors?.[0]?.text ?? String(error);
      if (/Could not resolve/.test(text)) {
        throw new VendorModulesError(
          `svc: the import map needs ${specifier} installed beside @svc/server: run \`${INSTALL}\``,
          { cause: error },
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

function output(result: esbuild.BuildResult): Uint8Array {
  const file = result.outputFiles?.[0];
  if (file === undefined) throw new VendorModulesError("svc: esbuild produced no vendor module");
  return file.contents;
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

/** `@svc/loader`'s `loader.esm.js` as installed, or undefined. */
async function readEsmLoader(): Promise<VendorFile | undefined> {
  let body: Uint8Array;
  try {
    const path = fileURLToPath(import.meta.resolve(`@svc/loader/${ESM_LOADER_FILE}`));
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
    hash: sha256(body).slice(0, 12),
    integrity: `sha384-${createHash("sha384").update(body).digest("base64")}`,
  };
}

function sha256(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex");
}
