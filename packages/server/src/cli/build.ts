import * as esbuild from "esbuild";
import { build } from "../build/build.ts";
import { BuildFailedError, BuildOutputError, BuildSetupError } from "../build/buildErrors.ts";
import { formatBuildReport } from "../build/buildReport.ts";
import { createRegistry } from "../config/createRegistry.ts";
import { resolveConfig } from "../config/resolveConfig.ts";
import { UsageError } from "../config/usageError.ts";
import { consoleLogger } from "../logger.ts";
import { type CommonFlags, givenBoolean } from "./flags.ts";

export interface BuildFlags extends CommonFlags {
  output?: string;
  prefix?: string;
  minify?: boolean;
  sourcemap?: boolean;
  compress?: boolean;
  ssr?: boolean;
  importMap?: boolean;
}

/**
 * `svc build`: every component into hashed bundles and a manifest, the report on stdout,
 * progress on stderr. A build that fails (a component, the output directory) exits 1.
 */
export async function buildCommand(flags: BuildFlags, argv: readonly string[]): Promise<void> {
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
