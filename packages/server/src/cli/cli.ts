import { readFileSync } from "node:fs";
import { cac } from "cac";
import * as esbuild from "esbuild";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { consoleLogger } from "../logger.ts";
import {
  BuildFailedError,
  BuildOutputError,
  BuildSetupError,
  build,
  formatBuildReport,
} from "../production/build.ts";
import { ManifestError } from "../production/manifest.ts";
import {
  type ConfigFlags,
  createRegistry,
  DEFAULT_DEV_ORIGIN,
  REQUEST_LOGS,
  resolveConfig,
  UsageError,
} from "./config.ts";
import { type DevServer, startDevServer } from "./devServer.ts";
import { formatInitReport, init } from "./init.ts";
import { type TypesFlags, typesCommand } from "./types.ts";

export { BUILTIN_COMPONENTS_DIR, UsageError } from "./config.ts";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

function parsePort(value: unknown): number {
  const port = Number(value);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new UsageError(`--port must be an integer from 0 to 65535, not ${String(value)}`);
  }
  return port;
}

function asList(value: unknown): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : [value]).map(String);
}

interface CommonFlags {
  config?: string;
  componentsDir?: string;
}

interface ServeFlags extends CommonFlags {
  host?: string;
  port?: unknown;
  corsOrigin?: unknown;
  allowedHost?: unknown;
  buildDir?: string;
  static?: boolean;
  renderIsolation?: unknown;
  renderWorkers?: unknown;
  log?: unknown;
  publicUrl?: string;
}

function parseRenderWorkers(value: unknown): number | undefined {
  if (value === undefined) return undefined;
  const workers = Number(value);
  if (!Number.isInteger(workers) || workers < 1) {
    throw new UsageError(
      `--render-workers must be a whole number of at least 1, not ${String(value)}`,
    );
  }
  return workers;
}

function parseChoice<T extends string>(
  flag: string,
  value: unknown,
  choices: readonly T[],
): T | undefined {
  if (value === undefined) return undefined;
  if (!choices.includes(value as T)) {
    throw new UsageError(`${flag} must be ${choices.join(" or ")}, not ${String(value)}`);
  }
  return value as T;
}

interface BuildFlags extends CommonFlags {
  output?: string;
  prefix?: string;
  minify?: boolean;
  sourcemap?: boolean;
  compress?: boolean;
  ssr?: boolean;
  importMap?: boolean;
}

/**
 * Whether `--name` or `--no-name` was typed: cac fills in `true` for a negatable flag that
 * was not given, which must not override the config file.
 */
function givenBoolean(argv: readonly string[], name: string): boolean | undefined {
  let value: boolean | undefined;
  for (const arg of argv) {
    if (arg === `--${name}`) value = true;
    else if (arg === `--no-${name}`) value = false;
  }
  return value;
}

