/**
 * `svc build` (the real CLI, in a child process) on a full disk and into unwritable places:
 * a clean one-line error, a non-zero exit, the previous output byte for byte, nothing left
 * behind. The faults are real: a small tmpfs filled up, `chattr +i` (root ignores permission
 * bits, so `chmod` would not stop us), and a read-only bind mount. They need root and
 * `mount`; where those are missing the tests are skipped and say so.
 */
import { execFileSync, spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { snapshot, writeTree } from "../../packages/server/src/test/fixtures.ts";

const SVC = fileURLToPath(new URL("../../packages/server/src/cli/svc.ts", import.meta.url));

function can(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: "ignore" });
    return true;
  } catch {
    return false;
  }
}

const root = mkdtempSync(join(tmpdir(), "svc-build-faults-"));
/** Whether this machine lets us mount a tmpfs (root in a container that allows it). */
const canMount = (() => {
  const probe = join(root, "probe");
  mkdirSync(probe);
  if (!can("mount", ["-t", "tmpfs", "-o", "size=64k", "tmpfs", probe])) return false;
  can("umount", [probe]);
  return true;
})();
/** Whether `chattr +i` works here (root on a file system that supports it). */
const canChattr = (() => {
  const probe = join(root, "probe-attr");
  mkdirSync(probe);
  if (!can("chattr", ["+i", probe])) return false;
  can("chattr", ["-i", probe]);
  return true;
})();

const undo: (() => void)[] = [];
afterEach(() => {
  for (const step of undo.splice(0).reverse()) step();
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

const COMPONENTS = {
  "components/card/index.tsx": 'export default () => "card";\n',
  "components/button/index.tsx": 'export default () => "button";\n',
};

/** A component whose bundle holds `bytes` of incompressible text. */
function heavy(bytes: number): Record<string, string> {
  const data = randomBytes(Math.ceil((bytes * 3) / 4)).toString("base64");
  return { "components/heavy/index.tsx": `export default () => ${JSON.stringify(data)};\n` };
}

function run(args: string[], cwd: string): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ["--conditions=source", SVC, ...args], {
      cwd,
      env: { ...process.env, SVC_BUILD_DIR: undefined },
      stdio: ["ignore", "ignore", "pipe"],
    });
    let stderr = "";
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    child.on("exit", (code) => resolve({ code, stderr }));
  });
}

/** A project with a previous build in `<parent>/svc`; returns the project dir and the output. */
async function projectWithBuild(parent: string): Promise<{ cwd: string; out: string }> {
  const cwd = mkdtempSync(join(root, "project-"));
  writeTree(COMPONENTS, cwd);
  const out = join(parent, "svc");
  const first = await run(["build", "--output", out], cwd);
  expect(first, first.stderr).toMatchObject({ code: 0 });
  return { cwd, out };
}

/** The failed build's stderr: one `svc:` line naming the problem, no stack trace. */
function expectCleanFailure(result: { code: number | null; stderr: string }, problem: RegExp) {
  expect(result.code, result.stderr).toBe(1);
  const lines = result.stderr
    .split("\n")
    .filter((line) => line !== "" && !line.startsWith("svc build: "));
  expect(lines, result.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^svc: build failed: /);
  expect(lines[0]).toMatch(problem);
  expect(lines[0]).toContain("the previous output was left untouched");
  expect(result.stderr).not.toMatch(/\n\s+at .+:\d+:\d+/);
}

