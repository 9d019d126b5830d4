import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { writeTree } from "../test/fixtures.ts";
import { createRegistry } from "./createRegistry.ts";
import { loadConfigFile } from "./loadConfigFile.ts";
import { resolveConfig } from "./resolveConfig.ts";
import { BUILTIN_COMPONENTS_DIR } from "./resolveSources.ts";
import { UsageError } from "./usageError.ts";

const component = "export default () => null;\n";

/** Two sources (one prefixed) and three applications, two of which hold components. */
const multiProject = {
  "svc.config.json": JSON.stringify({
    sources: ["components", { dir: "shared/ui", prefix: "ui" }],
    apps: "apps/*",
    build: { output: "dist/svc" },
  }),
  "components/header/index.tsx": component,
  "shared/ui/button/index.tsx": component,
  "apps/shop/components/cart/index.tsx": component,
  "apps/shop/components/cart/line/index.tsx": component,
  "apps/blog/components/post/index.tsx": component,
  "apps/docs/README.md": "no components/ here",
  "apps/Bad-Label/components/x/index.tsx": component,
};
const multiNames = ["blog:post", "header", "shop:cart", "shop:cart.line", "ui:button"];

describe("resolveConfig", () => {
  it("defaults without a config file: ./components when it exists, else the built-in examples", async () => {
    const withComponents = writeTree({ "components/a/index.tsx": component });
    const config = await resolveConfig({ cwd: withComponents, env: {} });
    expect(config).toMatchObject({
      root: withComponents,
      configFile: undefined,
      sources: [{ dir: join(withComponents, "components"), prefix: "" }],
      build: { output: undefined, minify: true, sourcemap: false, compress: false, ssr: true },
      serve: {
        host: "0.0.0.0",
        port: 8000,
        corsOrigins: ["http://localhost:5173"],
        buildDir: undefined,
        static: false,
      },
    });
    const bare = await resolveConfig({ cwd: writeTree({ "README.md": "" }), env: {} });
    expect(bare.sources).toEqual([{ dir: BUILTIN_COMPONENTS_DIR, prefix: "" }]);
  });

  it("lists appname:component names from two sources and an apps glob", async () => {
    const cwd = writeTree(multiProject);
    const config = await resolveConfig({ cwd, env: {} });
    expect(config.sources).toEqual([
      { dir: join(cwd, "components"), prefix: "" },
      { dir: join(cwd, "shared/ui"), prefix: "ui" },
      { dir: join(cwd, "apps/blog/components"), prefix: "blog" },
      { dir: join(cwd, "apps/shop/components"), prefix: "shop" },
    ]);
    expect(config.warnings).toEqual([
      'skipped application apps/Bad-Label: "Bad-Label" is not a valid prefix (an identifier — letters, digits and _, not starting with a digit — or kebab-case: lowercase words joined by single hyphens)',
    ]);
    const handlers = createHandlers(createRegistry(config, silentLogger));
    expect((await handlers.listBundles()).map((e) => e.name)).toEqual(multiNames);
  });

  it("reads svc.config.ts (Node strips the types) and resolves its paths from its directory", async () => {
    const cwd = writeTree({
      "svc.config.ts": `interface Config { sources: { dir: string; prefix?: string }[]; serve: { port: number; corsOrigins: string[] } }\nconst config: Config = { sources: [{ dir: "src/components", prefix: "web" }], serve: { port: 3001, corsOrigins: ["https://app.example"] } };\nexport default config;\n`,
      "src/components/a/index.tsx": component,
    });
    const config = await resolveConfig({ cwd, env: {} });
    expect(config.configFile).toBe(join(cwd, "svc.config.ts"));
    expect(config.sources).toEqual([{ dir: join(cwd, "src/components"), prefix: "web" }]);
    expect(config.serve).toMatchObject({ port: 3001, corsOrigins: ["https://app.example"] });
  });

  it("reads a .js config whose default export is a function, from --config", async () => {
    const cwd = writeTree({
      "config/svc.mjs": `export default async () => ({ sources: ["../components"], build: { output: "../out", sourcemap: true } });\n`,
      "components/a/index.tsx": component,
    });
    const config = await resolveConfig({ cwd, configFile: "config/svc.mjs", env: {} });
    expect(config.root).toBe(join(cwd, "config"));
    expect(config.sources).toEqual([{ dir: join(cwd, "components"), prefix: "" }]);
    expect(config.build).toMatchObject({ output: join(cwd, "out"), sourcemap: true });
  });

  it("lets flags override the config file", async () => {
    const cwd = writeTree({
      ...multiProject,
      "svc.config.json": JSON.stringify({
        sources: ["components"],
        build: { output: "dist/svc", minify: false, compress: true, ssr: false },
        serve: { host: "127.0.0.1", port: 3001, corsOrigins: ["https://a.example"], static: true },
      }),
      "other/x/index.tsx": component,
    });
    const config = await resolveConfig({
      cwd,
      env: {},
      flags: {
        componentsDir: "other",
        prefix: "o",
        output: "elsewhere",
        minify: true,
        compress: false,
        port: 9000,
        corsOrigins: ["https://b.example"],
        static: false,
      },
    });
    expect(config.sources).toEqual([{ dir: join(cwd, "other"), prefix: "o" }]);
    expect(config.build).toEqual({
      output: join(cwd, "elsewhere"),
      minify: true,
      sourcemap: false,
      compress: false,
      ssr: false,
      importMap: true,
    });
    expect(config.serve).toMatchObject({
      host: "127.0.0.1",
      port: 9000,
      corsOrigins: ["https://b.example"],
      static: false,
    });
  });

  it("takes the build directory from --build-dir, else SVC_BUILD_DIR, else serve.buildDir when built", async () => {
    const cwd = writeTree({
      "svc.config.json": JSON.stringify({ serve: { buildDir: "dist/svc" } }),
      "dist/svc/manifest.json": "{}",
      "env-dir/manifest.json": "{}",
    });
    const resolveWith = (env: Record<string, string>, buildDir?: string) =>
      resolveConfig({ cwd, env, flags: { buildDir } }).then((c) => c.serve.buildDir);
    expect(await resolveWith({})).toBe(join(cwd, "dist/svc"));
    expect(await resolveWith({ SVC_BUILD_DIR: "env-dir" })).toBe(join(cwd, "env-dir"));
    expect(await resolveWith({ SVC_BUILD_DIR: "" })).toBeUndefined();
    expect(await resolveWith({ SVC_BUILD_DIR: "" }, "flag-dir")).toBe(join(cwd, "flag-dir"));

    const unbuilt = writeTree({
      "svc.config.json": JSON.stringify({ serve: { buildDir: "dist/svc" } }),
    });
    const config = await resolveConfig({ cwd: unbuilt, env: {} });
    expect(config.serve.buildDir).toBeUndefined();
    expect(config.warnings[0]).toMatch(/serve\.buildDir dist\/svc holds no manifest\.json yet/);
  });

  it("takes the build output from --output, else SVC_BUILD_DIR, else build.output", async () => {
    const cwd = writeTree({ "svc.config.json": JSON.stringify({ build: { output: "cfg" } }) });
    const output = (env: Record<string, string>, flag?: string) =>
      resolveConfig({ cwd, env, flags: { output: flag } }).then((c) => c.build.output);
    expect(await output({})).toBe(join(cwd, "cfg"));
    expect(await output({ SVC_BUILD_DIR: "env" })).toBe(join(cwd, "env"));
    expect(await output({ SVC_BUILD_DIR: "" })).toBe(join(cwd, "cfg"));
    expect(await output({ SVC_BUILD_DIR: "env" }, "flag")).toBe(join(cwd, "flag"));
  });

  it.each([
    [{ source: ["components"] }, /svc\.config\.json: unknown key "source" \(known: sources, apps/],
    [{ build: { outDir: "x" } }, /unknown key "build\.outDir" \(known: build\.output/],
    [{ sources: "components" }, /"sources" must be an array/],
    [{ sources: [{ prefix: "x" }] }, /sources\[0\] must be a directory or \{ dir, prefix \}/],
    [{ sources: ["missing"] }, /sources\[0\]: components directory missing does not exist/],
    [{ sources: [{ dir: "components", prefix: "a--b" }] }, /sources\[0\]\.prefix "a--b" is not/],
    [{ serve: { port: "80" } }, /serve\.port must be an integer from 0 to 65535/],
    [{ serve: { corsOrigins: "*" } }, /serve\.corsOrigins must be an array of origins/],
    [{ build: { minify: "no" } }, /build\.minify must be a boolean/],
    [{ apps: 3 }, /"apps" must be a glob or an array of globs/],
    [[], /the config must be an object/],
  ])("rejects the config %j, naming the file and the key", async (value, message) => {
    const cwd = writeTree({
      "svc.config.json": JSON.stringify(value),
      "components/a/index.tsx": component,
    });
    const error = await resolveConfig({ cwd, env: {} }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UsageError);
    expect((error as Error).message).toMatch(message);
  });

  it("rejects --prefix when the config lists sources, and a missing --config file", async () => {
    const cwd = writeTree(multiProject);
    await expect(resolveConfig({ cwd, env: {}, flags: { prefix: "x" } })).rejects.toThrow(
      /--prefix applies to --components-dir/,
    );
    await expect(resolveConfig({ cwd, env: {}, configFile: "nope.ts" })).rejects.toThrow(
      "config file nope.ts does not exist — pass --config with a file",
    );
  });
});

describe("loadConfigFile", () => {
  it.each([
    ["svc.config.json", "{ nope", /svc\.config\.json is not valid JSON/],
    ["svc.config.mjs", "export const x = 1;\n", /has no default export — write `export default/],
    ["svc.config.mjs", "export default {;\n", /^cannot load .*svc\.config\.mjs: /],
  ])("explains a broken %s", async (name, text, message) => {
    const dir = writeTree({ [name]: text });
    await expect(loadConfigFile(join(dir, name))).rejects.toThrow(message);
  });
});

describe("svc build with svc.config", () => {
  it("builds every component of every source and application into one manifest", async () => {
    const cwd = writeTree(multiProject);
    const svc = spawn(
      process.execPath,
      ["--conditions=source", fileURLToPath(new URL("../cli/svc.ts", import.meta.url)), "build"],
      { cwd, env: { ...process.env, SVC_BUILD_DIR: undefined }, stdio: ["ignore", "pipe", "pipe"] },
    );
    let stderr = "";
    svc.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    const code = await new Promise((resolve) => svc.on("exit", resolve));
    expect(code, stderr).toBe(0);
    expect(stderr).toContain('warning: skipped application apps/Bad-Label: "Bad-Label"');
    const manifest = JSON.parse(readFileSync(join(cwd, "dist/svc/manifest.json"), "utf8"));
    expect(Object.keys(manifest)).toEqual(multiNames);
    expect(manifest["shop:cart.line"].file).toMatch(
      /^bundles\/shop--cart\.line\.[0-9a-f]{12}\.js$/,
    );
  });
});
