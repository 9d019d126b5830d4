import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const hook = fileURLToPath(new URL("./hide-packages.mjs", import.meta.url));

/** Imports a bridge in a fresh Node with `hide` unresolvable; resolves with what it printed. */
function importWithout(bridge: string, hide: string): Promise<string> {
  const file = fileURLToPath(
    new URL(`../../packages/server/src/transports/${bridge}.ts`, import.meta.url),
  );
  const script = `import(${JSON.stringify(file)}).then(() => console.log("loaded"), (e) => console.log(e.message))`;
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--import", hook, "--input-type=module", "-e", script],
      { env: { ...process.env, SVC_HIDE: hide } },
      (error, stdout) => (error ? reject(error) : resolve(stdout.trim())),
    );
  });
}

describe("bridges without their framework", () => {
  const bridges = [
    ["express", "express", "express"],
    ["fastify", "fastify", "fastify"],
    ["hono", "hono", "hono"],
    ["koa", "koa", "koa"],
    ["nest", "@nestjs/common", "@nestjs/common @nestjs/core"],
    ["nest", "@nestjs/core", "@nestjs/common @nestjs/core"],
  ] as const;

  for (const [bridge, missing, install] of bridges) {
    it(`@svc/server/${bridge} without ${missing} fails with one line saying what to install`, async () => {
      const printed = await importWithout(bridge, missing);
      expect(printed).toBe(
        `@svc/server/${bridge} needs ${missing}, which is not installed: run \`npm install ${install}\``,
      );
    });
  }

  it("loads when the framework is there", async () => {
    expect(await importWithout("koa", "")).toBe("loaded");
  });
});