async function serve(flags: ServeFlags, argv: readonly string[]): Promise<DevServer> {
  const configFlags: ConfigFlags = {
    componentsDir: flags.componentsDir,
    host: flags.host,
    port: flags.port === undefined ? undefined : parsePort(flags.port),
    corsOrigins: asList(flags.corsOrigin),
    allowedHosts: asList(flags.allowedHost),
    buildDir: flags.buildDir,
    static: givenBoolean(argv, "static"),
    renderIsolation: parseChoice("--render-isolation", flags.renderIsolation, ["worker", "none"]),
    renderWorkers: parseRenderWorkers(flags.renderWorkers),
    log: parseChoice("--log", flags.log, REQUEST_LOGS),
    publicUrl: flags.publicUrl,
  };
  const config = await resolveConfig({ configFile: flags.config, flags: configFlags });
  const logger = consoleLogger;
  for (const warning of config.warnings) logger.warn(warning);
  const { host, port, corsOrigins, allowedHosts, buildTimeoutMs, buildDir } = config.serve;
  if (config.serve.static && buildDir === undefined) {
    throw new UsageError(
      "--static needs a build directory — pass --build-dir DIR (the output of svc build) or set SVC_BUILD_DIR",
    );
  }
  // React chooses its build once, when the first island render loads it: production's for a
  // build directory (no development messages in the HTML or the errors), development's
  // otherwise — unless the environment chose.
  process.env.NODE_ENV ??= buildDir !== undefined ? "production" : "development";
  // A build served where no sources are found is served alone: its components, its metadata
  // (minimal records), never svc's built-in examples mixed in.
  const buildOnly = buildDir !== undefined && config.builtinExamples;
  const registry = buildOnly
    ? new ComponentRegistry(undefined, { logger })
    : createRegistry(config, logger);
  let server: DevServer;
  try {
    server = await startDevServer({
      registry,
      host,
      port,
      corsOrigins,
      allowedHosts,
      buildTimeoutMs,
      buildDir,
      staticMode: config.serve.static,
      live: givenBoolean(argv, "live") ?? true,
      types: config.types,
      renderIsolation: config.serve.renderIsolation,
      renderWorkers: config.serve.renderWorkers,
      renderQueue: config.serve.renderQueue,
      renderMemoryMb: config.serve.renderMemoryMb,
      renderTimeoutMs: config.serve.renderTimeoutMs,
      log: config.serve.log,
      maxConnectionsPerAddress: config.serve.maxConnectionsPerAddress,
      maxEventClients: config.serve.maxEventClients,
      publicUrl: config.publicUrl,
      staticUrl: config.staticUrl,
      logger,
    });
  } catch (error) {
    if (error instanceof ManifestError) throw new UsageError(error.message);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new UsageError(`port ${port} is already in use — pass --port to choose another`);
    if (code === "EACCES")
      throw new UsageError(
        `no permission to listen on port ${port} — pass --port with a port above 1023`,
      );
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UsageError(
        `cannot listen on host ${host} — pass --host with an address of this machine`,
      );
    throw error;
  }
  const shown = host === "0.0.0.0" ? `http://localhost:${server.port}` : server.url;
  if (buildOnly) {
    logger.info(`svc serving the build in ${buildDir} (no component sources here)`);
  } else {
    const from = config.sources.map((s) => (s.prefix ? `${s.prefix}:${s.dir}` : s.dir)).join(", ");
    logger.info(
      `svc serving ${registry.size} component${registry.size === 1 ? "" : "s"} from ${from}`,
    );
  }
  if (buildDir !== undefined) {
    logger.info(
      `  build:      ${buildDir}${config.serve.static ? " (static mode: the bundle endpoint answers 404)" : ""}`,
    );
  }
  logger.info(`  api:        ${shown}/api/bundles`);
  if (buildDir !== undefined) logger.info(`  static:     ${shown}/static/svc/manifest.json`);
  logger.info(`  loader:     ${shown}/svc/loader.js`);
  logger.info(`  playground: ${shown}/`);
  if (host === "0.0.0.0" || host === "::") {
    logger.warn(
      `svc serve listens on all interfaces (${host}), so other machines on your network can reach it and read your components' sources — pass --host 127.0.0.1 to keep it on this machine`,
    );
  }
  if (allowedHosts === true) {
    logger.warn(
      "serve.allowedHosts is true: any Host is answered, so a web page elsewhere can read your sources through DNS rebinding",
    );
  }
  // The render workers start now, so the first page does not wait for them (a missing peer
  // is said by the first render, as for a bridge).
  server.handlers.warm?.().catch(() => {});
  const stop = (signal: string) => {
    logger.info(`svc: ${signal}, shutting down (in-flight requests finish first)`);
    void server.close().then(async () => {
      await esbuild.stop();
      process.exit(0);
    });
    // A second signal does not wait.
    const now = () => process.exit(0);
    process.once("SIGINT", now);
    process.once("SIGTERM", now);
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
  return server;
}

async function buildCommand(flags: BuildFlags, argv: readonly string[]): Promise<void> {
  const config = await resolveConfig({
    configFile: flags.config,
    flags: {
      componentsDir: flags.componentsDir,
      prefix: flags.prefix,
      output: flags.output,
      minify: givenBoolean(argv, "minify"),
      sourcemap: givenBoolean(argv, "sourcemap"),
      compress: givenBoolean(argv, "compress"),
      ssr: givenBoolean(argv, "ssr"),
      importMap: givenBoolean(argv, "import-map"),
    },
  });
  const logger = consoleLogger;
  for (const warning of config.warnings) logger.warn(warning);
  const output = config.build.output;
  if (output === undefined) {
    throw new UsageError(
      "--output DIR is required — pass it, set SVC_BUILD_DIR, or set build.output in svc.config",
    );
  }
  const registry = createRegistry(config, logger);
  const interactive = process.stderr.isTTY === true;
  const progress = (message: string) => {
    if (interactive) process.stderr.write(`\r\x1b[Ksvc build: ${message}`);
    else process.stderr.write(`svc build: ${message}\n`);
  };
  try {
    const result = await build({
      registry,
      outDir: output,
      minify: config.build.minify,
      sourcemap: config.build.sourcemap,
      compress: config.build.compress,
      ssr: config.build.ssr,
      importMap: config.build.importMap,
      onProgress: progress,
    });
    if (interactive) process.stderr.write("\r\x1b[K");
    process.stdout.write(`${formatBuildReport(result)}\n`);
  } catch (error) {
    if (interactive) process.stderr.write("\r\x1b[K");
    if (error instanceof BuildSetupError) throw new UsageError(error.message);
    if (error instanceof BuildFailedError || error instanceof BuildOutputError) {
      process.stderr.write(`svc: ${error.message}\n`);
      process.exitCode = 1;
      return;
    }
    throw error;
  } finally {
    await esbuild.stop();
  }
}

export function createCli() {
  const cli = cac("svc");
  const common = (command: ReturnType<typeof cli.command>) =>
    command
      .option(
        "--components-dir <dir>",
        "Components directory (default: ./components if it exists, else the built-in examples)",
      )
      .option(
        "--config <file>",
        "Project configuration (default: svc.config.{ts,mts,js,mjs,json} in the current directory)",
      );
  const serveOptions = (command: ReturnType<typeof cli.command>) =>
    common(command)
      .option("--host <host>", "Interface to listen on (default: 0.0.0.0)")
      .option("--port <port>", "Port to listen on; 0 picks a free one (default: 8000)")
      .option(
        "--cors-origin <origin>",
        `Origin allowed cross-origin GET access; repeat for several (default: ${DEFAULT_DEV_ORIGIN})`,
      )
      .option(
        "--allowed-host <host>",
        "Host name answered besides IP addresses and localhost (.example.com: and its subdomains); repeat for several",
      )
      .option(
        "--build-dir <dir>",
        "Serve pre-built bundles from this svc build output (and its files under /static/svc/); default: $SVC_BUILD_DIR",
      )
      .option("--static", "Static mode: the bundle endpoint answers 404; needs a build directory")
      .option("--no-live", "Turn off live reload (the GET /api/events stream and the file watcher)")
      .option(
        "--render-isolation <mode>",
        "Where islands render: worker (a pool of worker threads) or none (the server's own thread); default: worker",
      )
      .option("--render-workers <n>", "Render workers in the pool (default: the machine's cores)")
      .option("--log <format>", "Request log: text, json or off (default: text)")
      .option(
        "--public-url <url>",
        "The URL at which browsers reach the API, when pages come from another origin or a proxy (e.g. http://127.0.0.1:8000/api); default: $SVC_PUBLIC_URL, else /api",
      )
      .example("svc serve --components-dir ./src/components --port 3001")
      .example("svc serve --build-dir dist/svc --static");

  serveOptions(
    cli.command(
      "serve",
      "Run the development server, also run by `svc` alone (live bundling, picks up changes without a restart)",
    ),
  ).action((flags: ServeFlags) => serve(flags, cli.rawArgs));
  // `svc` alone runs `svc serve`; the help lists the command once, as `serve`.
  serveOptions(cli.command("", "")).action((flags: ServeFlags) => serve(flags, cli.rawArgs));
  common(
    cli.command(
      "build",
      "Pre-compile every component into hashed bundles plus manifest.json, for production",
    ),
  )
    .option(
      "--output <dir>",
      "Output directory (required unless SVC_BUILD_DIR or svc.config sets it)",
    )
    .option("--prefix <prefix>", "Register the components as PREFIX:name")
    .option("--no-minify", "Turn minification off")
    .option("--sourcemap", "Append inline source maps (off by default)")
    .option("--compress", "Also write .gz and .br siblings of every bundle")
    .option("--no-ssr", "Skip the server bundles islands render with (built by default)")
    .option(
      "--no-import-map",
      "Skip vendor/, loader.esm.js and importmap.json (the no-blob CSP mode; written by default)",
    )
    .example("svc build --output dist/svc")
    .example(
      "svc build --output dist/svc --components-dir ./src/components --prefix app --compress",
    )
    .action((flags: BuildFlags) => buildCommand(flags, cli.rawArgs));
  common(
    cli.command(
      "types",
      "Write TypeScript declarations of every component's props from its schema.json",
    ),
  )
    .option("--out <file>", "Declaration file (default: types in svc.config, else svc-env.d.ts)")
    .option("--prefix <prefix>", "Register the components as PREFIX:name")
    .option(
      "--python <file>",
      "Write the props as Python TypedDicts to this module instead (for Django, Flask, FastAPI)",
    )
    .option("--check", "Write nothing; exit 1 when the file is out of date (for CI)")
    .example("svc types")
    .example("svc types --out src/svc-env.d.ts --check")
    .example("svc types --python app/svc_types.py")
    .action((flags: TypesFlags) => typesCommand(flags, cli.rawArgs.slice(2)));
  cli
    .command(
      "init",
      "Add svc to this npm project: components/ with an example, svc.config, package.json scripts",
    )
    .example("svc init")
    .action(() => {
      process.stdout.write(`${formatInitReport(init())}\n`);
    });
  cli.help(tidyHelp);
  cli.version(version());
  return cli;
}

type HelpSection = { title?: string; body: string };

/**
 * cac's help, tidied: the default command (`svc` alone, which is `svc serve`) is not listed as
 * a command of its own, a negatable flag shows no `(default: true)`, and lines carry no
 * trailing spaces.
 */
function tidyHelp(sections: HelpSection[]): HelpSection[] {
  // The help of `svc` alone is the default command's, whose usage line cac leaves empty.
  const top = sections.some((s) => s.title === "Usage" && s.body.trim() === "$ svc");
  return sections.map((section) => {
    let { title, body } = section;
    if (title === "Usage")
      body = top ? "  $ svc [command] [options]" : `${body.trimEnd()} [options]`;
    if (title === "Commands") body = withoutDefault(body, (line) => /^ {2}\s/.test(line));
    if (title?.startsWith("For more info"))
      body = withoutDefault(body, (line) => line.trim() === "$ svc --help");
    if (title === "Options") {
      if (top) title = "Options (of svc serve)";
      body = body.replace(/^( {2}--no-.*?) \(default: true\)$/gm, "$1");
    }
    if (title === "Examples") body = body.replace(/^(?! )/gm, "  $ ");
    return { title, body: body.replace(/[ \t]+$/gm, "") };
  });
}

/** `body` without the lines cac writes for the default command. */
function withoutDefault(body: string, isDefault: (line: string) => boolean): string {
  return body
    .split("\n")
    .filter((line) => !isDefault(line))
    .join("\n");
}

/** Entry point of the `svc` command. */
export async function main(argv: readonly string[]): Promise<void> {
  const cli = createCli();
  try {
    cli.parse(["node", "svc", ...argv], { run: false });
    if (cli.options.help || cli.options.version) return;
    const command = cli.matchedCommand?.name ?? "";
    if (command === "" && cli.args.length > 0) {
      throw new UsageError(`unknown command "${cli.args[0]}" — run svc --help to see the commands`);
    }
    await cli.runMatchedCommand();
  } catch (error) {
    if (error instanceof UsageError || (error as Error).name === "CACError") {
      const message = (error as Error).message.replace(
        /^Unknown option `(.+)`$/,
        "unknown option $1 — run svc --help to see the options",
      );
      process.stderr.write(`svc: ${message}\n`);
      process.exit(2);
    }
    throw error;
  }
}
