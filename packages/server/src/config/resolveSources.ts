// A namespace import: on a Node without `globSync` (before 22) a named one would fail to link
// before `nodeVersion.ts` can say which Node svc needs.
import * as fs from "node:fs";
import { basename, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { isValidSegment } from "@svc/protocol";
import type { ConfigPlace } from "./configValues.ts";
import type { ConfigFlags, SvcConfig } from "./svcConfig.ts";
import { UsageError } from "./usageError.ts";

/** The components that ship with svc, served when a project has no `./components`. */
export const BUILTIN_COMPONENTS_DIR = fileURLToPath(
  new URL("../../examples/components", import.meta.url),
);

export interface ResolvedSource {
  dir: string;
  prefix: string;
}

/**
 * The component sources: `--components-dir` (with `--prefix`), else the config's `sources`
 * and `apps`, else `./components` when it exists, else svc's built-in examples.
 * @throws UsageError for a missing directory, an invalid prefix, or `--prefix` beside
 * configured sources.
 */
export function resolveSources(
  config: SvcConfig,
  flags: ConfigFlags,
  { cwd, root, where }: ConfigPlace,
  warnings: string[],
): { sources: ResolvedSource[]; builtinExamples: boolean } {
  if (flags.componentsDir !== undefined) {
    const dir = existingDir(cwd, flags.componentsDir);
    return { sources: [{ dir, prefix: checkPrefix(flags.prefix) }], builtinExamples: false };
  }
  const sources = [
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
  if (sources.length > 0) return { sources, builtinExamples: false };
  const local = resolve(root, "components");
  const dir = isDirectory(local) ? local : BUILTIN_COMPONENTS_DIR;
  return {
    sources: [{ dir, prefix: checkPrefix(flags.prefix) }],
    builtinExamples: dir === BUILTIN_COMPONENTS_DIR,
  };
}

/**
 * Per-application discovery: every directory matching `apps` that holds `components/`
 * contributes it, prefixed with the application's directory name (its label).
 */
function discoverApps(
  root: string,
  apps: string | string[] | undefined,
  warnings: string[],
): ResolvedSource[] {
  if (apps === undefined) return [];
  const patterns = typeof apps === "string" ? [apps] : apps;
  const matches = new Set<string>();
  for (const pattern of patterns) {
    for (const match of fs.globSync(pattern, { cwd: root })) matches.add(resolve(root, match));
  }
  const found: ResolvedSource[] = [];
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
  if (!fs.existsSync(absolute)) {
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
  return fs.statSync(path, { throwIfNoEntry: false })?.isDirectory() ?? false;
}
