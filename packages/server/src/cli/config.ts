import * as fs from "node:fs";
import { existsSync, readFileSync, statSync } from "node:fs";
import { basename, dirname, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { isValidSegment, SvcError } from "@svc/protocol";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Logger } from "../logger.ts";
import { resolveBuildDir } from "../production/manifest.ts";

/** The components that ship with svc, served when a project has no `./components`. */
export const BUILTIN_COMPONENTS_DIR = fileURLToPath(
  new URL("../../examples/components", import.meta.url),
);

/** The file names `svc` looks for in the project root, in this order. */
export const CONFIG_FILES = [
  "svc.config.ts",
  "svc.config.mts",
  "svc.config.js",
  "svc.config.mjs",
  "svc.config.json",
] as const;

/**
 * A mistake in how svc was invoked or configured (flags, `svc.config.*`): the CLI prints it
 * as one line and exits with code 2.
 */
export class UsageError extends SvcError {
  override name = "UsageError";

  constructor(message: string) {
    super("Usage", message);
  }
}

/** The origin a Vite dev server uses; `svc serve` lets it call the API by default. */
export const DEFAULT_DEV_ORIGIN = "http://localhost:5173";

/** One component source directory. */
export interface SourceConfig {
  /** Directory, relative to the config file. */
  dir: string;
  /** Names from this source become `<prefix>:<name>`. Default: none. */
  prefix?: string;
}

/** The contents of `svc.config.{ts,js,json}`. Relative paths are relative to the file. */
export interface SvcConfig {
  /**
   * Component source directories, each a path or `{ dir, prefix }`. Later sources win name
   * collisions. Default: `./components` when it exists, else the built-in examples.
   */
  sources?: (string | SourceConfig)[];
  /**
   * Glob(s) of application directories (e.g. `"apps/*"`). Every match holding a `components/`
   * directory adds it as a source prefixed with the application's directory name.
   */
  apps?: string | string[];
  /**
   * The declaration file of the components' props that `svc types` writes and `svc serve`
   * keeps current (e.g. `"svc-env.d.ts"`). Default: none — `svc serve` writes no types, and
   * `svc types` writes `svc-env.d.ts`.
   */
  types?: string;
  build?: {
    /** Output directory of `svc build`. */
    output?: string;
    /** Default: true. */
    minify?: boolean;
    /** Default: false. */
    sourcemap?: boolean;
    /** Write `.gz` and `.br` siblings. Default: false. */
    compress?: boolean;
    /** Also build every component for Node, to render islands without esbuild. Default: true. */
    ssr?: boolean;
    /** Write `vendor/`, `loader.esm.js` and `importmap.json` (the no-blob CSP mode). Default: true. */
    importMap?: boolean;
  };
  /**
   * The URL at which browsers reach svc's API: `http://127.0.0.1:8000/api` when pages come from
   * another origin, `/svc` or `https://shop.example/svc` behind a proxy that maps it to svc's
   * `/api`. Every URL svc writes for a browser starts with it. Default: `/api` (same origin).
   * Also `SVC_PUBLIC_URL`, `svc serve --public-url`.
   */
  publicUrl?: string;
  /**
   * Where browsers reach the build directory in static mode (a CDN's URL, say). Default:
   * `{publicUrl}/static`, where `svc serve` serves it.
   */
  staticUrl?: string;
  serve?: {
    /** Default: "0.0.0.0". */
    host?: string;
    /** Default: 8000. */
    port?: number;
    /** Origins allowed cross-origin GET access. Default: ["http://localhost:5173"]. */
    corsOrigins?: string[];
    /**
     * `Host` names answered besides IP addresses and `localhost` (`.example.com`: it and its
     * subdomains); `true` answers any (then pages elsewhere can read your sources through DNS
     * rebinding). Default: none.
     */
    allowedHosts?: string[] | true;
    /** How long one build may take before it answers a `BundleError`, in ms. Default: 30 000. */
    buildTimeoutMs?: number;
    /** Serve pre-built bundles from this `svc build` output when it holds a manifest. */
    buildDir?: string;
    /** Static mode: the bundle endpoint answers 404. Default: false. */
    static?: boolean;
    /**
     * Where islands render: `"worker"`, a pool of worker threads (a component that loops or
     * exhausts memory loses its worker, never the server); `"none"`, the server's own thread.
     * Default: `"worker"`.
     */
    renderIsolation?: "worker" | "none";
    /** Render workers. Default: the machine's cores (`availableParallelism`). */
    renderWorkers?: number;
    /** Renders that may wait for a worker; past that, 503 Overloaded. Default: 1024. */
    renderQueue?: number;
    /** Each render worker's heap limit, in MiB. Default: 512. */
    renderMemoryMb?: number;
    /** How long one island render may take, in ms. Default: 5000. */
    renderTimeoutMs?: number;
    /** Request log: a line of text per request, a JSON line per request, or none. Default: "text". */
    log?: RequestLog;
    /** Open connections one client address may hold. Default: 64. */
    maxConnectionsPerAddress?: number;
    /** Live-reload streams open at once. Default: 256. */
    maxEventClients?: number;
  };
}

