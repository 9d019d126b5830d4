/**
 * `svc init`: adds svc to an existing npm project. It creates what is missing and never
 * touches what is there — a second run changes nothing and says so. It writes all or nothing
 * (see `initPlan.ts`).
 */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILES } from "../config/loadConfigFile.ts";
import { apply, type InitPlan, preflight } from "./initPlan.ts";
import {
  configFileName,
  detectFramework,
  type Framework,
  formatPackageJson,
  type PackageJson,
  parsePackageJson,
  readPackageJson,
  writesImports,
} from "./packageJson.ts";
import { CONFIG, EXAMPLE, EXAMPLE_FILES, type Snippet, snippetFor } from "./templates.ts";

/** The scripts added to `package.json` (an existing script of the same name is kept). */
export const INIT_SCRIPTS: Readonly<Record<string, string>> = {
  "svc:serve": "svc serve",
  "svc:build": "svc build",
};

export interface InitOptions {
  /** The project directory (holding `package.json`). Default: process.cwd(). */
  cwd?: string;
  /**
   * Whether this Node.js runs TypeScript files (`svc.config.ts`); without it the config is
   * written as `svc.config.mjs`. Default: `process.features.typescript` is set.
   */
  typescript?: boolean;
}

export interface InitResult {
  /** Paths created, relative to the project, in the order written. */
  created: string[];
  /** Scripts added to `package.json`. */
  scriptsAdded: string[];
  /** What was already there and left as it is (paths, or `scripts.<name>`). */
  kept: string[];
  framework: Framework | undefined;
  /** Lines to paste into the server (empty without a framework) and into a page. */
  snippet: Snippet;
  /** Advice that needs the user's judgement, one line each. */
  notes: string[];
}

/**
 * Adds svc to the npm project in `cwd`: `components/` with one example component, an
 * `svc.config` file and the `svc:serve`/`svc:build` scripts. Never overwrites a file, never
 * writes through a link that leads out of `cwd`, and leaves the project as it was when it
 * cannot finish.
 * @throws UsageError when `cwd` has no readable `package.json`, when something in the way
 * is found before writing (a read-only `package.json`, a link out of the project, a link to
 * nothing), or when a write fails (after removing what this run created).
 */
export function init(options: InitOptions = {}): InitResult {
  const cwd = options.cwd ?? process.cwd();
  const text = readPackageJson(join(cwd, "package.json"));
  const pkg = parsePackageJson(text);
  const result: InitResult = {
    created: [],
    scriptsAdded: [],
    kept: [],
    framework: detectFramework(pkg),
    snippet: { server: [], page: [] },
    notes: [],
  };
  const plan: InitPlan = { dirs: [], files: [], packageJson: undefined };
  planExample(cwd, plan, result);
  planConfig(cwd, pkg, options.typescript ?? hasTypeStripping(), plan, result);
  planScripts(pkg, text, plan, result);

  const target = preflight(cwd, plan);
  apply(cwd, plan, target);
  result.created = plan.files.map(([path]) => path);
  result.snippet = snippetFor(result.framework, writesImports(cwd, pkg));
  if (result.created.includes(`components/${EXAMPLE}/index.tsx`)) {
    const tsconfig = readText(join(cwd, "tsconfig.json"));
    // Without "include", tsc compiles every file below it — the components too.
    if (tsconfig !== "" && !/"include"\s*:/.test(tsconfig) && !tsconfig.includes('"components')) {
      result.notes.push(
        'tsconfig.json has no "include", so tsc would compile components/ too: add "components" to its "exclude" (svc bundles the components itself)',
      );
    }
  }
  return result;
}

/** `components/` with the example, unless the project has a `components` already. */
function planExample(cwd: string, plan: InitPlan, result: InitResult): void {
  if (existsSync(join(cwd, "components"))) {
    result.kept.push("components/");
    return;
  }
  plan.dirs.push("components", `components/${EXAMPLE}`);
  for (const [file, contents] of Object.entries(EXAMPLE_FILES)) {
    plan.files.push([`components/${EXAMPLE}/${file}`, contents]);
  }
}

/** An `svc.config` file, unless the project has one of any of its names. */
function planConfig(
  cwd: string,
  pkg: PackageJson,
  typescript: boolean,
  plan: InitPlan,
  result: InitResult,
): void {
  const existing = CONFIG_FILES.find((name) => existsSync(join(cwd, name)));
  if (existing !== undefined) result.kept.push(existing);
  else plan.files.push([configFileName(pkg, typescript), CONFIG]);
}

/** The scripts of {@link INIT_SCRIPTS} that `package.json` does not have yet. */
function planScripts(pkg: PackageJson, text: string, plan: InitPlan, result: InitResult): void {
  const scripts = (pkg.scripts ?? {}) as Record<string, unknown>;
  for (const [name, command] of Object.entries(INIT_SCRIPTS)) {
    if (name in scripts) result.kept.push(`scripts.${name}`);
    else {
      scripts[name] = command;
      result.scriptsAdded.push(name);
    }
  }
  if (result.scriptsAdded.length > 0) {
    pkg.scripts = scripts;
    plan.packageJson = formatPackageJson(pkg, text);
  }
}

function hasTypeStripping(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

/** The text of `file`, or "" when it cannot be read (missing, a directory, unreadable). */
function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}