describe("svc build on a full disk", () => {
  it.runIf(canMount)(
    "fails cleanly when the disk fills up, keeps the previous build, frees what it wrote",
    async () => {
      const disk = join(root, "disk");
      mkdirSync(disk);
      execFileSync("mount", ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk]);
      undo.push(() => execFileSync("umount", ["-l", disk]));
      const { cwd, out } = await projectWithBuild(disk);
      const before = snapshot(out);
      const used = () => execFileSync("df", ["--output=used", disk]).toString();
      const usedBefore = used();

      writeTree(heavy(1.5 * 1024 * 1024), cwd); // more than the whole disk
      const result = await run(["build", "--output", out], cwd);
      expectCleanFailure(result, /no space left on device/i);
      expect(snapshot(out)).toEqual(before);
      expect(readdirSync(disk)).toEqual(["svc"]); // nothing left beside the output
      expect(used()).toBe(usedBefore);

      // Once the component fits again, the next build succeeds on the same disk.
      writeTree(heavy(200 * 1024), cwd);
      const next = await run(["build", "--output", out], cwd);
      expect(next.code, next.stderr).toBe(0);
      expect(Object.keys(JSON.parse(readFileSync(join(out, "manifest.json"), "utf8")))).toEqual([
        "button",
        "card",
        "heavy",
      ]);
    },
  );

  if (!canMount) it.skip("needs root and mount (cannot mount a tmpfs here)", () => {});
});

describe("svc build into an unwritable place", () => {
  it.runIf(canChattr)(
    "builds into an output whose parent is immutable: nothing is written beside the output",
    async () => {
      const parent = mkdtempSync(join(root, "immutable-parent-"));
      const { cwd, out } = await projectWithBuild(parent);
      execFileSync("chattr", ["+i", parent]);
      undo.push(() => execFileSync("chattr", ["-i", parent]));
      writeTree({ "components/card/index.tsx": 'export default () => "card v2";\n' }, cwd);
      const result = await run(["build", "--output", out], cwd);
      expect(result.code, result.stderr).toBe(0);
      expect(readFileSync(join(out, "manifest.json"), "utf8")).toContain('"card"');
      expect(readdirSync(parent)).toEqual(["svc"]);
    },
  );

  it.runIf(canChattr)(
    "fails cleanly when bundles/ is immutable, keeping the previous build",
    async () => {
      const parent = mkdtempSync(join(root, "immutable-bundles-"));
      const { cwd, out } = await projectWithBuild(parent);
      const before = snapshot(out);
      execFileSync("chattr", ["+i", join(out, "bundles")]);
      undo.push(() => execFileSync("chattr", ["-i", join(out, "bundles")]));
      writeTree({ "components/card/index.tsx": 'export default () => "card v2";\n' }, cwd);
      const result = await run(["build", "--output", out], cwd);
      expectCleanFailure(result, /operation not permitted/i);
      expect(snapshot(out)).toEqual(before);
    },
  );

  it.runIf(canChattr)(
    "fails cleanly when the output directory is immutable (no room for the new manifest)",
    async () => {
      const parent = mkdtempSync(join(root, "immutable-out-"));
      const { cwd, out } = await projectWithBuild(parent);
      const before = snapshot(out);
      execFileSync("chattr", ["+i", out]);
      undo.push(() => execFileSync("chattr", ["-i", out]));
      writeTree({ "components/card/index.tsx": 'export default () => "card v2";\n' }, cwd);
      const result = await run(["build", "--output", out], cwd);
      expectCleanFailure(result, /operation not permitted/i);
      expect(snapshot(out)).toEqual(before); // the bundles it had written were taken back
      expect(readdirSync(parent)).toEqual(["svc"]);
    },
  );

  it.runIf(canMount)("fails cleanly on a read-only file system", async () => {
    const parent = mkdtempSync(join(root, "read-only-"));
    const { cwd, out } = await projectWithBuild(parent);
    const before = snapshot(out);
    execFileSync("mount", ["--bind", parent, parent]);
    undo.push(() => execFileSync("umount", ["-l", parent]));
    execFileSync("mount", ["-o", "remount,ro,bind", parent]);
    writeTree({ "components/card/index.tsx": 'export default () => "card v2";\n' }, cwd);
    const result = await run(["build", "--output", out], cwd);
    expectCleanFailure(result, /read-only file system/i);
    expect(snapshot(out)).toEqual(before);
  });

  if (!canChattr) it.skip("needs root and chattr (not available here)", () => {});
});
