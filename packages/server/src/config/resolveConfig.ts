import { dirname, relative, resolve } from "node:path";
import { resolveBuildDir } from "../served/manifest.ts";
import { type ConfigPlace, checkUrl, typesFile } from "./configValues.ts";
import { findConfigFile, loadConfigFile } from "./loadConfigFile.ts";
import { type ResolvedSource, resolveSources } from "./resolveSources.ts";
import {
  type ConfigFlags,
  DEFAULT_DEV_ORIGIN,
  type RENDER_ISOLATIONS,
  type RequestLog,
  type SvcConfig,
} from "./svcConfig.ts";

export interface ResolveConfigOptions {
  /** Where relative flags are resolved and the config file is looked for. Default: process.cwd(). */
  cwd?: string;
  /** `--config FILE`: this file instead of looking for `svc.config.*` in `cwd`. */
  configFile?: string;
  flags?: ConfigFlags;
  /** Environment (`SVC_BUILD_DIR`). Default: process.env. */
  env?: Readonly<Record<string, string | undefined>>;
}

type Env = Readonly<Record<string, string | undefined>>;

/** Everything `serve` and `build` need, with defaults applied and paths absolute. */
export interface ResolvedConfig {
  /** The directory of the config file, or `cwd` without one. */
  root: string;
  configFile: string | undefined;
  sources: ResolvedSource[];
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
    renderIsolation: (typeof RENDER_ISOLATIONS)[number];
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
  const place: ConfigPlace = {
    cwd,
    root: configFile === undefined ? cwd : dirname(configFile),
    where: configFile === undefined ? "" : relative(cwd, configFile) || configFile,
  };
  const warnings: string[] = [];
  const { sources, builtinExamples } = resolveSources(config, flags, place, warnings);
  const build = resolveBuild(config, flags, env, place);
  const serve = resolveServe(config, flags, env, place, warnings);
  return {
    root: place.root,
    configFile,
    sources,
    builtinExamples,
    publicUrl: resolvePublicUrl(config, flags, env, place),
    staticUrl: checkUrl(config.staticUrl, `${place.where}: staticUrl`),
    types:
      flags.types !== undefined
        ? typesFile(cwd, flags.types, "--out")
        : config.types !== undefined
          ? typesFile(place.root, config.types, `${place.where}: types`)
          : undefined,
    build,
    serve,
    warnings,
  };
}

/** `--public-url`, else `SVC_PUBLIC_URL`, else `publicUrl`; the message names where it came from. */
function resolvePublicUrl(
  config: SvcConfig,
  flags: ConfigFlags,
  env: Env,
  { where }: ConfigPlace,
): string | undefined {
  if (flags.publicUrl !== undefined) return checkUrl(flags.publicUrl, "--public-url");
  if (env.SVC_PUBLIC_URL) return checkUrl(env.SVC_PUBLIC_URL, "SVC_PUBLIC_URL");
  return checkUrl(config.publicUrl, `${where}: publicUrl`);
}

function resolveBuild(
  config: SvcConfig,
  flags: ConfigFlags,
  env: Env,
  { cwd, root }: ConfigPlace,
): ResolvedConfig["build"] {
  const envBuildDir = env.SVC_BUILD_DIR;
  const output =
    flags.output !== undefined
      ? resolve(cwd, flags.output)
      : envBuildDir
        ? resolve(cwd, envBuildDir)
        : config.build?.output !== undefined
          ? resolve(root, config.build.output)
          : undefined;
  return {
    output,
    minify: flags.minify ?? config.build?.minify ?? true,
    sourcemap: flags.sourcemap ?? config.build?.sourcemap ?? false,
    compress: flags.compress ?? config.build?.compress ?? false,
    ssr: flags.ssr ?? config.build?.ssr ?? true,
    importMap: flags.importMap ?? config.build?.importMap ?? true,
  };
}

function resolveServe(
  config: SvcConfig,
  flags: ConfigFlags,
  env: Env,
  place: ConfigPlace,
  warnings: string[],
): ResolvedConfig["serve"] {
  const serve = config.serve ?? {};
  return {
    host: flags.host ?? serve.host ?? "0.0.0.0",
    port: flags.port ?? serve.port ?? 8000,
    corsOrigins:
      flags.corsOrigins !== undefined && flags.corsOrigins.length > 0
        ? [...flags.corsOrigins]
        : (serve.corsOrigins ?? [DEFAULT_DEV_ORIGIN]),
    allowedHosts:
      serve.allowedHosts === true
        ? true
        : [...(serve.allowedHosts ?? []), ...(flags.allowedHosts ?? [])],
    buildTimeoutMs: serve.buildTimeoutMs ?? 30_000,
    buildDir: resolveServedBuildDir(config, flags, env, place, warnings),
    static: flags.static ?? serve.static ?? false,
    renderIsolation: flags.renderIsolation ?? serve.renderIsolation ?? "worker",
    renderWorkers: flags.renderWorkers ?? serve.renderWorkers,
    renderQueue: serve.renderQueue,
    renderMemoryMb: serve.renderMemoryMb,
    renderTimeoutMs: serve.renderTimeoutMs,
    log: flags.log ?? serve.log ?? "text",
    maxConnectionsPerAddress: serve.maxConnectionsPerAddress,
    maxEventClients: serve.maxEventClients,
  };
}

/**
 * The build `svc serve` serves: `--build-dir`, else `SVC_BUILD_DIR`, else `serve.buildDir`
 * once it holds a manifest (with a warning until then).
 */
function resolveServedBuildDir(
  config: SvcConfig,
  flags: ConfigFlags,
  env: Env,
  { cwd, root, where }: ConfigPlace,
  warnings: string[],
): string | undefined {
  if (flags.buildDir !== undefined) return resolve(cwd, flags.buildDir);
  const envBuildDir = env.SVC_BUILD_DIR;
  const configured = config.serve?.buildDir;
  const fromConfig = configured === undefined ? undefined : resolve(root, configured);
  const buildDir = resolveBuildDir(fromConfig, {
    SVC_BUILD_DIR: envBuildDir ? resolve(cwd, envBuildDir) : envBuildDir,
  });
  if (fromConfig !== undefined && buildDir === undefined && envBuildDir === undefined) {
    warnings.push(
      `${where}: serve.buildDir ${configured} holds no manifest.json yet, so bundles are built live — run svc build to create it`,
    );
  }
  return buildDir;
}
