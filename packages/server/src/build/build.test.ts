import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  chmodSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { parse } from "es-module-lexer/minimal/js";
import { afterAll, describe, expect, it } from "vitest";
import { EXTERNALS, esbuildBundler } from "../bundling/bundler.ts";
import { buildVendorModules } from "../bundling/vendorModules.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { schemaProblem } from "../components/schemaProblem.ts";
import { silentLogger } from "../logger.ts";
import type { Manifest } from "../served/manifest.ts";
import { readManifestOf, snapshot, typicalComponent, writeTree } from "../test/fixtures.ts";
import { build } from "./build.ts";
import { BuildFailedError, BuildOutputError, BuildSetupError } from "./buildErrors.ts";
import { formatBuildReport } from "./buildReport.ts";

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh directory to build into (its path does not exist yet). */
function outputPath(): string {
  const parent = mkdtempSync(join(tmpdir(), "svc-build-"));
  scratch.push(parent);
  return join(parent, "out");
}

function registryOf(dir: string, prefix?: string): ComponentRegistry {
  return new ComponentRegistry(dir, { prefix, logger: silentLogger });
}

/** Anything beside `outDir` (a build writes only inside it). */
function siblings(outDir: string): string[] {
  return readdirSync(dirname(outDir)).filter((name) => name !== "out");
}

/** The files a manifest lists (relative to the build directory). */
/** The files a build writes at the top of its directory: the manifest, and the loader's extras. */
const TOP_FILES = ["loader.extras.js", "manifest.json"];

function listedFiles(manifest: Manifest): string[] {
  return Object.values(manifest).flatMap((entry) =>
    entry.server === undefined ? [entry.file] : [entry.file, entry.server.file],
  );
}

/** Sets the modification time of `path` to `ms` ago. */
function age(path: string, ms: number): void {
  const then = new Date(Date.now() - ms);
  utimesSync(path, then, then);
}

const tree = {
  ...typicalComponent("card"),
  ...typicalComponent("ui/button", "Click"),
  "shared/format.ts": "export const format = (s: string) => `«${s}»`;\n",
  "greeting/index.tsx":
    'import { format } from "../shared/format";\nexport default function Greeting({ name = "you" }: { name?: string }) {\n  return <h1 title={process.env.NODE_ENV}>{format(`Hello ${name}`)}</h1>;\n}\n',
};

