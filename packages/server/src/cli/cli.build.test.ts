import { cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { build } from "../build/build.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import {
  readManifestOf,
  runSvc,
  snapshot,
  startSvc,
  typicalComponent,
  writeTree,
} from "../test/fixtures.ts";

const start = (args: string[], cwd: string, env?: Record<string, string | undefined>) =>
  startSvc(args, { cwd, env });
const run = (args: string[], cwd: string, env?: Record<string, string | undefined>) =>
  runSvc(args, { cwd, env });
const manifestOf = readManifestOf;

const project = {
  ...typicalComponent("components/card"),
  ...typicalComponent("components/ui/button", "Click"),
};

describe("svc build", () => {
  it("writes the build, prints progress and a table of component, size, gzip size and hash", async () => {
    const cwd = writeTree(project);
    const result = await run(["build", "--output", "dist/svc"], cwd);
    expect(result.code).toBe(0);
    const manifest = manifestOf(join(cwd, "dist/svc"));
    expect(Object.keys(manifest)).toEqual(["card", "ui.button"]);
    expect(result.stderr).toContain("svc build: bundling 2 components…");
    expect(result.stdout).toMatch(/^component\s+size\s+gzip\s+hash$/m);
    for (const [name, entry] of Object.entries(manifest)) {
      expect(result.stdout).toMatch(
        new RegExp(`^${name.replace(".", "\\.")}\\s+\\S+ k?B\\s+\\S+ k?B\\s+${entry.hash}$`, "m"),
      );
    }
    expect(result.stdout).toMatch(/2 components, .* → dist\/svc in \d+ ms/);
    // Nothing about packages the app does not use.
    expect(result.stderr).not.toMatch(/goober|import map/);
  });

  it("honours --prefix, --no-minify, --sourcemap, --compress and --no-ssr", async () => {
    const cwd = writeTree(project);
    const plain = await run(["build", "--output", "min"], cwd);
    const flagged = await run(
      [
        "build",
        "--output",
        "full",
        "--prefix",
        "app",
        "--no-minify",
        "--sourcemap",
        "--compress",
        "--no-ssr",
      ],
      cwd,
    );
    expect([plain.code, flagged.code]).toEqual([0, 0]);
    const full = manifestOf(join(cwd, "full"));
    expect(Object.keys(full)).toEqual(["app:card", "app:ui.button"]);
    const entry = full["app:card"];
    expect(entry?.file).toMatch(/^bundles\/app--card\.[0-9a-f]{12}\.js$/);
    expect(entry?.size).toBeGreaterThan(manifestOf(join(cwd, "min")).card?.size ?? Infinity);
    const text = readFileSync(join(cwd, "full", entry?.file ?? ""), "utf8");
    expect(text).toContain("//# sourceMappingURL=data:application/json;base64,");
    expect(readdirSync(join(cwd, "full/bundles"))).toContain(`${entry?.file.slice(8)}.br`);
    // Server bundles by default; none with --no-ssr.
    expect(manifestOf(join(cwd, "min")).card?.server?.file).toMatch(/\.cjs$/);
    expect(entry?.server).toBeUndefined();
    expect(readdirSync(join(cwd, "full/bundles")).filter((f) => f.endsWith(".cjs"))).toEqual([]);
  });

  it("exits 1 listing every broken component with file:line:column, leaving the previous output byte for byte", async () => {
    const cwd = writeTree(project);
    expect((await run(["build", "--output", "out"], cwd)).code).toBe(0);
    const before = snapshot(join(cwd, "out"));
    writeTree(
      {
        "components/broken/index.tsx": 'export { default } from "./Impl";\n',
        "components/broken/Impl.tsx":
          "export default function Impl() {\n  const x = ;\n  return x;\n}\n",
        "components/card/label.ts":
          "export function label(text: string): string {\n  return text.\n}\n",
      },
      cwd,
    );
    const result = await run(["build", "--output", "out"], cwd);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("svc: build failed: 2 errors in 2 components");
    expect(result.stderr).toContain("broken: Impl.tsx:2:13: Unexpected");
    expect(result.stderr).toMatch(/card: label\.ts:3:1: /);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
    expect(snapshot(join(cwd, "out"))).toEqual(before);
    expect(readdirSync(cwd).sort()).toEqual(["components", "out"]);
  });

  it("exits 1 listing every invalid schema.json and entry without a default export, writing nothing", async () => {
    const cwd = writeTree(project);
    expect((await run(["build", "--output", "out"], cwd)).code).toBe(0);
    const before = snapshot(join(cwd, "out"));
    writeTree(
      {
        "components/card/schema.json":
          '{ "type": "object", "properties": { "who": { "type": "text" } } }',
        "components/ui/button/schema.json": "{ not json",
        "components/helper/index.ts": "export const answer = 42;\n",
      },
      cwd,
    );
    const result = await run(["build", "--output", "out"], cwd);
    expect(result.code).toBe(1);
    expect(result.stdout).toBe("");
    expect(result.stderr.trim().split("\n").slice(-4)).toEqual([
      "svc: build failed: 3 errors in 3 components; the previous output was left untouched",
      '  card: schema.json: is not a valid JSON Schema: #/properties/who/type must be one of string, number, integer, boolean, object, array, null (or an array of them), not "text"',
      expect.stringMatching(
        /^ {2}helper: index\.ts: has no default export \(it exports answer\): export the React component as default/,
      ),
      expect.stringMatching(/^ {2}ui\.button: schema\.json:1:3: is not valid JSON: /),
    ]);
    expect(snapshot(join(cwd, "out"))).toEqual(before);
  });

  it("inlines import.meta.env: MODE production and the SVC_PUBLIC_ variables, and no other variable", async () => {
    const cwd = writeTree({
      "components/env/index.tsx": `export default function Env() {
  return (
    <p title={import.meta.env.SECRET} data-other={String(process.env.SECRET)}>
      {import.meta.env.MODE} {String(import.meta.env.PROD)} {import.meta.env.SVC_PUBLIC_GREETING}
    </p>
  );
}
`,
    });
    const result = await run(["build", "--output", "out"], cwd, {
      SECRET: "hunter2-do-not-ship",
      SVC_PUBLIC_GREETING: "Grüezi from the env",
    });
    expect(result.code).toBe(0);
    const entry = manifestOf(join(cwd, "out")).env;
    for (const file of [entry?.file, entry?.server?.file]) {
      const text = readFileSync(join(cwd, "out", file ?? ""), "utf8");
      expect(text).toContain("Grüezi from the env");
      expect(text).toContain('"production"');
      expect(text).not.toContain("hunter2-do-not-ship");
      expect(text).not.toContain("import.meta");
      expect(text).toContain("process.env.SECRET");
    }
  });

  it.each([
    [["build"], /^svc: --output DIR is required — pass it, set SVC_BUILD_DIR/],
    [["build", "--output", "taken"], /^svc: .*taken is not empty and holds no manifest\.json/],
    [["build", "--output", "o", "--prefix", "2col"], /^svc: --prefix "2col" is not a valid/],
    [
      ["build", "--output", "o", "--components-dir", "nope"],
      /^svc: components directory nope does not exist/,
    ],
  ])("rejects %j with one line and exit code 2", async (args, message) => {
    const cwd = writeTree({ ...project, "taken/notes.txt": "mine" });
    const result = await run(args, cwd);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(readFileSync(join(cwd, "taken/notes.txt"), "utf8")).toBe("mine");
  });

  it("uses SVC_BUILD_DIR as the output when --output is not given", async () => {
    const cwd = writeTree(project);
    const result = await run(["build"], cwd, { SVC_BUILD_DIR: "from-env" });
    expect(result.code).toBe(0);
    expect(Object.keys(manifestOf(join(cwd, "from-env")))).toEqual(["card", "ui.button"]);
  });
});

