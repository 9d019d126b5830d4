import { spawn } from "node:child_process";
import {
  chmodSync,
  existsSync,
  lstatSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it, onTestFinished } from "vitest";
import { UsageError } from "../config/usageError.ts";
import { init } from "../scaffold/init.ts";
import type { Framework } from "../scaffold/packageJson.ts";
import { runSvc, snapshot, writeTree } from "../test/fixtures.ts";
import { formatInitReport } from "./init.ts";

const repoModules = fileURLToPath(new URL("../../../../node_modules", import.meta.url));

/** `package.json` as `npm init -y` (npm 11) writes it. */
const EMPTY_PROJECT = `{
  "name": "my-app",
  "version": "1.0.0",
  "description": "",
  "main": "index.js",
  "scripts": {
    "test": "echo \\"Error: no test specified\\" && exit 1"
  },
  "keywords": [],
  "author": "",
  "license": "ISC",
  "type": "commonjs"
}
`;

/** Each framework's starter `package.json` (and `tsconfig.json`), as its generator writes them. */
const STARTERS: Record<Framework, Record<string, string>> = {
  express: {
    "package.json": JSON.stringify(
      {
        name: "my-express-app",
        version: "1.0.0",
        type: "module",
        main: "server.js",
        scripts: { start: "node server.js" },
        dependencies: { express: "^5.1.0" },
      },
      null,
      2,
    ),
  },
  fastify: {
    // fastify-cli generate --esm
    "package.json": JSON.stringify(
      {
        name: "my-fastify-app",
        version: "1.0.0",
        description: "This project was bootstrapped with Fastify-CLI.",
        main: "app.js",
        type: "module",
        directories: { test: "test" },
        scripts: {
          test: "node --test test/**/*.test.js",
          start: "fastify start -l info app.js",
          dev: "fastify start -w -l info -P app.js",
        },
        dependencies: {
          "@fastify/autoload": "^6.0.0",
          "@fastify/sensible": "^6.0.0",
          fastify: "^5.0.0",
          "fastify-cli": "^7.4.0",
          "fastify-plugin": "^5.0.0",
        },
      },
      null,
      2,
    ),
  },
  hono: {
    // create-hono, template nodejs
    "package.json": JSON.stringify(
      {
        name: "my-hono-app",
        type: "module",
        scripts: { dev: "tsx watch src/index.ts", build: "tsc", start: "node dist/index.js" },
        dependencies: { "@hono/node-server": "^1.19.5", hono: "^4.10.1" },
        devDependencies: { "@types/node": "^20.11.17", tsx: "^4.7.1", typescript: "^5.8.3" },
      },
      null,
      2,
    ),
    "tsconfig.json": JSON.stringify({
      compilerOptions: { jsx: "react-jsx", jsxImportSource: "hono/jsx", outDir: "./dist" },
      exclude: ["node_modules"],
    }),
  },
  koa: {
    "package.json": JSON.stringify(
      {
        name: "my-koa-app",
        version: "1.0.0",
        main: "app.js",
        scripts: { start: "node app.js" },
        dependencies: { "@koa/router": "^13.1.0", koa: "^3.0.0" },
      },
      null,
      4,
    ),
  },
  nest: {
    // nest new (Nest CLI 11): CommonJS, a tsconfig that compiles every file
    "package.json": JSON.stringify(
      {
        name: "my-nest-app",
        version: "0.0.1",
        private: true,
        license: "UNLICENSED",
        scripts: {
          build: "nest build",
          start: "nest start",
          "start:dev": "nest start --watch",
          "start:prod": "node dist/main",
          test: "jest",
        },
        dependencies: {
          "@nestjs/common": "^11.0.1",
          "@nestjs/core": "^11.0.1",
          "@nestjs/platform-express": "^11.0.1",
          "reflect-metadata": "^0.2.2",
          rxjs: "^7.8.1",
        },
        devDependencies: {
          "@nestjs/cli": "^11.0.0",
          "@nestjs/testing": "^11.0.1",
          "@types/express": "^5.0.0",
          typescript: "^5.7.3",
        },
      },
      null,
      2,
    ),
    "tsconfig.json": JSON.stringify(
      {
        compilerOptions: {
          module: "nodenext",
          moduleResolution: "nodenext",
          emitDecoratorMetadata: true,
          experimentalDecorators: true,
          target: "ES2023",
          outDir: "./dist",
        },
      },
      null,
      2,
    ),
  },
};

