import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

/** Files that mark a workspace root (several packages managed together). */
const WORKSPACE_FILES = ["pnpm-workspace.yaml", "lerna.json", ".git"] as const;

/**
 * The project a component source belongs to: the nearest directory at or above `dir` that is
 * a workspace root (a `package.json` with `workspaces`, `pnpm-workspace.yaml`, `lerna.json`)
 * or a repository root (`.git`); else the nearest with a `package.json`; else the parent of
 * `dir`. It bounds what bundles may read (symbolic links included), like Vite's
 * `server.fs.allow` default, so shared code of a monorepo is in and the rest of the machine
 * is out.
 */
export function findProjectRoot(dir: string): string {
  let nearestPackage: string | undefined;
  for (let current = dir; ; current = dirname(current)) {
    if (WORKSPACE_FILES.some((file) => existsSync(join(current, file)))) return current;
    const manifest = join(current, "package.json");
    if (existsSync(manifest)) {
      if (hasWorkspaces(manifest)) return current;
      nearestPackage ??= current;
    }
    if (dirname(current) === current) return nearestPackage ?? dirname(dir);
  }
}

function hasWorkspaces(packageJson: string): boolean {
  try {
    const value = JSON.parse(readFileSync(packageJson, "utf8")) as { workspaces?: unknown };
    return value.workspaces !== undefined;
  } catch {
    return false;
  }
}
