import { describe, expect, it } from "vitest";
import { checkConfig } from "./checkConfig.ts";
import { defineConfig, type SvcConfig } from "./svcConfig.ts";
import { UsageError } from "./usageError.ts";

const TOP_KEYS = "sources, apps, types, publicUrl, staticUrl, build, serve";
const BUILD_KEYS = "output, minify, sourcemap, compress, ssr, importMap";
const SERVE_KEYS =
  "host, port, corsOrigins, allowedHosts, buildTimeoutMs, buildDir, static, renderIsolation, renderWorkers, renderQueue, renderMemoryMb, renderTimeoutMs, log, maxConnectionsPerAddress, maxEventClients";
const prefixed = (prefix: string, keys: string) =>
  keys
    .split(", ")
    .map((key) => `${prefix}${key}`)
    .join(", ");

/** The message `checkConfig` throws for `value`, without the file name in front. */
function problem(value: unknown): string {
  try {
    checkConfig(value, "svc.config.json");
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    const message = (error as Error).message;
    expect(message.startsWith("svc.config.json: ")).toBe(true);
    return message.slice("svc.config.json: ".length);
  }
  throw new Error(`accepted ${JSON.stringify(value)}`);
}

describe("checkConfig", () => {
  it("accepts every key with a value of its kind, and returns the config", () => {
    const config = {
      sources: ["components", { dir: "shared", prefix: "ui" }, { dir: "more" }],
      apps: ["apps/*", "sites/*"],
      types: "svc-env.d.ts",
      publicUrl: "/svc",
      staticUrl: "https://cdn.example/svc",
      build: {
        output: "dist/svc",
        minify: false,
        sourcemap: true,
        compress: true,
        ssr: false,
        importMap: false,
      },
      serve: {
        host: "127.0.0.1",
        port: 0,
        corsOrigins: ["https://app.example"],
        allowedHosts: [".example.com"],
        buildTimeoutMs: 1,
        buildDir: "dist/svc",
        static: true,
        renderIsolation: "none",
        renderWorkers: 2,
        renderQueue: 0,
        renderMemoryMb: 64,
        renderTimeoutMs: 100,
        log: "json",
        maxConnectionsPerAddress: 1,
        maxEventClients: 1,
      },
    } satisfies SvcConfig;
    expect(checkConfig(config, "svc.config.json")).toEqual(config);
    expect(checkConfig({}, "svc.config.json")).toEqual({});
    expect(checkConfig({ apps: "apps/*", serve: { allowedHosts: true } }, "x")).toEqual({
      apps: "apps/*",
      serve: { allowedHosts: true },
    });
  });

  it.each([
    [[], "the config must be an object"],
    [null, "the config must be an object"],
    ["components", "the config must be an object"],
    [{ source: ["components"] }, `unknown key "source" (known: ${TOP_KEYS})`],
    [
      { build: { outDir: "x" } },
      `unknown key "build.outDir" (known: ${prefixed("build.", BUILD_KEYS)})`,
    ],
    [{ serve: { prot: 1 } }, `unknown key "serve.prot" (known: ${prefixed("serve.", SERVE_KEYS)})`],
    [
      { sources: ["a", { dir: "b", perfix: "x" }] },
      'unknown key "sources[1].perfix" (known: sources[1].dir, sources[1].prefix)',
    ],
    [{ sources: "components" }, '"sources" must be an array'],
    [{ sources: ["a", 3] }, "sources[1] must be a directory or { dir, prefix }"],
    [{ sources: [{ prefix: "x" }] }, "sources[0] must be a directory or { dir, prefix }"],
    [{ sources: [["a"]] }, "sources[0] must be a directory or { dir, prefix }"],
    [{ sources: [{ dir: "a", prefix: 3 }] }, "sources[0].prefix must be a string"],
    [{ apps: 3 }, '"apps" must be a glob or an array of globs'],
    [{ apps: ["a", 3] }, '"apps" must be a glob or an array of globs'],
    [{ build: [] }, '"build" must be an object'],
    [{ build: null }, '"build" must be an object'],
    [{ serve: "x" }, '"serve" must be an object'],
  ])("rejects %j: %s", (value, message) => {
    expect(problem(value)).toBe(message);
  });

  it.each([
    ["types", (v: unknown) => ({ types: v })],
    ["publicUrl", (v: unknown) => ({ publicUrl: v })],
    ["staticUrl", (v: unknown) => ({ staticUrl: v })],
    ["build.output", (v: unknown) => ({ build: { output: v } })],
    ["serve.host", (v: unknown) => ({ serve: { host: v } })],
    ["serve.buildDir", (v: unknown) => ({ serve: { buildDir: v } })],
  ])("says %s must be a string", (key, config) => {
    for (const value of [3, true, null, ["x"]]) {
      expect(problem(config(value))).toBe(`${key} must be a string`);
    }
  });

  it.each([
    "build.minify",
    "build.sourcemap",
    "build.compress",
    "build.ssr",
    "build.importMap",
    "serve.static",
  ])("says %s must be a boolean", (key) => {
    const [section, name] = key.split(".") as [string, string];
    for (const value of ["no", 0, null]) {
      expect(problem({ [section]: { [name]: value } })).toBe(`${key} must be a boolean`);
    }
  });

  it("says which numbers each serve key takes", () => {
    for (const port of ["80", -1, 65536, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(problem({ serve: { port } })).toBe("serve.port must be an integer from 0 to 65535");
    }
    for (const buildTimeoutMs of [0, -5, 1.5, "1000"]) {
      expect(problem({ serve: { buildTimeoutMs } })).toBe(
        "serve.buildTimeoutMs must be a whole number of milliseconds above 0",
      );
    }
    const atLeastOne = [
      "renderWorkers",
      "renderMemoryMb",
      "renderTimeoutMs",
      "maxConnectionsPerAddress",
      "maxEventClients",
    ];
    for (const key of atLeastOne) {
      for (const value of [0, 2.5, "4", Number.POSITIVE_INFINITY]) {
        expect(problem({ serve: { [key]: value } })).toBe(
          `serve.${key} must be a whole number of at least 1`,
        );
      }
    }
    for (const renderQueue of [-1, 0.5, "0"]) {
      expect(problem({ serve: { renderQueue } })).toBe(
        "serve.renderQueue must be a whole number of at least 0",
      );
    }
    expect(checkConfig({ serve: { renderQueue: 0 } }, "x")).toEqual({ serve: { renderQueue: 0 } });
  });

  it("says which strings and lists each serve key takes", () => {
    for (const corsOrigins of ["*", ["https://a.example", 1], {}]) {
      expect(problem({ serve: { corsOrigins } })).toBe(
        "serve.corsOrigins must be an array of origins",
      );
    }
    for (const allowedHosts of [false, "a.example", [""], ["a.example", 2]]) {
      expect(problem({ serve: { allowedHosts } })).toBe(
        "serve.allowedHosts must be an array of host names, or true",
      );
    }
    expect(problem({ serve: { renderIsolation: "thread" } })).toBe(
      'serve.renderIsolation must be "worker" or "none"',
    );
    expect(problem({ serve: { log: "yaml" } })).toBe('serve.log must be "text", "json" or "off"');
  });

  it("names an unknown key before any other problem, the shallowest first", () => {
    expect(problem({ build: { minify: "no", outDir: "x" }, sourcez: [] })).toMatch(
      /^unknown key "sourcez" /,
    );
    expect(problem({ types: 3, serve: { port: "x", prot: 1 } })).toMatch(
      /^unknown key "serve\.prot" /,
    );
    expect(problem({ types: 3, build: { minify: "no" } })).toBe("types must be a string");
  });
});

describe("defineConfig", () => {
  it("types a config by the schema, with its documentation", () => {
    const config = defineConfig({
      sources: ["components", { dir: "shared", prefix: "ui" }],
      serve: { allowedHosts: true, log: "off" },
    });
    expect(config.serve?.log).toBe("off");
    // @ts-expect-error: not one of the request logs
    defineConfig({ serve: { log: "yaml" } });
    // @ts-expect-error: a key the schema does not know
    defineConfig({ build: { outDir: "dist" } });
  });
});