/** How `svc serve` logs requests. */
export type RequestLog = "text" | "json" | "off";
export const REQUEST_LOGS: readonly RequestLog[] = ["text", "json", "off"];

/** Types a config file: `export default defineConfig({ … })`. */
export function defineConfig(config: SvcConfig): SvcConfig {
  return config;
}

/** Command-line flags; each one given overrides the config file. */
export interface ConfigFlags {
  componentsDir?: string;
  /** `svc types --out`. */
  types?: string;
  prefix?: string;
  output?: string;
  minify?: boolean;
  sourcemap?: boolean;
  compress?: boolean;
  ssr?: boolean;
  importMap?: boolean;
  host?: string;
  port?: number;
  corsOrigins?: readonly string[];
  allowedHosts?: readonly string[];
  buildDir?: string;
  static?: boolean;
  renderIsolation?: "worker" | "none";
  renderWorkers?: number;
  log?: RequestLog;
  publicUrl?: string;
}

export interface ResolveConfigOptions {
  /** Where relative flags are resolved and the config file is looked for. Default: process.cwd(). */
  cwd?: string;
  /** `--config FILE`: this file instead of looking for `svc.config.*` in `cwd`. */
  configFile?: string;
  flags?: ConfigFlags;
  /** Environment (`SVC_BUILD_DIR`). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

/** Everything `serve` and `build` need, with defaults applied and paths absolute. */
export interface ResolvedConfig {
  /** The directory of the config file, or `cwd` without one. */
  root: string;
  configFile: string | undefined;
  sources: { dir: string; prefix: string }[];
  /**
   * The sources are svc's built-in examples, because no `--components-dir`, no configured
   * source and no `./components` was found. `svc serve` with a build directory then serves
   * the build alone, never the examples mixed in.
   */
  builtinExamples: boolean;
  /** The declaration file of the components' props (`types`, `svc types --out`), if set. */
  types: string | undefined;
  /** Where browsers reach the API, when set (`--public-url`, `SVC_PUBLIC_URL`, `publicUrl`). */
  publicUrl: string | undefined;
  /** Where browsers reach the build directory in static mode, when set. */
  staticUrl: string | undefined;
  build: {
    output: string | undefined;
    minify: boolean;
    sourcemap: boolean;
    compress: boolean;
    ssr: boolean;
    importMap: boolean;
  };
  serve: {
    host: string;
    port: number;
    corsOrigins: string[];
    allowedHosts: string[] | true;
    buildTimeoutMs: number;
    buildDir: string | undefined;
    static: boolean;
    renderIsolation: "worker" | "none";
    /** Undefined: the machine's cores. */
    renderWorkers: number | undefined;
    renderQueue: number | undefined;
    renderMemoryMb: number | undefined;
    renderTimeoutMs: number | undefined;
    log: RequestLog;
    maxConnectionsPerAddress: number | undefined;
    maxEventClients: number | undefined;
  };
  /** Problems worth a warning that do not stop svc (e.g. an app directory with an invalid name). */
  warnings: string[];
}

/**
 * The one resolver behind `svc serve` and `svc build`: reads the config file (if any),
 * applies flags over it and defaults under it.
 *
 * Precedence: flags, then `SVC_BUILD_DIR` (for the build directory and the build output),
 * then the config file, then defaults.
 * @throws UsageError for an unreadable or invalid config file, a missing directory or
 * conflicting flags — with the fix in the message.
 */
export async function resolveConfig(options: ResolveConfigOptions = {}): Promise<ResolvedConfig> {
  const cwd = resolve(options.cwd ?? process.cwd());
  const flags = options.flags ?? {};
  const env = options.env ?? process.env;
  const configFile = findConfigFile(cwd, options.configFile);
  const config = configFile === undefined ? {} : await loadConfigFile(configFile);
  const root = configFile === undefined ? cwd : dirname(configFile);
  const where = configFile === undefined ? "" : relative(cwd, configFile) || configFile;
  const warnings: string[] = [];

  let sources: { dir: string; prefix: string }[];
  let builtinExamples = false;
  if (flags.componentsDir !== undefined) {
    sources = [{ dir: existingDir(cwd, flags.componentsDir), prefix: checkPrefix(flags.prefix) }];
  } else {
    sources = [
      ...(config.sources ?? []).map((source, i) => {
        const { dir, prefix } = typeof source === "string" ? { dir: source } : source;
        return {
          dir: existingDir(root, dir, `${where}: sources[${i}]`),
          prefix: checkPrefix(prefix, `${where}: sources[${i}].prefix`),
        };
      }),
      ...discoverApps(root, config.apps, warnings),
    ];
    if (sources.length > 0 && flags.prefix !== undefined) {
      throw new UsageError(
        `--prefix applies to --components-dir; ${where} lists sources — set their prefixes there`,
      );
    }
    if (sources.length === 0) {
      const local = resolve(root, "components");
      const dir = isDirectory(local) ? local : BUILTIN_COMPONENTS_DIR;
      builtinExamples = dir === BUILTIN_COMPONENTS_DIR;
      sources = [{ dir, prefix: checkPrefix(flags.prefix) }];
    }
  }

  const envBuildDir = env.SVC_BUILD_DIR;
  const output =
    flags.output !== undefined
      ? resolve(cwd, flags.output)
      : envBuildDir
        ? resolve(cwd, envBuildDir)
        : config.build?.output !== undefined
          ? resolve(root, config.build.output)
          : undefined;

  let buildDir: string | undefined;
  if (flags.buildDir !== undefined) {
    buildDir = resolve(cwd, flags.buildDir);
  } else {
    const fromConfig =
      config.serve?.buildDir === undefined ? undefined : resolve(root, config.serve.buildDir);
    buildDir = resolveBuildDir(fromConfig, {
      SVC_BUILD_DIR: envBuildDir ? resolve(cwd, envBuildDir) : envBuildDir,
    });
    if (fromConfig !== undefined && buildDir === undefined && envBuildDir === undefined) {
      warnings.push(
        `${where}: serve.buildDir ${config.serve?.buildDir} holds no manifest.json yet, so bundles are built live — run svc build to create it`,
      );
    }
  }

  return {
    root,
    configFile,
    sources,
    builtinExamples,
    publicUrl: checkUrl(
      flags.publicUrl ?? (env.SVC_PUBLIC_URL || undefined) ?? config.publicUrl,
      flags.publicUrl !== undefined
        ? "--public-url"
        : env.SVC_PUBLIC_URL
          ? "SVC_PUBLIC_URL"
          : `${where}: publicUrl`,
    ),
    staticUrl: checkUrl(config.staticUrl, `${where}: staticUrl`),
    types:
      flags.types !== undefined
        ? typesFile(cwd, flags.types, "--out")
        : config.types !== undefined
          ? typesFile(root, config.types, `${where}: types`)
          : undefined,
    build: {
      output,
      minify: flags.minify ?? config.build?.minify ?? true,
      sourcemap: flags.sourcemap ?? config.build?.sourcemap ?? false,
      compress: flags.compress ?? config.build?.compress ?? false,
      ssr: flags.ssr ?? config.build?.ssr ?? true,
      importMap: flags.importMap ?? config.build?.importMap ?? true,
    },
    serve: {
      host: flags.host ?? config.serve?.host ?? "0.0.0.0",
      port: flags.port ?? config.serve?.port ?? 8000,
      corsOrigins:
        flags.corsOrigins !== undefined && flags.corsOrigins.length > 0
          ? [...flags.corsOrigins]
          : (config.serve?.corsOrigins ?? [DEFAULT_DEV_ORIGIN]),
      allowedHosts:
        config.serve?.allowedHosts === true
          ? true
          : [...(config.serve?.allowedHosts ?? []), ...(flags.allowedHosts ?? [])],
      buildTimeoutMs: config.serve?.buildTimeoutMs ?? 30_000,
      buildDir,
      static: flags.static ?? config.serve?.static ?? false,
      renderIsolation: flags.renderIsolation ?? config.serve?.renderIsolation ?? "worker",
      renderWorkers: flags.renderWorkers ?? config.serve?.renderWorkers,
      renderQueue: config.serve?.renderQueue,
      renderMemoryMb: config.serve?.renderMemoryMb,
      renderTimeoutMs: config.serve?.renderTimeoutMs,
      log: flags.log ?? config.serve?.log ?? "text",
      maxConnectionsPerAddress: config.serve?.maxConnectionsPerAddress,
      maxEventClients: config.serve?.maxEventClients,
    },
    warnings,
  };
}

/** A registry holding every source of `config`. */
export function createRegistry(config: ResolvedConfig, logger?: Logger): ComponentRegistry {
  const registry = new ComponentRegistry(undefined, { logger });
  for (const source of config.sources) registry.addSource(source.dir, { prefix: source.prefix });
  return registry;
}

/**
 * Loads a config file: `.json` is parsed; `.ts`/`.mts`/`.js`/`.mjs` are imported (Node runs
 * TypeScript natively) and their default export used — an object, or a function returning one.
 * @throws UsageError naming the file and the problem.
 */
export async function loadConfigFile(file: string): Promise<SvcConfig> {
  let value: unknown;
  if (file.endsWith(".json")) {
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (error) {
      throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
    }
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}`);
    }
  } else {
    let module: { default?: unknown };
    try {
      module = (await import(pathToFileURL(file).href)) as { default?: unknown };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ERR_UNKNOWN_FILE_EXTENSION") {
        throw new UsageError(
          `cannot load ${file}: this Node.js (${process.version}) does not run TypeScript — use Node 22.18 or newer, or write the config as svc.config.mjs or .json`,
        );
      }
      throw new UsageError(`cannot load ${file}: ${firstLine(error)}`);
    }
    value = module.default;
    if (typeof value === "function") value = await (value as () => unknown)();
    if (value === undefined) {
      throw new UsageError(`${file} has no default export — write \`export default { … }\``);
    }
  }
  return checkConfig(value, file);
}

