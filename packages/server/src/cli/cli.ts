import { readFileSync } from "node:fs";
import { type Command, cac } from "cac";
import { DEFAULT_DEV_ORIGIN } from "../config/svcConfig.ts";
import { UsageError } from "../config/usageError.ts";
import { type BuildFlags, buildCommand } from "./build.ts";
import { tidyHelp } from "./help.ts";
import { initCommand } from "./init.ts";
import { type ServeFlags, serveCommand } from "./serve.ts";
import { type TypesFlags, typesCommand } from "./types.ts";

function version(): string {
  const pkg = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
    version: string;
  };
  return pkg.version;
}

/** The options of every command that reads `svc.config`. */
function withCommonOptions(command: Command): Command {
  return command
    .option(
      "--components-dir <dir>",
      "Components directory (default: ./components if it exists, else the built-in examples)",
    )
    .option(
      "--config <file>",
      "Project configuration (default: svc.config.{ts,mts,js,mjs,json} in the current directory)",
    );
}

/** The options of `svc serve`, which `svc` alone takes too. */
function withServeOptions(command: Command): Command {
  return withCommonOptions(command)
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
}

/** The options of `svc build`. */
function withBuildOptions(command: Command): Command {
  return withCommonOptions(command)
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
    );
}

/** The options of `svc types`. */
function withTypesOptions(command: Command): Command {
  return withCommonOptions(command)
    .option("--out <file>", "Declaration file (default: types in svc.config, else svc-env.d.ts)")
    .option("--prefix <prefix>", "Register the components as PREFIX:name")
    .option(
      "--python <file>",
      "Write the props as Python TypedDicts to this module instead (for Django, Flask, FastAPI)",
    )
    .option("--check", "Write nothing; exit 1 when the file is out of date (for CI)")
    .example("svc types")
    .example("svc types --out src/svc-env.d.ts --check")
    .example("svc types --python app/svc_types.py");
}

export function createCli() {
  const cli = cac("svc");
  withServeOptions(
    cli.command(
      "serve",
      "Run the development server, also run by `svc` alone (live bundling, picks up changes without a restart)",
    ),
  ).action((flags: ServeFlags) => serveCommand(flags, cli.rawArgs));
  // `svc` alone runs `svc serve`; the help lists the command once, as `serve`.
  withServeOptions(cli.command("", "")).action((flags: ServeFlags) =>
    serveCommand(flags, cli.rawArgs),
  );
  withBuildOptions(
    cli.command(
      "build",
      "Pre-compile every component into hashed bundles plus manifest.json, for production",
    ),
  ).action((flags: BuildFlags) => buildCommand(flags, cli.rawArgs));
  withTypesOptions(
    cli.command(
      "types",
      "Write TypeScript declarations of every component's props from its schema.json",
    ),
  ).action((flags: TypesFlags) => typesCommand(flags, cli.rawArgs.slice(2)));
  cli
    .command(
      "init",
      "Add svc to this npm project: components/ with an example, svc.config, package.json scripts",
    )
    .example("svc init")
    .action(initCommand);
  cli.help(tidyHelp);
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