describe("build", () => {
  it("writes manifest.json and bundles/<file_safe_name>.<hash>.js whose hashes are those of the bytes", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    const result = await build({ registry: registryOf(dir), outDir });

    const manifest = readManifestOf(outDir);
    expect(Object.keys(manifest)).toEqual(["card", "greeting", "ui.button"]);
    expect(result.manifest).toEqual(manifest);
    for (const [name, entry] of Object.entries(manifest)) {
      expect(Object.keys(entry)).toEqual(["file", "hash", "integrity", "size", "server"]);
      const server = readFileSync(join(outDir, entry.server?.file ?? ""));
      expect(entry.server?.file).toMatch(new RegExp(`^bundles/${name}\\.[0-9a-f]{12}\\.cjs$`));
      expect(entry.server?.integrity).toBe(
        `sha384-${createHash("sha384").update(server).digest("base64")}`,
      );
      expect(server.toString("utf8")).not.toContain(dir);
      expect(entry.file).toBe(`bundles/${name}.${entry.hash}.js`);
      const bytes = readFileSync(join(outDir, entry.file));
      expect(entry.hash).toBe(createHash("sha256").update(bytes).digest("hex").slice(0, 12));
      expect(entry.integrity).toBe(`sha384-${createHash("sha384").update(bytes).digest("base64")}`);
      expect(entry.size).toBe(bytes.byteLength);
      const text = bytes.toString("utf8");
      const [imports, exports] = parse(text);
      for (const specifier of imports.map((i) => i.n)) expect(EXTERNALS).toContain(specifier);
      expect(exports.map((e) => e.n)).toContain("default");
      expect(text).not.toContain(dir);
      expect(text).not.toContain("sourceMappingURL");
      expect(text).not.toMatch(/process\.env|development/);
    }
    // Beside the manifest: what the loader fetches for islands (`loader.extras.js`).
    expect(readdirSync(outDir).sort()).toEqual(["bundles", "loader.extras.js", "manifest.json"]);
    expect(readdirSync(join(outDir, "bundles")).sort()).toEqual(
      listedFiles(manifest)
        .map((file) => file.slice("bundles/".length))
        .sort(),
    );
    expect(siblings(outDir)).toEqual([]);
    expect(result.bundles.map((b) => b.name)).toEqual(["card", "greeting", "ui.button"]);
    for (const bundle of result.bundles) expect(bundle.gzipSize).toBeGreaterThan(0);
  });

  it("lists each bundle's literal dependencies in its entry, from its own module graph (minified or not)", async () => {
    const dir = writeTree({
      ...tree,
      "shared/slides.tsx":
        'import { ServerComponent } from "@svc/react";\nexport const Slide = () => <ServerComponent name="ui.button" />;\n',
      "carousel/index.tsx":
        'import { useComponent } from "@svc/react";\nimport { Slide } from "../shared/slides";\nexport default function Carousel({ kind }: { kind: string }) {\n  const Card = useComponent("card");\n  const Other = useComponent(`slide.${kind}`);\n  return <><Card /><Slide /><Other /></>;\n}\n',
    });
    for (const minify of [true, false]) {
      const outDir = outputPath();
      const result = await build({ registry: registryOf(dir), outDir, minify });
      const manifest = readManifestOf(outDir);
      expect(manifest.carousel?.dependencies).toEqual(["card", "ui.button"]);
      // None: no key at all, as before.
      expect(Object.keys(manifest.card ?? {})).not.toContain("dependencies");
      expect(result.bundles.find((b) => b.name === "carousel")?.dependencies).toEqual([
        "card",
        "ui.button",
      ]);
    }
  });

  it("with a prefix, names components <prefix>:<name> and files <prefix>--<name>.<hash>.js", async () => {
    const outDir = outputPath();
    await build({ registry: registryOf(writeTree(tree), "app"), outDir });
    const manifest = readManifestOf(outDir);
    expect(Object.keys(manifest)).toEqual(["app:card", "app:greeting", "app:ui.button"]);
    expect(manifest["app:ui.button"]?.file).toMatch(/^bundles\/app--ui\.button\.[0-9a-f]{12}\.js$/);
    expect(existsSync(join(outDir, manifest["app:card"]?.file ?? "missing"))).toBe(true);
  });

  it("minifies by default (smaller than minify: false), and sourcemap: true appends an inline map", async () => {
    const dir = writeTree(tree);
    const [minified, plain, mapped] = [outputPath(), outputPath(), outputPath()];
    await build({ registry: registryOf(dir), outDir: minified });
    await build({ registry: registryOf(dir), outDir: plain, minify: false });
    await build({ registry: registryOf(dir), outDir: mapped, sourcemap: true });
    const size = (outDir: string) => readManifestOf(outDir).card?.size ?? 0;
    expect(size(minified)).toBeLessThan(size(plain));

    const manifest = readManifestOf(mapped);
    const text = readFileSync(join(mapped, manifest.card?.file ?? ""), "utf8");
    const match = /\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\n$/.exec(
      text,
    );
    expect(match).not.toBeNull();
    const map = JSON.parse(Buffer.from(match?.[1] ?? "", "base64").toString("utf8")) as {
      sources: string[];
      sourcesContent: string[];
    };
    expect(map.sources).toEqual(
      expect.arrayContaining(["component://card/View.tsx", "component://card/label.ts"]),
    );
    expect(map.sourcesContent.length).toBe(map.sources.length);
    expect(size(mapped)).toBeGreaterThan(size(minified));
  });

  it.each([
    { minify: true, sourcemap: false },
    { minify: false, sourcemap: true },
  ])("gives the same bytes as the dev bundler for the same options (%j)", async (options) => {
    const dir = writeTree(tree);
    const registry = registryOf(dir);
    const outDir = outputPath();
    await build({ registry, outDir, ...options });
    const manifest = readManifestOf(outDir);
    for (const component of registry.list()) {
      const live = await esbuildBundler.bundle(component, { ...options, mode: "production" });
      const built = readFileSync(join(outDir, manifest[component.name]?.file ?? ""));
      expect(Buffer.from(live.code).equals(built)).toBe(true);
      expect(manifest[component.name]?.hash).toBe(live.hash);
    }
  });

  it("builds several sources in one manifest, with the same minified bytes as the dev bundler", async () => {
    const root = writeTree({
      ...Object.fromEntries(Object.entries(tree).map(([k, v]) => [`web/components/${k}`, v])),
      ...Object.fromEntries(
        Object.entries(typicalComponent("cart")).map(([k, v]) => [`shop/components/${k}`, v]),
      ),
    });
    const registry = registryOf(join(root, "web/components"));
    registry.addSource(join(root, "shop/components"), { prefix: "shop" });
    const outDir = outputPath();
    await build({ registry, outDir });
    const manifest = readManifestOf(outDir);
    expect(Object.keys(manifest)).toEqual(["card", "greeting", "shop:cart", "ui.button"]);
    for (const component of registry.list()) {
      const live = await esbuildBundler.bundle(component, {
        minify: true,
        sourcemap: false,
        mode: "production",
      });
      expect(manifest[component.name]?.hash).toBe(live.hash);
    }
  });

  it("is deterministic: the same sources in two directories give identical manifests and files", async () => {
    const first = writeTree(tree);
    const second = join(writeTree({ "x/README": "" }), "deeper", "copy");
    cpSync(first, second, { recursive: true });
    const [a, b] = [outputPath(), outputPath()];
    await build({ registry: registryOf(first), outDir: a, compress: true, sourcemap: true });
    await build({ registry: registryOf(second), outDir: b, compress: true, sourcemap: true });
    expect(readFileSync(join(a, "manifest.json"), "utf8")).toBe(
      readFileSync(join(b, "manifest.json"), "utf8"),
    );
    expect(snapshot(a)).toEqual(snapshot(b));
  });

  it("with compress, writes .gz and .br siblings that decompress to the bundle", async () => {
    const outDir = outputPath();
    await build({ registry: registryOf(writeTree(tree)), outDir, compress: true });
    for (const entry of Object.values(readManifestOf(outDir))) {
      const bytes = readFileSync(join(outDir, entry.file));
      expect(gunzipSync(readFileSync(join(outDir, `${entry.file}.gz`))).equals(bytes)).toBe(true);
      expect(
        brotliDecompressSync(readFileSync(join(outDir, `${entry.file}.br`))).equals(bytes),
      ).toBe(true);
    }
  });

  it("fails as a whole, listing every error with file:line:column, and leaves the previous output byte for byte", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    await build({ registry: registryOf(dir), outDir });
    const before = snapshot(outDir);

    writeTree(
      {
        "broken/index.tsx": 'export { default } from "./Impl";\n',
        "broken/Impl.tsx": "export default function Impl() {\n  const x = ;\n  return x;\n}\n",
        "ui/button/View.tsx": "export default function View() {\n  return <p>unclosed</b>;\n}\n",
      },
      dir,
    );
    const failure = await build({ registry: registryOf(dir), outDir }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BuildFailedError);
    const { failures, message } = failure as BuildFailedError;
    expect(failures).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ component: "broken", file: "Impl.tsx", line: 2, column: 13 }),
        expect.objectContaining({ component: "ui.button", file: "View.tsx", line: 2 }),
      ]),
    );
    expect(message).toContain("broken: Impl.tsx:2:13: Unexpected");
    expect(message).toMatch(/ui\.button: View\.tsx:2:\d+: /);
    expect(message).not.toContain(dir);
    expect(snapshot(outDir)).toEqual(before);
    expect(siblings(outDir)).toEqual([]);
  });

  it("refuses a non-empty directory without manifest.json and leaves it untouched", async () => {
    const outDir = outputPath();
    mkdirSync(outDir);
    writeFileSync(join(outDir, "precious.txt"), "do not delete");
    const error = await build({ registry: registryOf(writeTree(tree)), outDir }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BuildSetupError);
    expect((error as Error).message).toMatch(/not empty and holds no manifest\.json/);
    expect(snapshot(outDir)).toEqual({
      "precious.txt": Buffer.from("do not delete").toString("base64"),
    });
    expect(siblings(outDir)).toEqual([]);
  });

  it.each([
    [
      "a web-app manifest.json",
      { "manifest.json": '{"name":"Shop","icons":[{"src":"icon.png"}]}', "icon.png": "png" },
      /holds a manifest\.json that is not an svc manifest \(manifest\.json: entry "name" must be an object/,
    ],
    [
      "files svc build does not write",
      { "manifest.json": "{}", "bundles/x.js": "", "robots.txt": "User-agent: *" },
      /holds files svc build does not write \(robots\.txt\), so it was left untouched/,
    ],
  ])("refuses a directory with %s and leaves it untouched", async (_, files, message) => {
    const outDir = outputPath();
    mkdirSync(outDir);
    writeTree(files, outDir);
    const before = snapshot(outDir);
    const error = await build({ registry: registryOf(writeTree(tree)), outDir }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BuildSetupError);
    expect((error as Error).message).toMatch(message);
    expect(snapshot(outDir)).toEqual(before);
  });

  it("replaces an empty directory, and creates missing parents", async () => {
    const empty = outputPath();
    mkdirSync(empty);
    await build({ registry: registryOf(writeTree(tree)), outDir: empty });
    expect(existsSync(join(empty, "manifest.json"))).toBe(true);

    const nested = join(outputPath(), "a", "b");
    await build({ registry: registryOf(writeTree(tree)), outDir: nested });
    expect(existsSync(join(nested, "manifest.json"))).toBe(true);
  });

  it("replaces a symlinked output where it really is, keeping the link and the permissions", async () => {
    const dir = writeTree(tree);
    const real = outputPath();
    await build({ registry: registryOf(dir), outDir: real });
    chmodSync(real, 0o750);
    const link = join(dirname(real), "link");
    symlinkSync(real, link);
    writeTree(typicalComponent("card", "Changed"), dir);
    const { manifest } = await build({ registry: registryOf(dir), outDir: link });
    expect(lstatSync(link).isSymbolicLink()).toBe(true);
    expect(readManifestOf(real)).toEqual(manifest);
    expect(statSync(real).mode & 0o777).toBe(0o750);
  });

  it("refuses to build nothing, naming the sources", async () => {
    const dir = writeTree({ "README.md": "no components" });
    const error = await build({ registry: registryOf(dir), outDir: outputPath() }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BuildSetupError);
    expect((error as Error).message).toContain(`no components found in ${dir}`);
  });

  it("cleans up after killed builds: removes their temporary files, keeps those of live builds", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    await build({ registry: registryOf(dir), outDir });
    const previous = snapshot(outDir);

    // Builds killed while writing left temporary files beside the manifest and the bundles;
    // a build still running (its process is alive) has one of its own.
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    const alive = process.ppid;
    const leftovers = {
      [`.tmp-${dead}-1a2b3c4d.manifest.json`]: '{"card": {"fi',
      [`bundles/.tmp-${dead}-0a0b0c0d.card.0123456789ab.js`]: "export default",
    };
    const live = `bundles/.tmp-${alive}-5e6f7a8b.card.0123456789ab.js`;
    writeTree({ ...leftovers, [live]: "being written" }, outDir);

    // Even a build that then fails removes them first.
    writeTree({ "broken/index.tsx": "export default ;\n" }, dir);
    await expect(build({ registry: registryOf(dir), outDir })).rejects.toBeInstanceOf(
      BuildFailedError,
    );
    expect(snapshot(outDir)).toEqual({
      ...previous,
      [live]: Buffer.from("being written").toString("base64"),
    });
    expect(siblings(outDir)).toEqual([]);
  });

  it("builds over a first build killed before it published its manifest", async () => {
    const outDir = outputPath();
    const dead = spawnSync(process.execPath, ["-e", ""]).pid;
    writeTree(
      {
        "bundles/card.0123456789ab.js": "export default 1;",
        [`bundles/.tmp-${dead}-0a0b0c0d.greeting.0123456789ab.js`]: "export",
        [`.tmp-${dead}-1a2b3c4d.manifest.json`]: "{",
      },
      outDir,
    );
    const { manifest } = await build({ registry: registryOf(writeTree(tree)), outDir });
    expect(readManifestOf(outDir)).toEqual(manifest);
    expect(Object.keys(snapshot(outDir)).sort()).toEqual(
      ["bundles/card.0123456789ab.js", ...TOP_FILES, ...listedFiles(manifest)].sort(),
    );

    // Without a manifest, a bundles/ directory holding anything svc does not name is not ours.
    const foreign = outputPath();
    writeTree({ "bundles/card.0123456789ab.js": "", "bundles/notes.txt": "mine" }, foreign);
    const error = await build({ registry: registryOf(writeTree(tree)), outDir: foreign }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(BuildSetupError);
    expect((error as Error).message).toMatch(/not empty and holds no manifest\.json/);
  });

  it("leaves the bundles of unchanged components alone and writes only new ones", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    const first = await build({ registry: registryOf(dir), outDir });
    const inode = (file: string) => statSync(join(outDir, file)).ino;
    const before = Object.fromEntries(listedFiles(first.manifest).map((f) => [f, inode(f)]));

    writeTree(typicalComponent("card", "Changed"), dir);
    const second = await build({ registry: registryOf(dir), outDir });
    expect(second.manifest.card?.file).not.toBe(first.manifest.card?.file);
    for (const name of ["greeting", "ui.button"]) {
      const file = second.manifest[name]?.file ?? "";
      expect(file).toBe(first.manifest[name]?.file);
      expect(inode(file)).toBe(before[file]);
    }
  });

  it("keeps the files of a replaced build for keepOldFilesMs after the build that stopped listing them", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    const hour = 60 * 60 * 1000;
    const v1 = (await build({ registry: registryOf(dir), outDir })).manifest;
    const v1Card = v1.card?.file ?? "";
    // v1 has been served for days: its files were written long ago.
    for (const file of listedFiles(v1)) age(join(outDir, file), 3 * 24 * hour);

    writeTree(typicalComponent("card", "v2"), dir);
    const v2 = (await build({ registry: registryOf(dir), outDir })).manifest;
    // Pages that read v1's manifest a moment ago still find its card.
    expect(existsSync(join(outDir, v1Card))).toBe(true);

    writeTree(typicalComponent("card", "v3"), dir);
    age(join(outDir, v1Card), hour - 60_000); // v2 replaced v1 59 minutes ago
    await build({ registry: registryOf(dir), outDir });
    expect(existsSync(join(outDir, v1Card))).toBe(true);
    expect(existsSync(join(outDir, v2.card?.file ?? ""))).toBe(true);

    age(join(outDir, v1Card), hour + 1000); // and now a little over an hour ago
    const messages: string[] = [];
    const v4 = await build({
      registry: registryOf(dir),
      outDir,
      onProgress: (m) => messages.push(m),
    });
    expect(existsSync(join(outDir, v1Card))).toBe(false);
    expect(existsSync(join(outDir, v2.card?.file ?? ""))).toBe(true);
    expect(messages).toContain("removed 1 file of older builds");
    expect(readManifestOf(outDir)).toEqual(v4.manifest);

    // keepOldFilesMs: 0 removes every file the new build does not list at once; files svc
    // does not name are never removed.
    writeTree({ "bundles/notes.txt": "mine" }, outDir);
    writeTree(typicalComponent("card", "v5"), dir);
    const v5 = (await build({ registry: registryOf(dir), outDir, keepOldFilesMs: 0 })).manifest;
    expect(Object.keys(snapshot(outDir)).sort()).toEqual(
      ["bundles/notes.txt", ...TOP_FILES, ...listedFiles(v5)].sort(),
    );
  });

  it("removes the .gz and .br siblings a build without compress no longer lists, after the grace period", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    await build({ registry: registryOf(dir), outDir, compress: true });
    await build({ registry: registryOf(dir), outDir });
    expect(readdirSync(join(outDir, "bundles")).filter((f) => /\.(gz|br)$/.test(f))).toHaveLength(
      6,
    );
    const { manifest } = await build({ registry: registryOf(dir), outDir, keepOldFilesMs: 0 });
    const fresh = outputPath();
    await build({ registry: registryOf(dir), outDir: fresh });
    expect(snapshot(outDir)).toEqual(snapshot(fresh));
    expect(Object.keys(snapshot(outDir))).toHaveLength(
      TOP_FILES.length + listedFiles(manifest).length,
    );
  });

  it("refuses a keepOldFilesMs that is not a number of milliseconds", async () => {
    for (const keepOldFilesMs of [-1, Number.NaN, Number.POSITIVE_INFINITY]) {
      const error = await build({
        registry: registryOf(writeTree(tree)),
        outDir: outputPath(),
        keepOldFilesMs,
      }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BuildSetupError);
      expect((error as Error).message).toMatch(/^keepOldFilesMs must be a number of milliseconds/);
    }
  });

  it("takes back the files it added when one cannot be written, leaving the previous output byte for byte", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    await build({ registry: registryOf(dir), outDir });
    const before = snapshot(outDir);
    // Learn the names the next build writes, then put a directory where one of them goes.
    writeTree(
      { ...typicalComponent("card", "Changed"), ...typicalComponent("ui/button", "New") },
      dir,
    );
    const next = (await build({ registry: registryOf(dir), outDir: outputPath() })).manifest;
    mkdirSync(join(outDir, next["ui.button"]?.file ?? ""));

    const error = await build({ registry: registryOf(dir), outDir }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BuildOutputError);
    expect((error as Error).message).toMatch(
      /^build failed: cannot write the build to .*: .* \(EISDIR\); the previous output was left untouched$/,
    );
    expect(existsSync(join(outDir, next.card?.file ?? ""))).toBe(false);
    expect(snapshot(outDir)).toEqual(before);
    expect(readdirSync(join(outDir, "bundles")).filter((f) => f.startsWith("."))).toEqual([]);
  });

  it("builds components named __proto__ and constructor like any other, and rebuilds over them", async () => {
    const dir = writeTree({ ...typicalComponent("__proto__"), ...typicalComponent("constructor") });
    const outDir = outputPath();
    const first = await build({ registry: registryOf(dir), outDir });
    expect(Object.keys(first.manifest)).toEqual(["__proto__", "constructor"]);
    const written = JSON.parse(readFileSync(join(outDir, "manifest.json"), "utf8"));
    expect(Object.keys(written)).toEqual(["__proto__", "constructor"]);
    expect(readManifestOf(outDir)).toEqual(first.manifest);
    const entryOf = (manifest: Manifest) => Object.getOwnPropertyDescriptor(manifest, "__proto__");
    const old = entryOf(first.manifest)?.value.file;
    expect(old).toMatch(/^bundles\/__proto__\.[0-9a-f]{12}\.js$/);

    writeTree(typicalComponent("__proto__", "Changed"), dir);
    const second = await build({ registry: registryOf(dir), outDir, keepOldFilesMs: 0 });
    expect(Object.keys(snapshot(outDir)).sort()).toEqual(
      [...TOP_FILES, ...listedFiles(second.manifest)].sort(),
    );
    expect(entryOf(second.manifest)?.value.file).not.toBe(old);
  });

  it("reports progress and formats a table of component, size, gzip size and hash", async () => {
    const messages: string[] = [];
    const outDir = outputPath();
    const result = await build({
      registry: registryOf(writeTree(tree)),
      outDir,
      onProgress: (m) => messages.push(m),
    });
    expect(messages[0]).toBe("bundling 3 components…");
    expect(messages).toContain("writing 3 bundles…");
    const report = formatBuildReport(result, dirname(outDir));
    const lines = report.split("\n");
    expect(lines[0]).toMatch(/^component\s+size\s+gzip\s+hash$/);
    for (const bundle of result.bundles) {
      expect(report).toMatch(
        new RegExp(
          `^${bundle.name.replace(".", "\\.")}\\s+[\\d.]+ k?B\\s+[\\d.]+ k?B\\s+${bundle.hash}$`,
          "m",
        ),
      );
    }
    expect(lines.at(-1)).toMatch(/^3 components, [\d.]+ k?B \(gzip [\d.]+ k?B\) → out in \d+ ms$/);
  });
});