function findConfigFile(cwd: string, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) {
    const file = resolve(cwd, explicit);
    if (!existsSync(file)) {
      throw new UsageError(`config file ${explicit} does not exist — pass --config with a file`);
    }
    return file;
  }
  return CONFIG_FILES.map((name) => join(cwd, name)).find((file) => existsSync(file));
}

const KEYS = {
  top: ["sources", "apps", "types", "publicUrl", "staticUrl", "build", "serve"],
  build: ["output", "minify", "sourcemap", "compress", "ssr", "importMap"],
  serve: [
    "host",
    "port",
    "corsOrigins",
    "allowedHosts",
    "buildTimeoutMs",
    "buildDir",
    "static",
    "renderIsolation",
    "renderWorkers",
    "renderQueue",
    "renderMemoryMb",
    "renderTimeoutMs",
    "log",
    "maxConnectionsPerAddress",
    "maxEventClients",
  ],
} as const;

/** Checks the shape of a config value, so a typo fails at start with the key named. */
function checkConfig(value: unknown, file: string): SvcConfig {
  const fail = (problem: string): never => {
    throw new UsageError(`${file}: ${problem}`);
  };
  if (!isObject(value)) return fail("the config must be an object");
  checkKeys(value, KEYS.top, "", fail);
  if (value.sources !== undefined) {
    if (!Array.isArray(value.sources)) fail(`"sources" must be an array`);
    (value.sources as unknown[]).forEach((source, i) => {
      if (typeof source === "string") return;
      if (!isObject(source) || typeof source.dir !== "string") {
        fail(`sources[${i}] must be a directory or { dir, prefix }`);
        return;
      }
      checkKeys(source, ["dir", "prefix"], `sources[${i}].`, fail);
      if (source.prefix !== undefined && typeof source.prefix !== "string") {
        fail(`sources[${i}].prefix must be a string`);
      }
    });
  }
  const apps = value.apps;
  if (
    apps !== undefined &&
    typeof apps !== "string" &&
    !(Array.isArray(apps) && apps.every((a) => typeof a === "string"))
  ) {
    fail(`"apps" must be a glob or an array of globs`);
  }
  for (const section of ["build", "serve"] as const) {
    const part = value[section];
    if (part === undefined) continue;
    if (!isObject(part)) {
      fail(`"${section}" must be an object`);
      continue;
    }
    checkKeys(part, KEYS[section], `${section}.`, fail);
  }
  const build = (value.build ?? {}) as Record<string, unknown>;
  const serve = (value.serve ?? {}) as Record<string, unknown>;
  expectType(value.types, "string", "types", fail);
  expectType(value.publicUrl, "string", "publicUrl", fail);
  expectType(value.staticUrl, "string", "staticUrl", fail);
  expectType(build.output, "string", "build.output", fail);
  expectType(build.minify, "boolean", "build.minify", fail);
  expectType(build.sourcemap, "boolean", "build.sourcemap", fail);
  expectType(build.compress, "boolean", "build.compress", fail);
  expectType(build.ssr, "boolean", "build.ssr", fail);
  expectType(build.importMap, "boolean", "build.importMap", fail);
  expectType(serve.host, "string", "serve.host", fail);
  expectType(serve.buildDir, "string", "serve.buildDir", fail);
  expectType(serve.static, "boolean", "serve.static", fail);
  if (
    serve.port !== undefined &&
    !(
      Number.isInteger(serve.port) &&
      (serve.port as number) >= 0 &&
      (serve.port as number) <= 65535
    )
  ) {
    fail("serve.port must be an integer from 0 to 65535");
  }
  const origins = serve.corsOrigins;
  if (
    origins !== undefined &&
    !(Array.isArray(origins) && origins.every((o) => typeof o === "string"))
  ) {
    fail("serve.corsOrigins must be an array of origins");
  }
  const hosts = serve.allowedHosts;
  if (
    hosts !== undefined &&
    hosts !== true &&
    !(Array.isArray(hosts) && hosts.every((h) => typeof h === "string" && h !== ""))
  ) {
    fail("serve.allowedHosts must be an array of host names, or true");
  }
  const timeout = serve.buildTimeoutMs;
  if (timeout !== undefined && !(Number.isInteger(timeout) && (timeout as number) > 0)) {
    fail("serve.buildTimeoutMs must be a whole number of milliseconds above 0");
  }
  if (
    serve.renderIsolation !== undefined &&
    !["worker", "none"].includes(serve.renderIsolation as string)
  ) {
    fail(`serve.renderIsolation must be "worker" or "none"`);
  }
  if (serve.log !== undefined && !REQUEST_LOGS.includes(serve.log as RequestLog)) {
    fail(`serve.log must be "text", "json" or "off"`);
  }
  for (const key of [
    "renderWorkers",
    "renderQueue",
    "renderMemoryMb",
    "renderTimeoutMs",
    "maxConnectionsPerAddress",
    "maxEventClients",
  ] as const) {
    const number = serve[key];
    const least = key === "renderQueue" ? 0 : 1;
    if (number !== undefined && !(Number.isInteger(number) && (number as number) >= least)) {
      fail(`serve.${key} must be a whole number of at least ${least}`);
    }
  }
  return value as SvcConfig;
}

