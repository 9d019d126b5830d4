import { existsSync, readFileSync, statSync } from "node:fs";
import { resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { cac } from "cac";
import * as esbuild from "esbuild";
import { ComponentRegistry } from "./componentRegistry.ts";
import { DEFAULT_DEV_ORIGIN, type DevServer, startDevServer } from "./devServer.ts";
import { consoleLogger } from "./logger.ts";

/** The components that ship with svc, served when a project has no `./components`. */
export const BUILTIN_COMPONENTS_DIR = fileURLToPath(
  new URL("../examples/components", import.meta.url),
);

/** A mistake in how svc was invoked: printed as one line, exit code 2. */
export class UsageError extends Error {}

/** `--components-dir`, else `./components` when it exists, else the built-in examples. */
export function resolveComponentsDir(flag: string | undefined, cwd = process.cwd()): string {
  if (flag !== undefined) {
    const dir = resolve(cwd, flag);
    if (!existsSync(dir)) {
      throw new UsageError(
        `components directory ${flag} does not exist — pass --components-dir DIR with an existing directory`,
      );
    }
    if (!statSync(dir).isDirectory()) {
      throw new UsageError(
        `${flag} is not a directory — pass --components-dir DIR with a directory of components`,
      );
    }
    return dir;
  }
  const local = resolve(cwd, "components");
  return existsSync(local) && statSync(local).isDirectory() ? local : BUILTIN_COMPONENTS_DIR;
}

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
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

interface ServeFlags {
  componentsDir?: string;
  host: string;
  port: unknown;
  corsOrigin?: unknown;
}

async function serve(flags: ServeFlags): Promise<DevServer> {
  const componentsDir = resolveComponentsDir(flags.componentsDir);
  const port = parsePort(flags.port);
  const corsOrigins = asList(flags.corsOrigin);
  const logger = consoleLogger;
  const registry = new ComponentRegistry(componentsDir, { logger });
  let server: DevServer;
  try {
    server = await startDevServer({
      registry,
      host: flags.host,
      port,
      corsOrigins: corsOrigins.length > 0 ? corsOrigins : [DEFAULT_DEV_ORIGIN],
      logger,
    });
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EADDRINUSE")
      throw new UsageError(`port ${port} is already in use — pass --port to choose another`);
    if (code === "EACCES")
      throw new UsageError(
        `no permission to listen on port ${port} — pass --port with a port above 1023`,
      );
    if (code === "EADDRNOTAVAIL" || code === "ENOTFOUND")
      throw new UsageError(
        `cannot listen on host ${flags.host} — pass --host with an address of this machine`,
      );
    throw error;
  }
  const shown = flags.host === "0.0.0.0" ? `http://localhost:${server.port}` : server.url;
  logger.info(`svc serving ${registry.size} components from ${componentsDir}`);
  logger.info(`  api:    ${shown}/api/bundles`);
  logger.info(`  loader: ${shown}/svc/loader.js`);
  logger.info(`  index:  ${shown}/`);
  const stop = (signal: string) => {
    logger.info(`svc: ${signal}, shutting down`);
    void server.close().then(async () => {
      await esbuild.stop();
      process.exit(0);
    });
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
  return server;
}

export function createCli() {
  const cli = cac("svc");
  const serveOptions = (command: ReturnType<typeof cli.command>) =>
    command
      .option(
        "--components-dir <dir>",
        "Components directory (default: ./components if it exists, else the built-in examples)",
      )
      .option("--host <host>", "Interface to listen on", { default: "0.0.0.0" })
      .option("--port <port>", "Port to listen on (0 picks a free one)", { default: 8000 })
      .option(
        "--cors-origin <origin>",
        `Origin allowed cross-origin GET access; repeat for several (default: ${DEFAULT_DEV_ORIGIN})`,
      )
      .example("svc serve --components-dir ./src/components --port 3001");

  serveOptions(
    cli.command(
      "serve",
      "Run the development server (live bundling, picks up changes without a restart)",
    ),
  ).action((flags: ServeFlags) => serve(flags));
  serveOptions(cli.command("", "Same as `svc serve`")).action((flags: ServeFlags) => serve(flags));
  cli.help();
  cli.version(version());
  return cli;
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
