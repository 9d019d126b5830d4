/**
 * svc needs Node.js 22. The `svc` command (packages/server/bin/svc.js) and the repository's
 * install (the root `preinstall`, scripts/check-node.js) say so in one line, before anything
 * that needs Node 22 is loaded. Checked two ways: on this Node with `process.version` made to
 * read as an old one, and on a real older Node when the machine has one on PATH (CI's Debian
 * `node` is 20).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const scripts = {
  "bin/svc.js": join(repo, "packages/server/bin/svc.js"),
  "scripts/check-node.js": join(repo, "scripts/check-node.js"),
};

/** Preloaded before the script: this Node reports itself as `version`. */
function pretend(version: string): string {
  const code = `Object.defineProperty(process, "version", { value: "v${version}" });
Object.defineProperty(process.versions, "node", { value: "${version}" });`;
  return `data:text/javascript,${encodeURIComponent(code)}`;
}

/** Every `node` on PATH older than 22, e.g. the machine's own under a newer one from use-node.sh. */
function olderNodes(): string[] {
  const found = spawnSync("which", ["-a", "node"], { encoding: "utf8" }).stdout ?? "";
  return [...new Set(found.split("\n").filter(Boolean))].filter((node) => {
    try {
      const major = execFileSync(node, ["-p", "process.versions.node.split('.')[0]"], {
        encoding: "utf8",
      });
      return Number(major) < 22;
    } catch {
      return false;
    }
  });
}

// An empty directory: nothing svc could find or load by accident.
const cwd = mkdtempSync(join(tmpdir(), "svc-node-version-"));
afterAll(() => rmSync(cwd, { recursive: true, force: true }));

function run(node: string, args: string[]) {
  const result = spawnSync(node, args, { cwd, encoding: "utf8", timeout: 20_000 });
  return { code: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe("Node.js version check", () => {
  for (const [name, file] of Object.entries(scripts)) {
    it(`${name} refuses Node 20 with one line and exit code 2`, () => {
      const result = run(process.execPath, ["--import", pretend("20.11.1"), file, "--version"]);
      expect(result.stderr).toBe(
        'svc needs Node.js 22 or newer; found v20.11.1 — see README "Set up"\n',
      );
      expect(result.code).toBe(2);
      expect(result.stdout).toBe("");
    });

    it(`${name} lets Node 22.0.0 through`, () => {
      const result = run(process.execPath, ["--import", pretend("22.0.0"), file, "--version"]);
      expect(result.stderr).toBe("");
      expect(result.code).toBe(0);
    });

    const older = olderNodes();
    it.skipIf(older.length === 0)(`${name} refuses a real older Node (${older.join(", ")})`, () => {
      for (const node of older) {
        const result = run(node, [file, "--version"]);
        const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
        expect(result.stderr).toBe(
          `svc needs Node.js 22 or newer; found ${version} — see README "Set up"\n`,
        );
        expect(result.code).toBe(2);
      }
    });
  }

  it("bin/svc.js runs the CLI on this Node", () => {
    const result = run(process.execPath, [scripts["bin/svc.js"], "--version"]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^svc\/\d+\.\d+\.\d+ /);
  });

  it("the repository's install runs the check first", async () => {
    const { default: pkg } = await import("../../package.json", { with: { type: "json" } });
    expect(pkg.scripts.preinstall).toBe("node scripts/check-node.js");
  });
});