function checkKeys(
  value: Record<string, unknown>,
  known: readonly string[],
  path: string,
  fail: (problem: string) => never,
): void {
  for (const key of Object.keys(value)) {
    if (!known.includes(key)) {
      fail(`unknown key "${path}${key}" (known: ${known.map((k) => `${path}${k}`).join(", ")})`);
    }
  }
}

/**
 * `url` as a base URL browsers can use: an absolute `http(s)://` URL or a path from the root
 * (`/svc`), without its trailing slash.
 * @throws UsageError naming `source` otherwise
 */
function checkUrl(url: string | undefined, source: string): string | undefined {
  if (url === undefined) return undefined;
  const trimmed = url.replace(/\/+$/, "");
  if (trimmed.startsWith("/") && !trimmed.startsWith("//")) return trimmed;
  try {
    const parsed = new URL(trimmed);
    if (
      (parsed.protocol === "http:" || parsed.protocol === "https:") &&
      !parsed.search &&
      !parsed.hash
    ) {
      return trimmed;
    }
  } catch {
    // said below
  }
  throw new UsageError(
    `${source}: ${JSON.stringify(url)} is no base URL — give an http(s) URL (http://127.0.0.1:8000/api) or a path (/svc)`,
  );
}

function expectType(
  value: unknown,
  type: "string" | "boolean",
  key: string,
  fail: (problem: string) => never,
): void {
  if (value !== undefined && typeof value !== type) fail(`${key} must be a ${type}`);
}

