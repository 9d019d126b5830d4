/** Test helpers: component trees in temp dirs, raw HTTP requests. Not part of the package. */

import { type ChildProcess, spawn } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type ComponentName, parseComponentName } from "@svc/protocol";
import { afterAll, afterEach, onTestFinished, vi } from "vitest";
import { type Bundler, esbuildBundler } from "../bundling/bundler.ts";
import { type Manifest, parseManifest } from "../served/manifest.ts";

/** A checked component name, for calls that take one (`handlers.getBundle(cn("x"))`). */
export function cn(name: string): ComponentName {
  return parseComponentName(name);
}

const created: string[] = [];
afterAll(() => {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Writes `files` (path → content) under a new temp dir and returns it. File times are set
 * in the past, so the first build is cached at once (not "racy"); removed after the file's tests.
 */
export function writeTree(files: Record<string, string>, root?: string): string {
  const dir = root ?? mkdtempSync(join(tmpdir(), "svc-test-"));
  if (root === undefined) created.push(dir);
  const past = new Date(Date.now() - 60_000);
  for (const [path, content] of Object.entries(files)) {
    const file = join(dir, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    utimesSync(file, past, past);
  }
  return dir;
}

/**
 * Moves `Date` a minute ahead for the rest of the test, so files written just now count as
 * long settled. The dev cache does not cache a build any of whose inputs changed (by change
 * time, which `utimes` cannot set back) within 50 ms of it, and a fixture's files are that
 * fresh: tests that count builds call this first.
 */
export function settleWrites(): void {
  vi.useFakeTimers({ toFake: ["Date"], now: Date.now() + 60_000 });
  onTestFinished(() => {
    vi.useRealTimers();
  });
}

/** A typical component: barrel index, implementation, helper, schema. */
export function typicalComponent(name: string, text = "Hello"): Record<string, string> {
  return {
    [`${name}/index.tsx`]: `export { default } from "./View";\n`,
    [`${name}/View.tsx`]: `import { useState } from "react";\nimport { label } from "./label";\nexport default function View({ who = "world" }: { who?: string }) {\n  const [n] = useState(0);\n  return <p>{label("${text}")}, {who} {n}</p>;\n}\n`,
    [`${name}/label.ts`]: `export function label(text: string): string {\n  return text.toUpperCase();\n}\n`,
    [`${name}/schema.json`]: JSON.stringify({
      title: `The ${name}`,
      description: "A test component.",
      version: "1.2.3",
      type: "object",
      properties: { who: { type: "string", default: "world" } },
      required: [],
    }),
  };
}

export interface RawResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET `path` exactly as given (no URL normalisation), like a hostile client would. */
export function rawRequest(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<RawResponse> {
  const url = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: url.hostname,
        port: url.port,
        path,
        method: options.method ?? "GET",
        headers: options.headers,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () =>
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: Buffer.concat(chunks).toString("utf8"),
          }),
        );
      },
    );
    req.on("error", reject);
    req.end();
  });
}

/** The real esbuild bundler, counting how often it is asked to build. */
export function countingBundler(): Bundler & { readonly builds: number } {
  let builds = 0;
  return {
    get builds() {
      return builds;
    },
    bundle(component, options) {
      builds++;
      return esbuildBundler.bundle(component, options);
    },
  };
}

/** Every file below `dir`, path → bytes (as base64, so snapshots compare byte for byte). */
export function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile()) continue;
    const path = join(entry.parentPath, entry.name);
    files[relative(dir, path)] = readFileSync(path).toString("base64");
  }
  return files;
}

/** The parsed `manifest.json` of a build directory. */
export function readManifestOf(outDir: string): Manifest {
  return parseManifest(readFileSync(join(outDir, "manifest.json"), "utf8"));
}

const SVC = fileURLToPath(new URL("../cli/svc.ts", import.meta.url));
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill("SIGKILL");
});

/**
 * Runs the `svc` command from source in a child process (killed after the test), with
 * `SVC_BUILD_DIR` unset unless `env` sets it.
 */
export function startSvc(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
) {
  const child = spawn(process.execPath, ["--conditions=source", SVC, ...args], {
    cwd: options.cwd,
    env: { ...process.env, SVC_BUILD_DIR: undefined, ...options.env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(child);
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d: Buffer) => {
    stdout += d;
  });
  child.stderr?.on("data", (d: Buffer) => {
    stderr += d;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on("exit", (code, signal) => resolve({ code, signal })),
  );
  const output = () => ({ stdout, stderr });
  /** Resolves when stdout matches `pattern`. */
  const waitFor = (pattern: RegExp) =>
    new Promise<RegExpMatchArray>((resolve, reject) => {
      const check = () => {
        const match = stdout.match(pattern);
        if (match) {
          child.stdout?.off("data", check);
          resolve(match);
        }
      };
      child.stdout?.on("data", check);
      child.on("exit", () =>
        reject(new Error(`svc exited before printing ${pattern}: ${stdout}${stderr}`)),
      );
      check();
    });
  return { child, exited, output, waitFor };
}

/** Runs `svc` to completion: exit code and output. */
export async function runSvc(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined> } = {},
) {
  const svc = startSvc(args, options);
  const { code } = await svc.exited;
  return { code, ...svc.output() };
}
