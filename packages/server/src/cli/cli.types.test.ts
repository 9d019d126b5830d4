import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { runSvc, startSvc, writeTree } from "../test/fixtures.ts";

const run = (args: string[], cwd: string) => runSvc(args, { cwd });

const component = "export default () => null;\n";
const counterSchema = (description: string) =>
  JSON.stringify({
    title: "Counter",
    type: "object",
    properties: { step: { type: "integer", description } },
  });

const project = {
  "components/counter/index.tsx": component,
  "components/counter/schema.json": counterSchema("Amount per click."),
  "components/ui/button/index.tsx": component,
};

describe("svc types", () => {
  it("writes svc-env.d.ts in the project, then leaves it alone while it is current", async () => {
    const cwd = writeTree(project);
    const first = await run(["types"], cwd);
    expect(first).toMatchObject({
      code: 0,
      stdout: "svc types: wrote svc-env.d.ts (2 components)\n",
    });
    const text = readFileSync(join(cwd, "svc-env.d.ts"), "utf8");
    expect(text).toContain(
      '    counter: CounterProps;\n    "ui.button": Record<string, unknown>;\n',
    );
    expect(text).toContain("Amount per click.");
    expect(text).not.toContain(cwd);
    const before = statSync(join(cwd, "svc-env.d.ts"), { bigint: true });
    const second = await run(["types"], cwd);
    expect(second).toMatchObject({
      code: 0,
      stdout: "svc types: svc-env.d.ts is up to date (2 components)\n",
    });
    const after = statSync(join(cwd, "svc-env.d.ts"), { bigint: true });
    expect([after.ino, after.mtimeNs]).toEqual([before.ino, before.mtimeNs]);
  });

  it("writes where --out says, else where svc.config's types says, with its sources and prefixes", async () => {
    const cwd = writeTree({
      ...project,
      "admin/panel/index.tsx": component,
      "svc.config.json": JSON.stringify({
        sources: ["components", { dir: "admin", prefix: "admin" }],
        types: "src/types/svc.d.ts",
      }),
    });
    expect((await run(["types"], cwd)).code).toBe(0);
    const text = readFileSync(join(cwd, "src/types/svc.d.ts"), "utf8");
    expect(text).toContain('    "admin:panel": Record<string, unknown>;\n');
    expect((await run(["types", "--out", "elsewhere.d.ts"], cwd)).code).toBe(0);
    expect(readFileSync(join(cwd, "elsewhere.d.ts"), "utf8")).toBe(text);
    expect(existsSync(join(cwd, "svc-env.d.ts"))).toBe(false);
  });

  it("--check exits 0 when current and 1, with the command that fixes it, when stale or missing — writing nothing", async () => {
    const cwd = writeTree(project);
    const missing = await run(["types", "--check", "--out", "src/svc-env.d.ts"], cwd);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe(
      "svc: src/svc-env.d.ts does not exist — run svc types --out src/svc-env.d.ts\n",
    );
    expect(existsSync(join(cwd, "src"))).toBe(false);

    expect((await run(["types"], cwd)).code).toBe(0);
    const current = await run(["types", "--check"], cwd);
    expect(current).toMatchObject({
      code: 0,
      stdout: "svc types: svc-env.d.ts is up to date (2 components)\n",
      stderr: "",
    });

    writeTree({ "components/counter/schema.json": counterSchema("Changed.") }, cwd);
    const written = readFileSync(join(cwd, "svc-env.d.ts"), "utf8");
    const stale = await run(["types", "--check"], cwd);
    expect(stale.code).toBe(1);
    expect(stale.stderr).toBe(
      "svc: svc-env.d.ts is out of date with the components' schemas — run svc types\n",
    );
    expect(readFileSync(join(cwd, "svc-env.d.ts"), "utf8")).toBe(written);

    writeTree({ "components/card/index.tsx": component }, cwd);
    expect((await run(["types", "--check"], cwd)).code).toBe(1);
    expect((await run(["types"], cwd)).code).toBe(0);
    expect((await run(["types", "--check"], cwd)).code).toBe(0);
  });

  it("exits 1 naming a broken schema.json, leaving the file as it was", async () => {
    const cwd = writeTree(project);
    expect((await run(["types"], cwd)).code).toBe(0);
    const written = readFileSync(join(cwd, "svc-env.d.ts"), "utf8");
    writeTree({ "components/counter/schema.json": '{ "type": "object", ' }, cwd);
    for (const args of [["types"], ["types", "--check"]]) {
      const result = await run(args, cwd);
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/^svc: counter\/schema\.json: is not valid JSON: .*\n$/);
    }
    expect(readFileSync(join(cwd, "svc-env.d.ts"), "utf8")).toBe(written);
  });

  it("exits 1 with one line naming schema.json and a $ref that leads out of the project, writing nothing", async () => {
    const outside = writeTree({ "secret.json": JSON.stringify({ enum: ["OUTSIDE"] }) });
    const secret = join(outside, "secret.json");
    const cwd = writeTree({
      ...project,
      "package.json": "{}",
      "components/counter/schema.json": JSON.stringify({
        type: "object",
        properties: { step: { $ref: secret }, size: { $ref: "#/$defs/Size" } },
        $defs: { Size: { type: "integer" } },
      }),
    });
    for (const args of [["types"], ["types", "--check"]]) {
      const result = await run(args, cwd);
      expect(result.code).toBe(1);
      expect(result.stdout).toBe("");
      expect(result.stderr.split("\n")).toEqual([expect.any(String), ""]);
      expect(result.stderr).toMatch(/^svc: counter\/schema\.json: .*\$ref.* outside /);
      expect(result.stderr).toContain(JSON.stringify(secret));
    }
    expect(existsSync(join(cwd, "svc-env.d.ts"))).toBe(false);

    // The same schema with the definition moved in: written, internal $ref and all.
    writeTree(
      {
        "components/counter/schema.json": JSON.stringify({
          type: "object",
          properties: { step: { $ref: "#/$defs/Size" }, hasOwnProperty: { type: "boolean" } },
          $defs: { Size: { type: "integer" } },
        }),
      },
      cwd,
    );
    expect((await run(["types"], cwd)).code).toBe(0);
    const text = readFileSync(join(cwd, "svc-env.d.ts"), "utf8");
    expect(text).toContain('  hasOwnProperty?: boolean | Object["hasOwnProperty"];\n');
    expect(text).not.toContain("OUTSIDE");
  });

  it("exits 1 with one line when the declaration file cannot be written", async () => {
    const cwd = writeTree({ ...project, "taken.d.ts/keep": "" });
    const result = await run(["types", "--out", "taken.d.ts"], cwd);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr).toBe(
      "svc: cannot write taken.d.ts (EISDIR) — pass --out with a file you may write\n",
    );
    expect(readdirSync(cwd).sort()).toEqual(["components", "taken.d.ts"]);
  });

  it.each([
    [
      ["types", "--out", "types.js"],
      /^svc: --out "types.js" is not a TypeScript file — name a .d.ts file/,
    ],
    [["types", "--components-dir", "nope"], /^svc: components directory nope does not exist/],
    [["types", "--prefix", "no--dash"], /^svc: --prefix "no--dash" is not a valid prefix/],
  ])("rejects %j with one line and exit code 2", async (args, message) => {
    const result = await run(args, writeTree(project));
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
  });

  it("rejects a config whose types is not a TypeScript file", async () => {
    const cwd = writeTree({ ...project, "svc.config.json": JSON.stringify({ types: 3 }) });
    const result = await run(["types"], cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^svc: .*svc\.config\.json: types must be a string\n$/);
  });

  it("warns when @svc/protocol cannot be found from the file, since TypeScript would ignore it", async () => {
    const result = await run(["types"], writeTree(project));
    expect(result.stderr).toMatch(
      /^warning: @svc\/protocol cannot be found from svc-env\.d\.ts, so TypeScript ignores its declarations — install @svc\/protocol in this project\n$/,
    );
  });
});