describe("svc build killed with SIGKILL", () => {
  /** 300 components: enough that writing them (compressed) takes a while. */
  function manyComponents(version: string): Record<string, string> {
    const files: Record<string, string> = {};
    for (let i = 0; i < 300; i++) {
      files[`components/c${i}/index.tsx`] =
        `import { useState } from "react";\nexport default function C${i}() {\n  const [n, setN] = useState(${i});\n  return <button type="button" onClick={() => setN(n + 1)}>${version} ${i}: {n}</button>;\n}\n`;
    }
    return files;
  }

  it.each([
    ["as soon as it has written a file", 1],
    ["halfway through writing bundles", 300],
    ["once every bundle is written, while compressing", 600],
  ])("%s leaves the previous output intact; the next build cleans up", async (_, written) => {
    const cwd = writeTree(manyComponents("v1"));
    const outDir = join(cwd, "out");
    const bundles = join(outDir, "bundles");
    const registry = () => new ComponentRegistry(join(cwd, "components"), { logger: silentLogger });
    await build({ registry: registry(), outDir });
    const before = snapshot(outDir);
    const previous = new Set(readdirSync(bundles));
    writeTree(manyComponents("v2"), cwd);

    const svc = start(["build", "--output", "out", "--compress"], cwd);
    /** Files the build has added to bundles/ (temporary or final). */
    const added = () => readdirSync(bundles).filter((name) => !previous.has(name));
    let exited = false;
    void svc.exited.then(() => {
      exited = true;
    });
    while (!exited && added().length < written) await new Promise((r) => setImmediate(r));
    svc.child.kill("SIGKILL");
    expect(await svc.exited).toEqual({ code: null, signal: "SIGKILL" });

    // The previous build is whole and still published; the killed one only added files.
    const after = snapshot(outDir);
    for (const [path, bytes] of Object.entries(before)) expect(after[path], path).toBe(bytes);
    expect(added().length).toBeGreaterThanOrEqual(written);
    expect(readdirSync(cwd).sort()).toEqual(["components", "out"]);

    const next = await build({ registry: registry(), outDir, compress: true });
    expect(manifestOf(outDir)).toEqual(next.manifest);
    expect(snapshot(outDir)).not.toEqual(before);
    const temporary = [...readdirSync(outDir), ...readdirSync(bundles)].filter((name) =>
      name.startsWith("."),
    );
    expect(temporary).toEqual([]);
  });
});

