import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const hook = fileURLToPath(new URL("./hide-packages.mjs", import.meta.url));
const bridgeFile = (bridge: string) =>
  fileURLToPath(new URL(`../../packages/server/src/transports/${bridge}.ts`, import.meta.url));

/** How each bridge is first used: the call that needs its framework. */
const FIRST_USE: Record<string, string> = {
  express: "m.svcExpress({})",
  fastify: "m.svcFastify({ prefix: '' }, {})",
  hono: "m.svcHono({})",
  koa: "m.svcKoa({})",
  nest: "m.SvcModule.forRoot({})",
};

function run(args: string[], hide: string): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      ["--conditions=source", "--import", hook, ...args],
      { env: { ...process.env, SVC_HIDE: hide } },
      (error, stdout, stderr) =>
        error ? reject(new Error(stderr || error.message)) : resolve(stdout.trim()),
    );
  });
}

/**
 * Imports a bridge (ESM) in a fresh Node with `hide` unresolvable, then uses it; resolves with
 * what it printed: "imported" and the first use's outcome.
 */
function useWithout(bridge: string, hide: string): Promise<string> {
  const script = `
    const m = await import(${JSON.stringify(bridgeFile(bridge))});
    console.log("imported");
    try { await ${FIRST_USE[bridge]}; console.log("used"); } catch (e) { console.log(e.message); }`;
  return run(["--input-type=module", "-e", script], hide);
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
    it(`@svc/server/${bridge} without ${missing} imports, and fails on first use with one line saying what to install`, async () => {
      const printed = await useWithout(bridge, missing);
      expect(printed).toBe(
        `imported\n@svc/server/${bridge} needs ${missing}, which is not installed: run \`npm install ${install}\``,
      );
    });
  }
});

describe("bridges from CommonJS", () => {
  for (const bridge of Object.keys(FIRST_USE)) {
    it(`require("@svc/server/${bridge}") works (no top-level await anywhere on its way)`, async () => {
      const script = `const m = require(${JSON.stringify(bridgeFile(bridge))}); console.log(Object.keys(m).sort().join(","));`;
      const printed = await run(["--input-type=commonjs", "-e", script], "");
      expect(printed.split(",")).toContain(
        {
          express: "svcExpress",
          fastify: "svcFastify",
          hono: "svcHono",
          koa: "svcKoa",
          nest: "SvcModule",
        }[bridge],
      );
    });
  }
});