/** Resolves once `test()` holds, checked whenever svc prints something. */
function until(svc: ReturnType<typeof startSvc>, test: () => boolean): Promise<void> {
  return new Promise((resolve, reject) => {
    const streams = [svc.child.stdout, svc.child.stderr];
    const check = () => {
      if (!test()) return;
      for (const stream of streams) stream?.off("data", check);
      resolve();
    };
    for (const stream of streams) stream?.on("data", check);
    svc.child.once("exit", () => reject(new Error(`svc exited: ${JSON.stringify(svc.output())}`)));
    check();
  });
}

describe("svc serve with types in svc.config", () => {
  it("writes the file at start and again after a schema edit, a new component and a fix", async () => {
    const cwd = writeTree({
      ...project,
      "svc.config.json": JSON.stringify({ types: "svc-env.d.ts" }),
    });
    const file = join(cwd, "svc-env.d.ts");
    const svc = startSvc(["serve", "--port", "0", "--host", "127.0.0.1"], { cwd });
    const writes = () => svc.output().stdout.split("svc types: wrote svc-env.d.ts\n").length - 1;
    const written = (count: number) => until(svc, () => writes() >= count);

    await written(1);
    expect(readFileSync(file, "utf8")).toContain("Amount per click.");

    writeFileSync(join(cwd, "components/counter/schema.json"), counterSchema("Edited."));
    await written(2);
    expect(readFileSync(file, "utf8")).toContain("Edited.");

    writeTree({ "components/card/index.tsx": component }, cwd);
    await written(3);
    expect(readFileSync(file, "utf8")).toContain("    card: Record<string, unknown>;\n");

    writeFileSync(join(cwd, "components/counter/schema.json"), "{");
    await until(svc, () =>
      svc
        .output()
        .stderr.includes(
          "svc types: svc-env.d.ts not updated — counter/schema.json: is not valid JSON",
        ),
    );
    expect(readFileSync(file, "utf8")).toContain("Edited.");

    writeFileSync(join(cwd, "components/counter/schema.json"), counterSchema("Fixed."));
    await written(4);
    expect(readFileSync(file, "utf8")).toContain("Fixed.");
    expect(writes()).toBe(4);
  });
});
