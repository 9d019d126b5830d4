import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { nodeVersionProblem } from "./nodeVersion.ts";

const serverDir = fileURLToPath(new URL("../../", import.meta.url));

describe("the Node.js version check", () => {
  it("says in one line that svc needs Node.js 22, for any older version", () => {
    expect(nodeVersionProblem("v20.20.2")).toBe(
      'svc needs Node.js 22 or newer; found v20.20.2 — see README "Set up"',
    );
    expect(nodeVersionProblem("v21.7.3")).toMatch(/^svc needs Node\.js 22 or newer; found v21/);
    expect(nodeVersionProblem("v18.0.0")).not.toContain("\n");
    expect(nodeVersionProblem("v22.0.0")).toBeUndefined();
    expect(nodeVersionProblem("v24.21.0")).toBeUndefined();
  });

  it("runs first in every entry of @svc/server, before anything that needs a newer Node", () => {
    const { exports } = JSON.parse(readFileSync(`${serverDir}package.json`, "utf8")) as {
      exports: Record<string, string | { source?: string }>;
    };
    const entries = Object.values(exports)
      .map((target) => (typeof target === "string" ? undefined : target.source))
      .filter((source): source is string => source !== undefined);
    expect(entries.length).toBeGreaterThanOrEqual(8);
    for (const entry of entries) {
      const code = readFileSync(`${serverDir}${entry}`, "utf8");
      const first = /^(?:import|export)\b.*$/m.exec(code)?.[0];
      expect(first, entry).toMatch(/^import "\.\.?\/(?:util\/)?nodeVersion\.ts";$/);
    }
  });
});
