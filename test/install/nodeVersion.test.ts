/**
 * svc needs Node.js 22. The `svc` command (packages/server/bin/svc.js), `@svc/server` imported
 * or required by an app, and the repository's install (npm's `engine-strict`, and the root
 * `preinstall`, scripts/check-node.js) refuse an older Node up front, the first two in one
 * line. Checked two ways: on this Node with `process.version` made to read as an old one, and
 * on a real older Node when the machine has one on PATH (CI's Debian `node` is 20).
 */
import { execFileSync, spawnSync } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { transformSync } from "esbuild";
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

/** Found once: each is asked for its version. */
const older = olderNodes();

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

const LINE = (version: string) =>
  `svc needs Node.js 22 or newer; found ${version} — see README "Set up"\n`;

describe("@svc/server in an app on an older Node", () => {
  // An app with @svc/server installed (its sources, as `--conditions=source` resolves them).
  const app = mkdtempSync(join(tmpdir(), "svc-node-version-app-"));
  afterAll(() => rmSync(app, { recursive: true, force: true }));
  writeFileSync(join(app, "package.json"), '{ "name": "app" }\n');
  mkdirSync(join(app, "node_modules/@svc"), { recursive: true });
  symlinkSync(join(repo, "packages/server"), join(app, "node_modules/@svc/server"), "dir");

  const inApp = (node: string, args: string[]) => {
    const result = spawnSync(node, args, { cwd: app, encoding: "utf8", timeout: 20_000 });
    return { code: result.status, stdout: result.stdout, stderr: result.stderr };
  };

  it("stops a require() or an import with one line, no stack", () => {
    const old = ["--conditions=source", "--import", pretend("20.20.2")];
    for (const args of [
      ["-e", 'require("@svc/server")'],
      ["-e", 'require("@svc/server/express")'],
      ["--input-type=module", "-e", 'await import("@svc/server/fetch")'],
    ]) {
      const result = inApp(process.execPath, [...old, ...args]);
      expect(result.stderr, args.join(" ")).toBe(LINE("v20.20.2"));
      expect(result.code).toBe(1);
    }
  });

  // The check as a real older Node runs it: compiled to JavaScript (no type stripping there),
  // imported first by a module standing for @svc/server's entry.
  it.skipIf(older.length === 0)(`stops on a real older Node (${older.join(", ")})`, () => {
    const dir = join(app, "compiled");
    mkdirSync(dir, { recursive: true });
    const source = join(repo, "packages/server/src/util/nodeVersion.ts");
    const { code } = transformSync(readFileSync(source, "utf8"), { loader: "ts", format: "esm" });
    writeFileSync(join(dir, "nodeVersion.mjs"), code);
    writeFileSync(join(dir, "index.mjs"), 'import "./nodeVersion.mjs";\nexport const ok = true;\n');
    const entry = pathToFileURL(join(dir, "index.mjs")).href;
    for (const node of older) {
      const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
      const imported = inApp(node, [
        "--input-type=module",
        "-e",
        `await import(${JSON.stringify(entry)})`,
      ]);
      expect(imported.stderr).toBe(LINE(version));
      expect(imported.code).toBe(1);
      // Node 20.19 and later require() ES modules (earlier ones refuse before the check runs).
      const requires = execFileSync(node, ["-p", "Boolean(process.features.require_module)"], {
        encoding: "utf8",
      }).trim();
      if (requires !== "true") continue;
      const required = inApp(node, ["-e", `require(${JSON.stringify(join(dir, "index.mjs"))})`]);
      expect(required.stderr).toBe(LINE(version));
      expect(required.code).toBe(1);
    }
  });
});

describe("npm install in the repository on an older Node", () => {
  /** A copy of what npm reads before installing: package.json, the lockfile, .npmrc. */
  function checkout(): string {
    const dir = mkdtempSync(join(tmpdir(), "svc-node-version-npm-"));
    for (const file of ["package.json", "package-lock.json", ".npmrc"]) {
      if (existsSync(join(repo, file))) copyFileSync(join(repo, file), join(dir, file));
    }
    return dir;
  }
  const npmCli = (() => {
    const npm = spawnSync("which", ["npm"], { encoding: "utf8" }).stdout.trim();
    const cli = npm === "" ? "" : join(dirname(realpathSync(npm)), "npm-cli.js");
    return existsSync(cli) ? cli : undefined;
  })();

  /** `npm install` refused before anything was fetched, installed or run. */
  function expectRefused(result: ReturnType<typeof spawnSync>, dir: string, version: string) {
    const stderr = String(result.stderr);
    expect(result.status, stderr).toBe(1);
    expect(stderr.split("\n")[0]).toBe("npm error code EBADENGINE");
    expect(stderr).toContain('npm error notsup Required: {"node":">=22"}');
    expect(stderr).toContain(`npm error notsup Actual:   {"node":"${version}"`);
    // Not one warning per dependency, and the install never started.
    expect(stderr).not.toContain("npm warn EBADENGINE");
    expect(existsSync(join(dir, "node_modules"))).toBe(false);
  }

  it.skipIf(npmCli === undefined)(
    "refuses at once, before installing anything (engine-strict)",
    () => {
      const dir = checkout();
      try {
        const result = npmInstall(npmCli as string, process.execPath, dir, {
          ...process.env,
          NODE_OPTIONS: `--import=${pretend("20.20.2")}`,
        });
        expectRefused(result, dir, "v20.20.2");
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  );

  it.skipIf(npmCli === undefined || older.length === 0)(
    `refuses at once on a real older Node (${older.join(", ")})`,
    () => {
      for (const node of older) {
        const dir = checkout();
        try {
          const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
          const result = npmInstall(npmCli as string, node, dir);
          expectRefused(result, dir, version);
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      }
    },
  );
});

/**
 * `npm install` in `dir` run by `node`, offline with an empty cache: were npm to go on past the
 * version check, it would fail fetching, not hang.
 */
function npmInstall(cli: string, node: string, dir: string, env?: NodeJS.ProcessEnv) {
  return spawnSync(
    node,
    [cli, "install", "--offline", "--no-audit", "--no-fund", "--cache", join(dir, ".cache")],
    { cwd: dir, encoding: "utf8", timeout: 60_000, env },
  );
}