const BRIDGE_IMPORTS: Record<Framework, RegExp> = {
  express: /import \{ svcExpress \} from "@svc\/server\/express";/,
  fastify: /import \{ svcFastify \} from "@svc\/server\/fastify";/,
  hono: /import \{ svcHono \} from "@svc\/server\/hono";/,
  koa: /import \{ svcKoa \} from "@svc\/server\/koa";/,
  nest: /import \{ SvcModule \} from "@svc\/server\/nest";/,
};

describe("svc init", () => {
  it("sets up an empty npm project: example component, config, scripts, a loader snippet", () => {
    const dir = writeTree({ "package.json": EMPTY_PROJECT });
    const result = init({ cwd: dir, typescript: true });
    expect(result.created).toEqual([
      "components/hello/index.tsx",
      "components/hello/schema.json",
      // "type": "commonjs": a .ts file would load as CommonJS, where `export default` fails.
      "svc.config.mts",
    ]);
    expect(result.scriptsAdded).toEqual(["svc:serve", "svc:build"]);
    expect(result.framework).toBeUndefined();
    expect(result.snippet.server).toEqual([]);
    expect(result.snippet.page.join("\n")).toContain('data-svc-component="hello"');

    const pkg = readFileSync(join(dir, "package.json"), "utf8");
    // Only the scripts were added; the rest is byte for byte what it was.
    expect(pkg).toBe(
      EMPTY_PROJECT.replace(
        '"test": "echo \\"Error: no test specified\\" && exit 1"\n',
        '"test": "echo \\"Error: no test specified\\" && exit 1",\n    "svc:serve": "svc serve",\n    "svc:build": "svc build"\n',
      ),
    );
    const schema = JSON.parse(readFileSync(join(dir, "components/hello/schema.json"), "utf8"));
    expect(schema).toMatchObject({ title: "Hello", type: "object" });

    const report = formatInitReport(result);
    expect(report).toContain("created svc.config.mts");
    expect(report).toContain("No Express, Fastify, Hono, Koa or NestJS in package.json");
  });

  it("run twice, changes nothing and says so", () => {
    const dir = writeTree({ "package.json": EMPTY_PROJECT });
    init({ cwd: dir, typescript: true });
    const before = snapshot(dir);
    const again = init({ cwd: dir, typescript: true });
    expect(snapshot(dir)).toEqual(before);
    expect(again.created).toEqual([]);
    expect(again.scriptsAdded).toEqual([]);
    expect(again.kept).toEqual([
      "components/",
      "svc.config.mts",
      "scripts.svc:serve",
      "scripts.svc:build",
    ]);
    expect(formatInitReport(again)).toContain(
      "svc init changed nothing: this project is already set up",
    );
  });

  it("never overwrites: an existing components/, config file or script stays as it is", () => {
    const pkg = `${JSON.stringify({ name: "x", type: "module", scripts: { "svc:serve": "svc serve --port 9000" } }, null, 2)}\n`;
    const dir = writeTree({
      "package.json": pkg,
      "components/mine/index.tsx": "export default () => null;\n",
      "svc.config.json": '{ "sources": ["components"] }\n',
    });
    const before = snapshot(dir);
    const result = init({ cwd: dir, typescript: true });
    expect(result.created).toEqual([]);
    expect(result.scriptsAdded).toEqual(["svc:build"]);
    expect(existsSync(join(dir, "components/hello"))).toBe(false);
    const after = snapshot(dir);
    expect(after["components/mine/index.tsx"]).toBe(before["components/mine/index.tsx"]);
    expect(after["svc.config.json"]).toBe(before["svc.config.json"]);
    expect(JSON.parse(decode(after["package.json"])).scripts).toEqual({
      "svc:serve": "svc serve --port 9000",
      "svc:build": "svc build",
    });
  });

  it("writes svc.config.mts in a CommonJS package: Node runs it as it is, where a .ts fails or warns", async () => {
    const config = (type: string | undefined, name: string) => {
      const dir = writeTree({ "package.json": JSON.stringify({ name: "app", type }) });
      symlinkSync(repoModules, join(dir, "node_modules"), "dir");
      const written = init({ cwd: dir, typescript: true }).created.find((f) =>
        f.startsWith("svc.config"),
      );
      if (written !== name) renameSync(join(dir, written ?? ""), join(dir, name));
      return dir;
    };
    for (const type of ["commonjs", undefined]) {
      const dir = config(type, "svc.config.mts");
      const build = await runSvc(["build"], { cwd: dir });
      expect(build.code, build.stderr).toBe(0);
      expect(build.stderr).not.toMatch(/warning|MODULE_TYPELESS/i);
    }
    // The same file as svc.config.ts: an error with "type": "commonjs" (as `npm init -y` writes
    // it), and a warning on every run without "type".
    const strict = await runSvc(["build"], { cwd: config("commonjs", "svc.config.ts") });
    expect(strict.code).toBe(2);
    expect(strict.stderr).toMatch(
      /svc: cannot load .*svc\.config\.ts: Cannot use import statement outside a module/,
    );
    const typeless = await runSvc(["build"], { cwd: config(undefined, "svc.config.ts") });
    expect(typeless.code).toBe(0);
    expect(typeless.stderr).toContain("[MODULE_TYPELESS_PACKAGE_JSON] Warning");
  });

  it("writes the config file the README names", () => {
    const readme = (path: string) =>
      readFileSync(new URL(`../../../../${path}`, import.meta.url), "utf8");
    for (const path of ["README.md", "packages/server/README.md"]) {
      const line = /^npx svc init .*(?:\n {16}#.*)*/m.exec(readme(path))?.[0] ?? "";
      expect(line, path).toContain("svc.config.ts");
      expect(line.replace(/\s+#\s*/g, " "), path).toContain(
        "(svc.config.mts in a CommonJS package)",
      );
    }
    const esm = writeTree({ "package.json": '{ "type": "module" }\n' });
    expect(init({ cwd: esm, typescript: true }).created).toContain("svc.config.ts");
    const cjs = writeTree({ "package.json": "{}\n" });
    expect(init({ cwd: cjs, typescript: true }).created).toContain("svc.config.mts");
  });

  it("writes svc.config.ts in an ES module package, and .mjs when Node runs no TypeScript", () => {
    const esm = writeTree({ "package.json": '{ "type": "module" }\n' });
    expect(init({ cwd: esm, typescript: true }).created).toContain("svc.config.ts");
    const old = writeTree({ "package.json": '{ "type": "module" }\n' });
    expect(init({ cwd: old, typescript: false }).created).toContain("svc.config.mjs");
  });

  for (const [framework, files] of Object.entries(STARTERS) as [
    Framework,
    Record<string, string>,
  ][]) {
    it(`detects ${framework} in its starter package.json and prints the lines for it`, () => {
      const dir = writeTree(files);
      const original = JSON.parse(files["package.json"] as string);
      const result = init({ cwd: dir, typescript: true });
      expect(result.framework).toBe(framework);
      expect(result.snippet.server).toHaveLength(3);
      // Koa's starter is plain CommonJS JavaScript: require(); the others say import.
      if (framework === "koa") {
        expect(result.snippet.server.slice(0, 2)).toEqual([
          'const { ComponentRegistry } = require("@svc/server");',
          'const { svcKoa } = require("@svc/server/koa");',
        ]);
      } else {
        expect(result.snippet.server[0]).toBe('import { ComponentRegistry } from "@svc/server";');
        expect(result.snippet.server[1]).toMatch(BRIDGE_IMPORTS[framework]);
      }
      expect(result.snippet.page.join("\n")).toContain('src="/api/loader.js"');

      const text = readFileSync(join(dir, "package.json"), "utf8");
      const pkg = JSON.parse(text);
      expect(pkg.scripts).toEqual({ ...original.scripts, ...INIT });
      expect(pkg.dependencies).toEqual(original.dependencies);
      // The file keeps its indentation.
      expect(text).toBe(
        `${JSON.stringify({ ...original, scripts: pkg.scripts }, null, indent(files))}`,
      );
      expect(result.created).toContain(
        original.type === "module" ? "svc.config.ts" : "svc.config.mts",
      );

      const report = formatInitReport(result);
      for (const line of result.snippet.server) expect(report).toContain(`  ${line}\n`);
      // Nest's and Hono's starters compile every file, components/ included.
      if ("tsconfig.json" in files) expect(report).toMatch(/note: tsconfig\.json .*"exclude"/);
      else expect(report).not.toContain("note:");
    });
  }

  it("prints lines that run as they are in a CommonJS Express app", async () => {
    const dir = writeTree({
      "package.json": JSON.stringify({ name: "app", dependencies: { express: "^5.1.0" } }),
    });
    symlinkSync(repoModules, join(dir, "node_modules"), "dir");
    const { server } = init({ cwd: dir, typescript: true }).snippet;
    expect(server[0]).toBe('const { ComponentRegistry } = require("@svc/server");');
    writeFileSync(
      join(dir, "server.js"),
      [
        'const express = require("express");',
        ...server.slice(0, 2),
        "const app = express();",
        server[2],
        'const listener = app.listen(0, "127.0.0.1", () => console.log(`PORT ${listener.address().port}`));',
      ].join("\n"),
    );
    const child = spawn(process.execPath, ["--conditions=source", "server.js"], { cwd: dir });
    onTestFinished(() => {
      child.kill();
    });
    const port = await new Promise<string>((resolve, reject) => {
      let out = "";
      child.stdout.on("data", (d: Buffer) => {
        out += d;
        const match = /PORT (\d+)/.exec(out);
        if (match) resolve(match[1] as string);
      });
      child.stderr.on("data", (d: Buffer) => {
        out += d;
      });
      child.on("exit", () => reject(new Error(out)));
    });
    const list = await fetch(`http://127.0.0.1:${port}/api/bundles`);
    expect(await list.json()).toEqual([{ name: "hello" }]);
  });

  it("refuses a directory without package.json, or with a broken one, in one line", () => {
    const none = writeTree({ "README.md": "hi" });
    expect(() => init({ cwd: none })).toThrow(UsageError);
    expect(() => init({ cwd: none })).toThrow(/^no package\.json here — run svc init in your/);
    const broken = writeTree({ "package.json": "{ name: x" });
    expect(() => init({ cwd: broken })).toThrow(/^package\.json is not valid JSON \(.*\) — fix it/);
    const array = writeTree({ "package.json": "[]" });
    expect(() => init({ cwd: array })).toThrow(/^package\.json must hold a JSON object/);
    expect(decode(snapshot(broken)["package.json"])).toBe("{ name: x");
  });

  it("as a command: sets up a project that `svc build` then builds, and exits 2 without package.json", async () => {
    const dir = writeTree({ "package.json": '{ "name": "app", "type": "module" }\n' });
    // svc.config.ts imports @svc/server: resolvable, as in a project that installed it.
    symlinkSync(repoModules, join(dir, "node_modules"), "dir");
    const first = await runSvc(["init"], { cwd: dir });
    expect(first.code).toBe(0);
    expect(first.stdout).toContain("created svc.config.ts");
    const build = await runSvc(["build"], { cwd: dir });
    expect(build.stderr).not.toMatch(/error/i);
    expect(build.code).toBe(0);
    const manifest = JSON.parse(readFileSync(join(dir, "dist/svc/manifest.json"), "utf8"));
    expect(Object.keys(manifest)).toEqual(["hello"]);

    const empty = writeTree({ "README.md": "hi" });
    const refused = await runSvc(["init"], { cwd: empty });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      "svc: no package.json here — run svc init in your project's directory (or npm init -y first)\n",
    );
  });
});

describe("svc init, with something in the way", () => {
  it("refuses a package.json that is a link to a file outside the project, writing nothing", () => {
    const outside = writeTree({ "package.json": EMPTY_PROJECT });
    const dir = writeTree({});
    symlinkSync(join(outside, "package.json"), join(dir, "package.json"));
    const before = state(dir);
    expect(() => init({ cwd: dir, typescript: true })).toThrow(
      new UsageError(
        `package.json is a link to ${realpathSync(join(outside, "package.json"))}, outside this project — svc init writes only inside it; run it where that file is, or add the scripts "svc:serve": "svc serve" and "svc:build": "svc build" yourself`,
      ),
    );
    expect(state(dir)).toEqual(before);
    expect(readFileSync(join(outside, "package.json"), "utf8")).toBe(EMPTY_PROJECT);
  });

  it("writes through a package.json link that stays inside the project, keeping the link", () => {
    const dir = writeTree({ "config/package.json": EMPTY_PROJECT });
    symlinkSync("config/package.json", join(dir, "package.json"));
    chmodSync(join(dir, "config/package.json"), 0o640);
    const result = init({ cwd: dir, typescript: true });
    expect(result.scriptsAdded).toEqual(["svc:serve", "svc:build"]);
    expect(readlinkSync(join(dir, "package.json"))).toBe("config/package.json");
    expect(JSON.parse(readFileSync(join(dir, "config/package.json"), "utf8")).scripts).toEqual({
      test: 'echo "Error: no test specified" && exit 1',
      ...INIT,
    });
    expect(statSync(join(dir, "config/package.json")).mode & 0o777).toBe(0o640);
    expect(readdirSync(join(dir, "config"))).toEqual(["package.json"]);
  });

  it.each([
    ["components", "somewhere/else"],
    ["svc.config.mts", "../outside.ts"],
  ])("refuses a %s link to nothing in one line, writing nothing", (name, target) => {
    const dir = writeTree({ "package.json": EMPTY_PROJECT });
    symlinkSync(target, join(dir, name));
    const before = state(dir);
    expect(() => init({ cwd: dir, typescript: true })).toThrow(
      new UsageError(
        `${name} is a link to ${target}, which does not exist — remove the link (or create what it points to) and run svc init again`,
      ),
    );
    expect(state(dir)).toEqual(before);
  });

  it("as a command: refuses a read-only package.json before writing anything, in one line", async () => {
    const dir = writeTree({ "package.json": EMPTY_PROJECT });
    // Root may write it all the same: svc init goes by the mode, and leaves the file alone.
    chmodSync(join(dir, "package.json"), 0o444);
    const before = state(dir);
    const result = await runSvc(["init"], { cwd: dir });
    expect(result).toEqual({
      code: 2,
      stdout: "",
      stderr:
        "svc: package.json is read-only — make it writable (chmod u+w package.json) and run svc init again\n",
    });
    expect(state(dir)).toEqual(before);
  });

  // A file size limit makes a write fail for real, as root too: at 0 the first file, at one
  // block (512 or 1024 bytes) package.json, written last, once the rest is written.
  it.skipIf(process.platform === "win32").each([
    [0, "components/hello/index.tsx"],
    [1, "package.json"],
  ])(
    "as a command: removes what it created when a write fails (file size limit %i: %s)",
    async (blocks, failing) => {
      const big = { name: "app", description: "x".repeat(2000), scripts: {} };
      const dir = writeTree({ "package.json": `${JSON.stringify(big, null, 2)}\n` });
      const before = state(dir);
      const result = await runWithFileSizeLimit(blocks, ["init"], dir);
      expect(result).toEqual({
        code: 2,
        stdout: "",
        stderr: `svc: cannot write ${failing} (EFBIG) — svc init removed what it had created, so nothing changed\n`,
      });
      expect(state(dir)).toEqual(before);
    },
  );
});

const SVC = fileURLToPath(new URL("./svc.ts", import.meta.url));

/** Runs `svc` from source under `ulimit -f blocks`: exit code and output. */
function runWithFileSizeLimit(
  blocks: number,
  args: readonly string[],
  cwd: string,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(
    "/bin/sh",
    [
      "-c",
      `ulimit -f ${blocks} && exec "$0" "$@"`,
      process.execPath,
      "--conditions=source",
      SVC,
      ...args,
    ],
    { cwd, stdio: ["ignore", "pipe", "pipe"] },
  );
  onTestFinished(() => {
    child.kill("SIGKILL");
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => {
    stdout += d;
  });
  child.stderr.on("data", (d: Buffer) => {
    stderr += d;
  });
  return new Promise((resolve) => {
    child.on("close", (code) => resolve({ code, stdout, stderr }));
  });
}

/** Every entry below `dir` (links as links, with their targets) and every file's bytes. */
function state(dir: string): { entries: string[]; files: Record<string, string> } {
  const entries = readdirSync(dir, { recursive: true, encoding: "utf8" })
    .map((path) => {
      const info = lstatSync(join(dir, path));
      const mode = (info.mode & 0o777).toString(8);
      if (info.isSymbolicLink()) return `${path} -> ${readlinkSync(join(dir, path))}`;
      return info.isDirectory() ? `${path}/ ${mode}` : `${path} ${mode}`;
    })
    .sort();
  return { entries, files: snapshot(dir) };
}

const INIT = { "svc:serve": "svc serve", "svc:build": "svc build" };

function decode(base64: string | undefined): string {
  return Buffer.from(base64 ?? "", "base64").toString("utf8");
}

function indent(files: Record<string, string>): number {
  return (/^\{\n( +)/.exec(files["package.json"] as string)?.[1] ?? "  ").length;
}
