/**
 * `npm run example -- <framework> [--production]` as a user runs it: a child process that
 * prints its URL, serves the store, and stops cleanly on SIGTERM.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { removeDir, tempDir } from "./harness.ts";

const RUN = fileURLToPath(new URL("../../examples/run.ts", import.meta.url));

interface Started {
  child: ChildProcess;
  url: string;
  output: () => string;
}

function startRun(args: string[], env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ["--conditions=source", RUN, ...args], {
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /shop: +(http:\/\/\S+?)\/\n/.exec(output);
      if (match?.[1]) resolve({ child, url: match[1], output: () => output });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
}

async function stop(child: ChildProcess): Promise<number | null> {
  if (child.exitCode !== null) return child.exitCode;
  const exited = once(child, "exit");
  child.kill("SIGTERM");
  const [code] = await exited;
  return code as number | null;
}

describe("examples/run.ts", () => {
  const dirs: string[] = [];
  let running: ChildProcess | undefined;

  afterEach(async () => {
    if (running) await stop(running);
    running = undefined;
    for (const dir of dirs.splice(0)) await removeDir(dir);
  });

  it("--production builds into SVC_BUILD_DIR, then serves it statically", async () => {
    const [data, build] = [await tempDir("svc-run-data-"), await tempDir("svc-run-build-")];
    dirs.push(data, build);
    const buildDir = join(build, "svc");
    const started = await startRun(["hono", "--production", "--port", "0"], {
      STORE_DATA_DIR: data,
      SVC_BUILD_DIR: buildDir,
    });
    running = started.child;
    expect(started.output()).toContain("store:product_list");
    expect(started.output()).toContain(`production, bundles from ${buildDir}`);

    const home = await (await fetch(`${started.url}/`)).text();
    expect(home).toContain('data-svc-manifest="/static/svc/manifest.json"');
    const manifest = await fetch(`${started.url}/static/svc/manifest.json`);
    expect(await manifest.json()).toEqual(
      JSON.parse(await readFile(join(buildDir, "manifest.json"), "utf8")),
    );
    expect((await fetch(`${started.url}/api/bundles/store:product.js`)).status).toBe(404);
    expect(await stop(started.child)).toBe(0);
  });

  it("starts in development mode by default, bundling on request", async () => {
    const data = await tempDir("svc-run-data-");
    dirs.push(data);
    const started = await startRun(["koa", "--port", "0"], { STORE_DATA_DIR: data });
    running = started.child;
    const bundle = await fetch(`${started.url}/api/bundles/store:product.js`);
    expect(bundle.status).toBe(200);
    expect(await (await fetch(`${started.url}/`)).text()).not.toContain("data-svc-manifest");
    expect(await stop(started.child)).toBe(0);
  });

  it("names the frameworks when given an unknown one", async () => {
    await expect(startRun(["rails"], {})).rejects.toThrow(
      /unknown framework "rails"[\s\S]*express\|fastify\|hono\|koa\|nest/,
    );
  });
});