describe("svc serve --build-dir", () => {
  it("says how many components it serves, in the singular for one", async () => {
    const cwd = writeTree(typicalComponent("components/card"));
    expect((await run(["build", "--output", "out"], cwd)).code).toBe(0);
    const svc = start(
      [
        "serve",
        "--host",
        "127.0.0.1",
        "--port",
        "0",
        "--build-dir",
        "out",
        "--render-workers",
        "1",
      ],
      cwd,
    );
    await svc.waitFor(/api: +http:\/\/\S+\/api\/bundles/);
    expect(svc.output().stdout).toMatch(/^svc serving 1 component from \S+\/components$/m);
  });

  it("serves a build of a tree holding a name over 200 characters, which a second build replaces", async () => {
    const long = `components/${"a".repeat(100)}/${"b".repeat(100)}/index.tsx`;
    const cwd = writeTree({ ...project, [long]: 'export default () => "long";\n' });
    const first = await run(["build", "--output", "out"], cwd);
    expect(first.code, first.stderr).toBe(0);
    expect(first.stderr.match(/is longer than 200 characters/g)).toHaveLength(1);
    const firstManifest = manifestOf(join(cwd, "out"));
    expect(Object.keys(firstManifest)).toEqual(["card", "ui.button"]);
    const firstCard = firstManifest.card?.hash;

    const svc = start(
      ["serve", "--host", "127.0.0.1", "--port", "0", "--build-dir", "out", "--static"],
      cwd,
    );
    const [, url] = await svc.waitFor(/api: +(http:\/\/\S+)\/api\/bundles/);
    const served = await fetch(`${url}/static/svc/manifest.json`);
    expect(Object.keys((await served.json()) as object)).toEqual(["card", "ui.button"]);
    const list = await fetch(`${url}/api/bundles`);
    expect(await list.json()).toEqual([{ name: "card" }, { name: "ui.button" }]);

    writeTree(typicalComponent("components/card", "Again"), cwd);
    const second = await run(["build", "--output", "out"], cwd);
    expect(second.code, second.stderr).toBe(0);
    const next = manifestOf(join(cwd, "out"));
    expect(Object.keys(next)).toEqual(["card", "ui.button"]);
    expect(next.card?.hash).not.toBe(firstCard);
    // The server picks the new build up.
    const again = await fetch(`${url}/static/svc/manifest.json`);
    expect(((await again.json()) as Record<string, { hash: string }>).card?.hash).toBe(
      next.card?.hash,
    );
  });

  it("serves the build under /static/svc/ and, with --static, answers 404 StaticMode for bundles", async () => {
    const cwd = writeTree(project);
    expect((await run(["build", "--output", "out"], cwd)).code).toBe(0);
    const manifest = manifestOf(join(cwd, "out"));
    const svc = start(
      ["serve", "--host", "127.0.0.1", "--port", "0", "--build-dir", "out", "--static"],
      cwd,
    );
    const url = await new Promise<string>((resolve, reject) => {
      const check = () => {
        const match = /api: +(http:\/\/\S+)\/api\/bundles/.exec(svc.output().stdout);
        if (match?.[1]) resolve(match[1]);
      };
      svc.child.stdout?.on("data", check);
      svc.child.on("exit", () => reject(new Error(svc.output().stderr)));
    });
    const card = manifest.card;
    const file = await fetch(`${url}/static/svc/${card?.file}`);
    expect(file.status).toBe(200);
    expect(file.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(
      Buffer.from(await file.arrayBuffer()).equals(
        readFileSync(join(cwd, "out", card?.file ?? "")),
      ),
    ).toBe(true);
    const manifestResponse = await fetch(`${url}/static/svc/manifest.json`);
    expect(manifestResponse.headers.get("cache-control")).toBe("no-cache");
    expect(await manifestResponse.json()).toEqual(manifest);

    const bundle = await fetch(`${url}/api/bundles/card.js`);
    expect(bundle.status).toBe(404);
    expect(((await bundle.json()) as { error: string }).error).toBe("StaticMode");
    const metadata = await fetch(`${url}/api/bundles/card/metadata`);
    expect(((await metadata.json()) as { hash: string }).hash).toBe(card?.hash);
    svc.child.kill("SIGTERM");
    expect((await svc.exited).code).toBe(0);
  });

  it("serves a build without sources alone: its listing and minimal metadata, no built-in examples", async () => {
    const cwd = writeTree(project);
    expect((await run(["build", "--output", "out"], cwd)).code).toBe(0);
    // Where it is deployed: the build, no components directory.
    const deployed = writeTree({});
    cpSync(join(cwd, "out"), join(deployed, "svc"), { recursive: true });
    const svc = start(
      ["serve", "--host", "127.0.0.1", "--port", "0", "--build-dir", "svc", "--static"],
      deployed,
    );
    const [, url] = await svc.waitFor(/api: +(http:\/\/\S+)\/api\/bundles/);
    expect(svc.output().stdout).toMatch(
      /svc serving the build in .*svc \(no component sources here\)/,
    );
    const list = await fetch(`${url}/api/bundles`);
    expect(await list.json()).toEqual([{ name: "card" }, { name: "ui.button" }]);
    const metadata = await fetch(`${url}/api/bundles/card/metadata`);
    expect(await metadata.json()).toMatchObject({ name: "card", title: "card", props: {} });
    expect((await fetch(`${url}/api/bundles/carousel/metadata`)).status).toBe(404);
    svc.child.kill("SIGTERM");
    expect((await svc.exited).code).toBe(0);
  });

  it("refuses --static without a build directory, and a build directory without a manifest", async () => {
    const cwd = writeTree(project);
    mkdirSync(join(cwd, "empty"));
    writeFileSync(join(cwd, "bad.json"), "{}");
    const noDir = await run(["serve", "--port", "0", "--static"], cwd);
    expect(noDir.code).toBe(2);
    expect(noDir.stderr).toMatch(/^svc: --static needs a build directory — pass --build-dir/);
    const noManifest = await run(["serve", "--port", "0", "--build-dir", "empty"], cwd);
    expect(noManifest.code).toBe(2);
    expect(noManifest.stderr).toMatch(/manifest\.json does not exist — run `svc build --output/);
    expect(noManifest.stderr.trim().split("\n")).toHaveLength(1);
  });
});
