/**
 * `npm run pack`: builds the five packages from clean and writes one tarball each into
 * `packs/` (git-ignored) — what `npm publish` would upload, installable today with
 * `npm install ./packs/svc-server-0.1.0.tgz …`. Prints the tarballs' paths, one a line.
 *
 * dist/ is removed first, so files left from an earlier layout never reach a tarball.
 */
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export const PACKAGES = ["protocol", "runtime", "react", "loader", "server"] as const;

const repo = fileURLToPath(new URL("..", import.meta.url));
const out = join(repo, "packs");

function npm(args: string[]): string {
  const result = spawnSync("npm", args, {
    cwd: repo,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "inherit"],
  });
  if (result.status !== 0) {
    process.stderr.write(`npm ${args.join(" ")} failed (exit ${result.status})\n`);
    process.exit(1);
  }
  return result.stdout;
}

for (const name of PACKAGES)
  rmSync(join(repo, "packages", name, "dist"), { recursive: true, force: true });
rmSync(out, { recursive: true, force: true });
mkdirSync(out);

const workspaces = PACKAGES.flatMap((name) => ["--workspace", `packages/${name}`]);
npm(["run", "build", "--silent", ...workspaces]);
const packed = JSON.parse(
  npm(["pack", "--json", "--loglevel=error", "--pack-destination", out, ...workspaces]),
) as { filename: string }[];

const written = readdirSync(out).sort();
if (written.length !== PACKAGES.length) {
  process.stderr.write(
    `expected ${PACKAGES.length} tarballs in packs/, found: ${written.join(", ")}\n`,
  );
  process.exit(1);
}
for (const { filename } of packed) process.stdout.write(`${join("packs", filename)}\n`);