describe("build: components that cannot ship", () => {
  const broken = {
    // Not JSON (a trailing comma), not an object, a `$ref` out of the file: the server's reader.
    "trailing/index.tsx": "export default () => null;\n",
    "trailing/schema.json": '{\n  "type": "object",\n  "properties": {},\n}\n',
    "listed/index.tsx": "export default () => null;\n",
    "listed/schema.json": "[]\n",
    "elsewhere/index.tsx": "export default () => null;\n",
    "elsewhere/schema.json": JSON.stringify({ properties: { a: { $ref: "other.json" } } }),
    // JSON objects, but no schema a validator could check props against.
    "typo/index.tsx": "export default () => null;\n",
    "typo/schema.json": JSON.stringify({
      type: "object",
      properties: { price: { type: "nubmer" } },
    }),
    "pattern/index.tsx": "export default () => null;\n",
    "pattern/schema.json": JSON.stringify({ properties: { code: { pattern: "([a-z]" } } }),
    // No default export: the loader would find nothing to render.
    "named/index.tsx": "export function Named() {\n  return null;\n}\n",
    "empty/index.ts": "console.log('hi');\n",
  };

  it("refuses every invalid schema.json and every entry without a default export, one line each, and writes nothing", async () => {
    const dir = writeTree(tree);
    const outDir = outputPath();
    await build({ registry: registryOf(dir), outDir });
    const before = snapshot(outDir);

    writeTree(broken, dir);
    const failure = await build({ registry: registryOf(dir), outDir }).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(BuildFailedError);
    const { message, failures } = failure as BuildFailedError;
    const lines = message.split("\n");
    expect(lines[0]).toBe(
      "build failed: 7 errors in 7 components; the previous output was left untouched",
    );
    expect(lines.slice(1)).toEqual([
      '  elsewhere: schema.json: "$ref": "other.json" points outside schema.json — put the definition in "$defs" and refer to it as "#/$defs/…"',
      expect.stringMatching(
        /^ {2}empty: index\.ts: has no default export \(it exports nothing\): export the React component as default/,
      ),
      "  listed: schema.json: must hold a JSON object, not an array",
      expect.stringMatching(/^ {2}named: index\.tsx: has no default export \(it exports Named\)/),
      expect.stringMatching(
        /^ {2}pattern: schema\.json: is not a valid JSON Schema: #\/properties\/code\/pattern is not a regular expression: /,
      ),
      expect.stringMatching(/^ {2}trailing: schema\.json:4:1: is not valid JSON: /),
      '  typo: schema.json: is not a valid JSON Schema: #/properties/price/type must be one of string, number, integer, boolean, object, array, null (or an array of them), not "nubmer"',
    ]);
    expect(failures.find((f) => f.component === "trailing")).toMatchObject({
      file: "schema.json",
      line: 4,
      column: 1,
    });
    expect(message).not.toContain(dir);
    expect(snapshot(outDir)).toEqual(before);
    expect(siblings(outDir)).toEqual([]);
  });

  it("lists invalid schemas beside esbuild's errors when a component also fails to bundle", async () => {
    const dir = writeTree({
      ...tree,
      "typo/index.tsx": "export default () => null;\n",
      "typo/schema.json": JSON.stringify({ properties: { n: { minimum: "5" } } }),
      "broken/index.tsx": "export default function B() {\n  const x = ;\n}\n",
    });
    const failure = await build({ registry: registryOf(dir), outDir: outputPath() }).catch(
      (e: unknown) => e,
    );
    expect(failure).toBeInstanceOf(BuildFailedError);
    const { message } = failure as BuildFailedError;
    expect(message).toContain("build failed: 2 errors in 2 components");
    expect(message).toContain("  broken: index.tsx:2:13: Unexpected");
    expect(message).toContain(
      '  typo: schema.json: is not a valid JSON Schema: #/properties/n/minimum must be a number, not "5"',
    );
  });

  it("accepts a default export however it is written, and the schemas of every example", async () => {
    const examples = [
      "packages/server/examples/components",
      "examples/store/components",
      "test/types/fixture/components",
    ].map((path) => new URL(`../../../../${path}`, import.meta.url).pathname);
    const dir = writeTree({
      "direct/index.tsx": "export default function Direct() {\n  return null;\n}\n",
      "reexported/index.tsx": 'export { default } from "./View";\n',
      "reexported/View.tsx": "export default () => null;\n",
      "renamed/index.ts": "const View = () => null;\nexport { View as default };\n",
    });
    const registry = registryOf(dir);
    for (const source of examples) registry.addSource(source);
    const result = await build({ registry, outDir: outputPath(), ssr: false });
    expect(result.bundles.map((b) => b.name)).toEqual(
      expect.arrayContaining(["counter", "direct", "greeting", "product", "reexported", "renamed"]),
    );
  });

  it("refuses no JSON Schema a validator reads: booleans, tuples, drafts 4 to 2020-12, annotations", () => {
    for (const schema of [
      {},
      { type: "object", properties: { a: true, b: false }, additionalProperties: false },
      {
        properties: {
          a: { type: ["string", "null"], minLength: 0, maxLength: 3, format: "email" },
        },
      },
      {
        properties: {
          t: { items: [{ type: "string" }, { type: "number" }], additionalItems: false },
        },
      },
      { properties: { t: { prefixItems: [{ type: "string" }], items: false, minItems: 1 } } },
      {
        properties: { n: { type: "number", minimum: 0, exclusiveMinimum: true, multipleOf: 0.5 } },
      },
      {
        properties: { s: { enum: ["a", 1, null], const: "a", default: "a", examples: [{ x: 1 }] } },
      },
      { properties: { p: { $ref: "#/$defs/p" } }, $defs: { p: { pattern: "^\\p{L}+$" } } },
      { patternProperties: { "^x-": { type: "string" } }, propertyNames: { maxLength: 20 } },
      { dependencies: { a: ["b"], c: { required: ["d"] } }, dependentRequired: { e: ["f"] } },
      // `then` written as JSON: an object literal with a `then` key reads as a promise to lint.
      JSON.parse('{"if":{"required":["a"]},"then":{"required":["b"]},"else":true,"not":{}}'),
      { oneOf: [{ required: ["a"] }, { required: ["b"] }], "x-ui": { widget: "slider" } },
    ]) {
      expect(schemaProblem(schema), JSON.stringify(schema)).toBeUndefined();
    }
  });

  it("names the first keyword of the wrong shape, with where it is", () => {
    expect(schemaProblem({ properties: { a: 5 } })).toBe(
      "#/properties/a must be a schema (an object or a boolean), not 5",
    );
    expect(schemaProblem({ properties: { a: { type: [] } } })).toMatch(
      /^#\/properties\/a\/type must be one of string, .*, not an array$/,
    );
    expect(schemaProblem({ properties: { a: { type: ["string", "nul"] } } })).toMatch(
      /^#\/properties\/a\/type must be one of string, .*, not "nul"$/,
    );
    expect(schemaProblem({ properties: { "a/b": { minLength: -1 } } })).toBe(
      "#/properties/a~1b/minLength must be a whole number ≥ 0, not -1",
    );
    expect(schemaProblem({ anyOf: [] })).toBe(
      "#/anyOf must be a non-empty array of schemas, not an array",
    );
    expect(schemaProblem({ properties: { a: { items: [{ type: "strin" }] } } })).toMatch(
      /^#\/properties\/a\/items\/0\/type must be one of /,
    );
    expect(schemaProblem({ patternProperties: { "(": {} } })).toMatch(
      /^#\/patternProperties: "\(" is not a regular expression: /,
    );
    expect(schemaProblem({ properties: { a: { required: "b" } } })).toBe(
      '#/properties/a/required must be an array of property names, not "b"',
    );
    expect(schemaProblem({ properties: { a: { multipleOf: 0 } } })).toBe(
      "#/properties/a/multipleOf must be a number > 0, not 0",
    );
    expect(schemaProblem({ dependentRequired: { a: "b" } })).toBe(
      "#/dependentRequired/a must be an array of property names",
    );
  });
});

