/** What `svc init` reads of a project's `package.json`, and how it writes it back. */
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { UsageError } from "../config/usageError.ts";

/** The frameworks `svc init` recognises in `package.json`, checked in this order. */
export const FRAMEWORKS = ["nest", "fastify", "hono", "koa", "express"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** The package whose presence in `dependencies`/`devDependencies` names the framework. */
const FRAMEWORK_PACKAGES: Record<Framework, string> = {
  // Before express and fastify: a Nest app depends on @nestjs/platform-* rather than on them.
  nest: "@nestjs/core",
  fastify: "fastify",
  hono: "hono",
  koa: "koa",
  express: "express",
};

export interface PackageJson {
  type?: unknown;
  scripts?: unknown;
  dependencies?: unknown;
  devDependencies?: unknown;
}

export function readPackageJson(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new UsageError(
        "no package.json here — run svc init in your project's directory (or npm init -y first)",
      );
    }
    throw new UsageError(`cannot read package.json (${(error as NodeJS.ErrnoException).code})`);
  }
}

export function parsePackageJson(text: string): PackageJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `package.json is not valid JSON (${(error as Error).message}) — fix it and run svc init again`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError("package.json must hold a JSON object — fix it and run svc init again");
  }
  const pkg = value as PackageJson;
  if (
    pkg.scripts !== undefined &&
    (typeof pkg.scripts !== "object" || pkg.scripts === null || Array.isArray(pkg.scripts))
  ) {
    throw new UsageError(
      'package.json: "scripts" must be an object — fix it and run svc init again',
    );
  }
  return pkg;
}

/** `pkg` as JSON text written the way `text`, the file it came from, was. */
export function formatPackageJson(pkg: PackageJson, text: string): string {
  return `${JSON.stringify(pkg, null, indentOf(text))}${newlineOf(text)}`;
}

/**
 * Whether the project's server code says `import`: an ES module package, or TypeScript
 * (which compiles `import` to `require` itself). A plain CommonJS project gets `require`.
 */
export function writesImports(cwd: string, pkg: PackageJson): boolean {
  if (pkg.type === "module" || existsSync(join(cwd, "tsconfig.json"))) return true;
  return [pkg.dependencies, pkg.devDependencies].some(
    (deps) => typeof deps === "object" && deps !== null && "typescript" in deps,
  );
}

/** The framework the project depends on, by `FRAMEWORKS` order. */
export function detectFramework(pkg: PackageJson): Framework | undefined {
  const names = new Set<string>();
  for (const deps of [pkg.dependencies, pkg.devDependencies]) {
    if (typeof deps === "object" && deps !== null) for (const name in deps) names.add(name);
  }
  return FRAMEWORKS.find((framework) => names.has(FRAMEWORK_PACKAGES[framework]));
}

/**
 * `svc.config.ts` in an ES module package; `.mts` when `.ts` files would load as CommonJS
 * (a package without `"type": "module"`), where `export default` would not parse; `.mjs`
 * when this Node.js does not run TypeScript.
 */
export function configFileName(pkg: PackageJson, typescript: boolean): string {
  if (!typescript) return "svc.config.mjs";
  return pkg.type === "module" ? "svc.config.ts" : "svc.config.mts";
}

function indentOf(text: string): string | number {
  return /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? 2;
}

function newlineOf(text: string): string {
  return text.endsWith("\n") ? "\n" : "";
}
