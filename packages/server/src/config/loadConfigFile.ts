import { existsSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { checkConfig } from "./checkConfig.ts";
import type { SvcConfig } from "./svcConfig.ts";
import { UsageError } from "./usageError.ts";

/** The file names `svc` looks for in the project root, in this order. */
export const CONFIG_FILES = [
  "svc.config.ts",
  "svc.config.mts",
  "svc.config.js",
  "svc.config.mjs",
  "svc.config.json",
] as const;

/**
 * The config file: `explicit` (`--config`) resolved from `cwd`, else the first of
 * {@link CONFIG_FILES} in `cwd`, else undefined.
 * @throws UsageError when `explicit` does not exist.
 */
export function findConfigFile(cwd: string, explicit: string | undefined): string | undefined {
  if (explicit !== undefined) {
    const file = resolve(cwd, explicit);
    if (!existsSync(file)) {
      throw new UsageError(`config file ${explicit} does not exist — pass --config with a file`);
    }
    return file;
  }
  return CONFIG_FILES.map((name) => join(cwd, name)).find((file) => existsSync(file));
}

/**
 * Loads a config file: `.json` is parsed; `.ts`/`.mts`/`.js`/`.mjs` are imported (Node runs
 * TypeScript natively) and their default export used — an object, or a function returning one.
 * @throws UsageError naming the file and the problem.
 */
export async function loadConfigFile(file: string): Promise<SvcConfig> {
  const value = file.endsWith(".json") ? readJson(file) : await importDefault(file);
  return checkConfig(value, file);
}

function readJson(file: string): unknown {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch (error) {
    throw new UsageError(`cannot read ${file} (${(error as NodeJS.ErrnoException).code})`);
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new UsageError(`${file} is not valid JSON: ${(error as Error).message}`);
  }
}

/** The module's default export, called when it is a function. */
async function importDefault(file: string): Promise<unknown> {
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
  let value = module.default;
  if (typeof value === "function") value = await (value as () => unknown)();
  if (value === undefined) {
    throw new UsageError(`${file} has no default export — write \`export default { … }\``);
  }
  return value;
}

function firstLine(error: unknown): string {
  return String((error as Error)?.message ?? error).split("\n")[0] ?? "";
}