describe("build: vendor modules and the import map", () => {
  /** The vendor build of an app that installed everything but goober. */
  function withoutGoober() {
    const app = mkdtempSync(join(tmpdir(), "svc-no-goober-"));
    scratch.push(app);
    const repoModules = new URL("../../../../node_modules/", import.meta.url).pathname;
    for (const name of [
      "react",
      "react-dom",
      "@tanstack/react-query",
      "@svc/react",
      "@svc/runtime",
    ]) {
      mkdirSync(dirname(join(app, "node_modules", name)), { recursive: true });
      symlinkSync(join(repoModules, name), join(app, "node_modules", name), "dir");
    }
    const vendor = buildVendorModules({ resolveDir: app });
    return () => vendor;
  }

  it("says nothing of goober or the import map in an app that uses neither, and what is missing where it matters", async () => {
    const vendorModules = withoutGoober();
    const dir = writeTree(tree);
    const messages: string[] = [];
    const onProgress = (m: string) => messages.push(m);
    const outDir = outputPath();
    await build({ registry: registryOf(dir), outDir, importMap: true, vendorModules, onProgress });
    expect(messages.filter((m) => /goober|import map/.test(m))).toEqual([]);
    expect(readdirSync(outDir)).not.toContain("importmap.json");

    // A component that imports goober: its vendor file is missing, and that is said.
    writeTree(
      {
        "styled/index.tsx":
          'import { css } from "goober";\nexport default () => <p className={css({ color: "red" })} />;\n',
      },
      dir,
    );
    messages.length = 0;
    await build({ registry: registryOf(dir), outDir, importMap: true, vendorModules, onProgress });
    expect(messages.filter((m) => /goober|import map/.test(m))).toEqual([
      "no vendor file for goober, which styled imports: install it beside @svc/server",
    ]);

    // A directory that had an import map: pages may use it, so its absence is said.
    const mapped = outputPath();
    await build({ registry: registryOf(writeTree(tree)), outDir: mapped, importMap: true });
    expect(readdirSync(mapped)).toContain("importmap.json");
    messages.length = 0;
    await build({
      registry: registryOf(writeTree(tree)),
      outDir: mapped,
      importMap: true,
      vendorModules,
      onProgress,
    });
    expect(messages.filter((m) => /goober|import map/.test(m))).toEqual([
      expect.stringMatching(
        /^no import map written \(the previous build had one\): the import map needs goober installed beside @svc\/server: run `npm install /,
      ),
    ]);
  });
});

describe("build: styles and assets", () => {
  const picture = "P".repeat(5000); // above the inline limit: a file of its own
  const styled = {
    "package.json": JSON.stringify({ name: "app", private: true }),
    "components/shared/theme.css": ".theme { color: rgb(1, 2, 3); }\n",
    "components/card/photo.png": picture,
    "components/card/card.module.css":
      ".title { color: red; background: url(./photo.png); }\n.big { composes: title; }\n",
    "components/card/index.tsx":
      'import "../shared/theme.css";\nimport styles from "./card.module.css";\nimport photo from "./photo.png";\nexport default function Card() { return <img className={styles.big} src={photo} />; }\n',
    "components/badge/index.tsx":
      'import "../shared/theme.css";\nexport default function Badge() { return <b className="theme" />; }\n',
    "components/plain/index.tsx": "export default function Plain() { return <p />; }\n",
  };
  const registry = (dir: string) => registryOf(join(dir, "components"));
  const sha384 = (bytes: Uint8Array) =>
    `sha384-${createHash("sha384").update(bytes).digest("base64")}`;

  it("writes each stylesheet and asset once beside the bundles and lists them, with integrity, per component", async () => {
    const dir = writeTree(styled);
    const outDir = outputPath();
    const { manifest } = await build({ registry: registry(dir), outDir });
    const card = manifest.card;
    const badge = manifest.badge;
    expect(card?.css?.map((f) => f.file)).toEqual([
      expect.stringMatching(/^bundles\/theme-[0-9a-f]{12}\.css$/),
      expect.stringMatching(/^bundles\/card\.module-[0-9a-f]{12}\.css$/),
    ]);
    expect(card?.assets?.map((f) => f.file)).toEqual([
      expect.stringMatching(/^bundles\/assets\/photo-[A-Z0-9]{8}\.png$/),
    ]);
    // The theme both import is one file.
    expect(badge?.css?.map((f) => f.file)).toEqual([card?.css?.[0]?.file]);
    expect(badge?.assets).toBeUndefined();
    expect(Object.keys(manifest.plain ?? {})).toEqual([
      "file",
      "hash",
      "integrity",
      "size",
      "server",
    ]);
    for (const listed of [...(card?.css ?? []), ...(card?.assets ?? [])]) {
      const bytes = readFileSync(join(outDir, listed.file));
      expect(listed.integrity).toBe(sha384(bytes));
    }
    expect(readFileSync(join(outDir, card?.assets?.[0]?.file ?? "")).toString()).toBe(picture);
    // The bundle imports its stylesheets and finds its asset relative to itself.
    const code = readFileSync(join(outDir, card?.file ?? "")).toString();
    for (const { file } of card?.css ?? []) {
      expect(code).toContain(`import "./${file.slice("bundles/".length)}"`);
    }
    expect(code).toContain(`"./${card?.assets?.[0]?.file.slice("bundles/".length)}"`);
    // The form imported by URL: the same bytes without those imports (and the import table
    // naming them: nothing rewrites this form), named after its own.
    expect(card?.urlModule?.file).toMatch(/^bundles\/card\.[0-9a-f]{12}\.js$/);
    const variant = readFileSync(join(outDir, card?.urlModule?.file ?? ""));
    expect(card?.urlModule?.integrity).toBe(sha384(variant));
    expect(variant.toString()).toBe(
      code.replace(/import "\.\/[^"]+\.css";\n/g, "").replace(/\/\/# svcImports=.*\n/, ""),
    );
    expect(variant.toString()).not.toMatch(/\.css"/);
    expect(manifest.plain?.urlModule).toBeUndefined();
    const moduleCss = readFileSync(join(outDir, card?.css?.[1]?.file ?? "")).toString();
    expect(moduleCss).toMatch(
      /^\.card_[0-9a-f]{8}_title\{color:red;background:url\("\.\/assets\/photo-[A-Z0-9]{8}\.png"\)\}\n$/,
    );
    expect(Object.keys(snapshot(outDir)).sort()).toEqual(
      [
        ...TOP_FILES,
        ...Object.values(manifest).flatMap((e) => [
          e.file,
          ...(e.urlModule === undefined ? [] : [e.urlModule.file]),
          ...(e.css ?? []).map((f) => f.file),
          ...(e.assets ?? []).map((f) => f.file),
          ...(e.server === undefined ? [] : [e.server.file]),
        ]),
      ]
        .filter((file, i, all) => all.indexOf(file) === i)
        .sort(),
    );
  });

  it("gives a component with CSS modules the bytes the dev bundler gives it, class names included", async () => {
    const dir = writeTree(styled);
    const outDir = outputPath();
    const { manifest } = await build({ registry: registry(dir), outDir });
    const component = registry(dir)
      .list()
      .find((c) => c.name === "card");
    if (component === undefined) throw new Error("card missing");
    const dev = await esbuildBundler.bundle(component, {
      minify: true,
      sourcemap: false,
      mode: "production",
    });
    expect(manifest.card?.hash).toBe(dev.hash);
    expect(dev.stylesheets?.map((s) => `bundles/${s.path}`)).toEqual(
      manifest.card?.css?.map((f) => f.file),
    );
  });

  it("with compress, writes .gz and .br siblings of stylesheets and text assets, not of images", async () => {
    const dir = writeTree({ ...styled, "components/card/photo.svg": `<svg>${picture}</svg>` });
    const outDir = outputPath();
    const { manifest } = await build({ registry: registry(dir), outDir, compress: true });
    const css = manifest.card?.css?.[1]?.file ?? "";
    const bytes = readFileSync(join(outDir, css));
    expect(gunzipSync(readFileSync(join(outDir, `${css}.gz`)))).toEqual(bytes);
    expect(brotliDecompressSync(readFileSync(join(outDir, `${css}.br`)))).toEqual(bytes);
    const png = manifest.card?.assets?.[0]?.file ?? "";
    expect(existsSync(join(outDir, `${png}.gz`))).toBe(false);
  });

  it("removes the stylesheets and assets of replaced builds after the grace period, and builds over them", async () => {
    const dir = writeTree(styled);
    const outDir = outputPath();
    const v1 = (await build({ registry: registry(dir), outDir })).manifest;
    writeTree(
      {
        "components/card/card.module.css": ".title { color: blue; }\n",
        "components/card/photo.png": `${picture}!`,
      },
      dir,
    );
    const v2 = (await build({ registry: registry(dir), outDir })).manifest;
    const old = [v1.card?.css?.[1]?.file ?? "", v1.card?.assets?.[0]?.file ?? ""];
    for (const file of old) expect(existsSync(join(outDir, file))).toBe(true);
    const v3 = (await build({ registry: registry(dir), outDir, keepOldFilesMs: 0 })).manifest;
    expect(v3).toEqual(v2);
    for (const file of old) expect(existsSync(join(outDir, file))).toBe(false);
    const fresh = outputPath();
    await build({ registry: registry(dir), outDir: fresh });
    expect(snapshot(outDir)).toEqual(snapshot(fresh));
  });
});
