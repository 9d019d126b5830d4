import * as esbuild from "esbuild";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { createRegistry } from "../config/createRegistry.ts";
import { type ResolvedConfig, resolveConfig } from "../config/resolveConfig.ts";
import { type ConfigFlags, RENDER_ISOLATIONS, REQUEST_LOGS } from "../config/svcConfig.ts";
import { UsageError } from "../config/usageError.ts";
import { type DevServer, startDevServer } from "../devServer/startDevServer.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { ManifestError } from "../served/manifest.ts";
import {
  asList,
  type CommonFlags,
  givenBoolean,
  parseChoice,
  parsePort,
  parseRenderWorkers,
} from "./flags.ts";

export interface ServeFlags extends CommonFlags {
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

/**
 * `svc serve` (and `svc` alone): the dev server on the resolved config, what it serves
 * printed, stopped gracefully by SIGINT or SIGTERM.
 */
export async function serveCommand(flags: ServeFlags, argv: readonly string[]): Promise<DevServer> {
  const configFlags: ConfigFlags = {
    componentsDir: flags.componentsDir,
    host: flags.host,
    port: flags.port === undefined ? undefined : parsePort(flags.port),
    corsOrigins: asList(flags.corsOrigin),
    allowedHosts: asList(flags.allowedHost),
    buildDir: flags.buildDir,
    static: givenBoolean(argv, "static"),
    renderIsolation: parseChoice("--render-isolation", flags.renderIsolation, RENDER_ISOLATIONS),
    renderWorkers: parseRenderWorkers(flags.renderWorkers),
    log: parseChoice("--log", flags.log, REQUEST_LOGS),
    publicUrl: flags.publicUrl,
  };
  const config = await resolveConfig({ configFile: flags.config, flags: configFlags });
  const logger = consoleLogger;
  for (const warning of config.warnings) logger.warn(warning);
  const { buildDir } = config.serve;
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
  const server = await start(config, registry, givenBoolean(argv, "live") ?? true, logger);
  printServing(config, server, registry, buildOnly, logger);
  // The render workers start now, so the first page does not wait for them (a missing peer
  // is said by the first render, as for a bridge).
  server.handlers.warm?.().catch(() => {});
  stopOnSignals(server, logger);
  return server;
}

/** The dev server on `config`. @throws UsageError for a port or host it cannot listen on. */
async function start(
  config: ResolvedConfig,
  registry: ComponentRegistry,
  live: boolean,
  logger: Logger,
): Promise<DevServer> {
  const { serve } = config;
  try {
    return await startDevServer({
      registry,
      host: serve.host,
      port: serve.port,
      corsOrigins: serve.corsOrigins,
      allowedHosts: serve.allowedHosts,
      buildTimeoutMs: serve.buildTimeoutMs,
      buildDir: serve.buildDir,
      staticMode: serve.static,
      live,
      types: config.types,
      renderIsolation: serve.renderIsolation,
      renderWorkers: serve.renderWorkers,
      renderQueue: serve.renderQueue,
      renderMemoryMb: serve.renderMemoryMb,
      renderTimeoutMs: serve.renderTimeoutMs,
      log: serve.log,
      maxConnectionsPerAddress: serve.maxConnectionsPerAddress,
      maxEventClients: serve.maxEventClients,
      publicUrl: config.publicUrl,
      staticUrl: config.staticUrl,
      logger,
    });
  } catch (error) {
    if (error instanceof ManifestError) throw new UsageError(error.message);
    throw listenError(error, serve.host, serve.port) ?? error;
  }
}

/** What to say when the server cannot listen, with the flag that fixes it. */
function listenError(error: unknown, host: string, port: number): UsageError | undefined {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "EADDRINUSE")
    return new UsageError(`port ${port} is already in use — pass --port to choose another`);
  if (code === "EACCES")
    return new UsageError(
      `no permission to listen on port ${port} — pass --port with a port above 1023`,
    );
  if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
    return new UsageError(
      `cannot listen on host ${host} — pass --host with an address of this machine`,
    );
  return undefined;
}

/** What is served where, and warnings about who can reach it. */
function printServing(
  config: ResolvedConfig,
  server: DevServer,
  registry: ComponentRegistry,
  buildOnly: boolean,
  logger: Logger,
): void {
  const { host, buildDir, allowedHosts } = config.serve;
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
}

/** SIGINT or SIGTERM: shut down gracefully and exit 0; a second signal exits at once. */
function stopOnSignals(server: DevServer, logger: Logger): void {
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
}