/**
 * Per-application discovery: every directory matching `apps` that holds `components/`
 * contributes it, prefixed with the application's directory name (its label).
 */
function discoverApps(
  root: string,
  apps: string | string[] | undefined,
  warnings: string[],
): { dir: string; prefix: string }[] {
  if (apps === undefined) return [];
  const patterns = typeof apps === "string" ? [apps] : apps;
  const matches = new Set<string>();
  for (const pattern of patterns) {
    for (const match of fs.globSync(pattern, { cwd: root })) matches.add(resolve(root, match));
  }
  const found: { dir: string; prefix: string }[] = [];
  for (const app of [...matches].sort()) {
    const components = join(app, "components");
    if (!isDirectory(app) || !isDirectory(components)) continue;
    const label = basename(app);
    if (!isValidSegment(label)) {
      warnings.push(
        `skipped application ${relative(root, app)}: "${label}" is not a valid prefix (an identifier — letters, digits and _, not starting with a digit — or kebab-case: lowercase words joined by single hyphens)`,
      );
      continue;
    }
    found.push({ dir: components, prefix: label });
  }
  return found;
}

function existingDir(base: string, dir: string, where = "--components-dir"): string {
  const absolute = resolve(base, dir);
  const flag = where === "--components-dir";
  if (!existsSync(absolute)) {
    throw new UsageError(
      flag
        ? `components directory ${dir} does not exist — pass --components-dir DIR with an existing directory`
        : `${where}: components directory ${dir} does not exist — create it or fix the path`,
    );
  }
  if (!isDirectory(absolute)) {
    throw new UsageError(
      flag
        ? `${dir} is not a directory — pass --components-dir DIR with a directory of components`
        : `${where}: ${dir} is not a directory`,
    );
  }
  return absolute;
}

/** A declaration file's absolute path. @throws UsageError unless it names a TypeScript file. */
function typesFile(base: string, file: string, where: string): string {
  if (!/\.[cm]?ts$/.test(file)) {
    throw new UsageError(
      `${where} ${JSON.stringify(file)} is not a TypeScript file — name a .d.ts file, e.g. svc-env.d.ts`,
    );
  }
  return resolve(base, file);
}

function checkPrefix(prefix: string | undefined, where = "--prefix"): string {
  if (prefix === undefined || prefix === "") return "";
  if (!isValidSegment(prefix)) {
    throw new UsageError(
      `${where} ${JSON.stringify(prefix)} is not a valid prefix — use an identifier (letters, digits and _, not starting with a digit) or kebab-case (lowercase words joined by single hyphens)`,
    );
  }
  return prefix;
}

function isDirectory(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split("\n")[0] ?? "";
}
