import { existsSync } from "node:fs";
import { relative, resolve } from "node:path";
import { createRegistry } from "../config/createRegistry.ts";
import { resolveConfig } from "../config/resolveConfig.ts";
import { UsageError } from "../config/usageError.ts";
import { InvalidSchemaError } from "../errors.ts";
import { consoleLogger } from "../logger.ts";
import { generatePythonTypes } from "../types/pythonTypes.ts";
import {
  canResolveTypesModule,
  generateTypes,
  isTypesFileCurrent,
  TYPES_FILE,
  writeTypesFile,
} from "../types/typesFile.ts";

export interface TypesFlags {
  config?: string;
  componentsDir?: string;
  prefix?: string;
  out?: string;
  /** Write the props as a Python module of TypedDicts to this file instead. */
  python?: string;
  check?: boolean;
}

/**
 * `svc types`: writes the declaration file of every component's props (only when its text
 * changes); with `--check`, writes nothing and exits 1 when the file is missing or differs.
 * `--python FILE` writes the props as Python TypedDicts there instead. A broken `schema.json`
 * (or a `$ref` out of the project) exits 1 naming the file, as does a file that cannot be
 * written.
 */
export async function typesCommand(flags: TypesFlags, argv: readonly string[]): Promise<void> {
  const python = pythonFile(flags);
  const config = await resolveConfig({
    configFile: flags.config,
    flags: { componentsDir: flags.componentsDir, prefix: flags.prefix, types: flags.out },
  });
  const logger = consoleLogger;
  for (const warning of config.warnings) logger.warn(warning);
  const file = python ?? config.types ?? resolve(config.root, TYPES_FILE);
  const shown = relative(process.cwd(), file) || file;
  const registry = createRegistry(config, logger);
  let content: string;
  try {
    content = python === undefined ? await generateTypes(registry) : generatePythonTypes(registry);
  } catch (error) {
    if (!(error instanceof InvalidSchemaError)) throw error;
    process.stderr.write(`svc: ${error.message}\n`);
    process.exitCode = 1;
    return;
  }
  const typed = registry.list().length;
  if (flags.check) {
    check(file, shown, content, typed, argv);
    return;
  }
  let wrote: boolean;
  try {
    wrote = writeTypesFile(file, content);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    const flag = python === undefined ? "--out" : "--python";
    process.stderr.write(
      `svc: cannot write ${shown} (${code}) — pass ${flag} with a file you may write\n`,
    );
    process.exitCode = 1;
    return;
  }
  if (python === undefined && !canResolveTypesModule(file)) {
    logger.warn(
      `@svc/protocol cannot be found from ${shown}, so TypeScript ignores its declarations — install @svc/protocol in this project`,
    );
  }
  process.stdout.write(
    wrote
      ? `svc types: wrote ${shown} (${typed} components)\n`
      : `svc types: ${shown} is up to date (${typed} components)\n`,
  );
}

/** `--check`: says whether `file` holds `content`, and exits 1 with the fix when not. */
function check(
  file: string,
  shown: string,
  content: string,
  typed: number,
  argv: readonly string[],
): void {
  if (isTypesFileCurrent(file, content)) {
    process.stdout.write(`svc types: ${shown} is up to date (${typed} components)\n`);
    return;
  }
  const fix = ["svc", ...argv.filter((arg) => arg !== "--check")].map(shellWord).join(" ");
  const state = existsSync(file) ? "is out of date with the components' schemas" : "does not exist";
  process.stderr.write(`svc: ${shown} ${state} — run ${fix}\n`);
  process.exitCode = 1;
}

/**
 * The Python module `--python` names, resolved from the working directory; undefined without
 * it. @throws UsageError for a file that is not a `.py` module, or `--out` beside it.
 */
function pythonFile(flags: TypesFlags): string | undefined {
  if (flags.python === undefined) return undefined;
  const file = String(flags.python);
  if (!/\.pyi?$/.test(file)) {
    throw new UsageError(
      `--python ${JSON.stringify(file)} is not a Python file — name a .py file, e.g. svc_types.py`,
    );
  }
  if (flags.out !== undefined) {
    throw new UsageError(
      "--out and --python name one file each — run svc types once with each to write both",
    );
  }
  return resolve(file);
}

/** `word` as typed in a POSIX shell: quoted when it holds anything but plain characters. */
function shellWord(word: string): string {
  return /^[\w./:=@%+-]+$/.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`;
}
