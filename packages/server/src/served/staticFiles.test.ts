import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";
import { build } from "../build/build.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { type DevServer, startDevServer } from "../devServer/startDevServer.ts";
import { type Logger, silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { rawRequest, typicalComponent, writeTree } from "../test/fixtures.ts";
import { createNodeHandler } from "../transports/node.ts";
import type { Manifest } from "./manifest.ts";
import { createStaticFiles } from "./staticFiles.ts";

const scratch: string[] = [];
const servers: DevServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

async function builtDir(): Promise<{ buildDir: string; manifest: Manifest; parent: string }> {
  const sources = writeTree(typicalComponent("card"));
  const parent = mkdtempSync(join(tmpdir(), "svc-static-"));
  scratch.push(parent);
  const buildDir = join(parent, "build");
  const registry = new ComponentRegistry(sources, { logger: silentLogger });
  const { manifest } = await build({ registry, outDir: buildDir, compress: true });
  return { buildDir, manifest, parent };
}

function recordingLogger(): Logger & { warnings: string[] } {
  const warnings: string[] = [];
  return { ...silentLogger, warnings, warn: (message) => warnings.push(message) };
}

describe("createStaticFiles", () => {
  it("serves bundles as immutable and manifest.json as no-cache", async () => {
    const { buildDir, manifest } = await builtDir();
    const files = createStaticFiles(buildDir);
    const file = manifest.card?.file ?? "";

    const bundle = await files.get(file);
    expect(bundle).toMatchObject({
      contentType: "application/javascript; charset=utf-8",
      cacheControl: "public, max-age=31536000, immutable",
    });
    expect(Buffer.from(bundle?.body ?? []).equals(readFileSync(join(buildDir, file)))).toBe(true);
    expect(bundle?.etag).toMatch(/^"[A-Za-z0-9_-]+"$/);

    const gz = await files.get(`${file}.gz`);
    expect(gz?.contentType).toBe("application/gzip");
    expect(gz?.etag).not.toBe(bundle?.etag);
    expect((await files.get(`${file}.br`))?.contentType).toBe("application/x-brotli");

    const json = await files.get("manifest.json");
    expect(json).toMatchObject({
      contentType: "application/json; charset=utf-8",
      cacheControl: "no-cache",
    });
    expect(JSON.parse(Buffer.from(json?.body ?? []).toString())).toEqual(manifest);

    // What the loader fetches from beside the manifest for islands: revalidated like it (a new
    // build rewrites it in place), and read afresh.
    const extras = await files.get("loader.extras.js");
    expect(extras).toMatchObject({
      contentType: "application/javascript; charset=utf-8",
      cacheControl: "no-cache",
    });
    writeFileSync(join(buildDir, "loader.extras.js"), "export {};\n");
    expect(Buffer.from((await files.get("loader.extras.js"))?.body ?? []).toString()).toBe(
      "export {};\n",
    );
  });

  it("serves the vendor files loader.js fetches on demand, content-hashed, and nothing else there", async () => {
    const { buildDir } = await builtDir();
    const stem = "svc-react.0123456789ab.js";
    mkdirSync(join(buildDir, "vendor"), { recursive: true });
    writeFileSync(join(buildDir, "vendor", stem), "export const x = 1;\n");
    writeFileSync(join(buildDir, "vendor", "notes.txt"), "private\n");
    const files = createStaticFiles(buildDir);
    expect(await files.get(`vendor/${stem}`)).toMatchObject({
      contentType: "application/javascript; charset=utf-8",
      cacheControl: "public, max-age=31536000, immutable",
    });
    expect(await files.get("vendor/notes.txt")).toBeUndefined();
    expect(await files.get("vendor/svc-react.js")).toBeUndefined();
  });

  it("re-reads manifest.json on every request, and keeps bundle files once read", async () => {
    const { buildDir, manifest } = await builtDir();
    const files = createStaticFiles(buildDir);
    const file = manifest.card?.file ?? "";
    const before = await files.get(file);
    expect(await files.get("manifest.json")).toBeDefined();
    writeFileSync(join(buildDir, "manifest.json"), "{}\n");
    rmSync(join(buildDir, file));
    expect(Buffer.from((await files.get("manifest.json"))?.body ?? []).toString()).toBe("{}\n");
    expect((await files.get(file))?.body).toBe(before?.body);
  });

  it.each([
    "../build/manifest.json",
    "/etc/passwd",
    "bundles/../manifest.json",
    "bundles/./card.js",
    "./manifest.json",
    "bundles",
    "bundles/",
    "bundles/sub/card.js",
    "bundles/.hidden.js",
    "bundles/card.js.map",
    "bundles\\card.js",
    "manifest.json\0.js",
    "secret.txt",
    "",
    "bundles/missing.0123456789ab.js",
  ])("answers undefined for %j", async (path) => {
    const { buildDir } = await builtDir();
    writeFileSync(join(buildDir, "secret.txt"), "secret");
    expect(await createStaticFiles(buildDir).get(path)).toBeUndefined();
  });

  it("never follows a symbolic link out of the build directory", async () => {
    const { buildDir, parent } = await builtDir();
    writeFileSync(join(parent, "outside.js"), "secret");
    symlinkSync(join(parent, "outside.js"), join(buildDir, "bundles", "leak.js"));
    expect(await createStaticFiles(buildDir).get("bundles/leak.js")).toBeUndefined();
  });

  it("is what Handlers.getStaticFile answers with a build dir, and absent without one", async () => {
    const { buildDir, manifest } = await builtDir();
    const registry = new ComponentRegistry(undefined, { logger: silentLogger });
    const handlers = createHandlers(registry, { buildDir });
    expect((await handlers.getStaticFile?.(manifest.card?.file ?? ""))?.body.byteLength).toBe(
      manifest.card?.size,
    );
    expect(await handlers.getStaticFile?.("../x")).toBeUndefined();
    expect(createHandlers(registry).getStaticFile).toBeUndefined();
  });
});

describe("svc serve: /static/svc/", () => {
  async function serve(buildDir?: string) {
    const server = await startDevServer({
      registry: new ComponentRegistry(undefined, { logger: silentLogger }),
      buildDir,
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger,
    });
    servers.push(server);
    return server;
  }

  it("serves the build's files with their caching headers, ETag and 304", async () => {
    const { buildDir, manifest } = await builtDir();
    const server = await serve(buildDir);
    const file = manifest.card?.file ?? "";
    const res = await fetch(`${server.url}/static/svc/${file}`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(Buffer.from(await res.arrayBuffer()).equals(readFileSync(join(buildDir, file)))).toBe(
      true,
    );
    const etag = res.headers.get("etag") ?? "";
    const again = await fetch(`${server.url}/static/svc/${file}`, {
      headers: { "if-none-match": etag },
    });
    expect(again.status).toBe(304);
    const head = await rawRequest(server.url, `/static/svc/${file}`, { method: "HEAD" });
    expect(head.status).toBe(200);
    expect(head.body).toBe("");

    const json = await fetch(`${server.url}/static/svc/manifest.json?v=1`);
    expect(json.headers.get("cache-control")).toBe("no-cache");
    expect(await json.json()).toEqual(manifest);
  });

  it.each([
    "/static/svc/%2e%2e/%2e%2e/etc/passwd",
    "/static/svc/../build/manifest.json",
    "/static/svc/bundles/%2e%2e%2fmanifest.json",
    "/static/svc/bundles/%E0%A4%A.js",
    "/static/svc/bundles/nothing.js",
  ])("answers %s with 404 JSON", async (path) => {
    const { buildDir } = await builtDir();
    const server = await serve(buildDir);
    const res = await rawRequest(server.url, path);
    expect(res.status).toBe(404);
    expect(JSON.parse(res.body)).toMatchObject({ error: "NotFound" });
  });

  it("answers 404 without a build directory", async () => {
    const server = await serve();
    expect((await fetch(`${server.url}/static/svc/manifest.json`)).status).toBe(404);
  });
});

describe("the static route over a refused manifest", () => {
  it("keeps serving the accepted manifest's bytes, ETag and 304, until a usable one appears", async () => {
    const sources = writeTree(typicalComponent("card"));
    const parent = mkdtempSync(join(tmpdir(), "svc-static-"));
    scratch.push(parent);
    const buildDir = join(parent, "build");
    const registry = new ComponentRegistry(sources, { logger: silentLogger });
    await build({ registry, outDir: buildDir });
    const accepted = readFileSync(join(buildDir, "manifest.json"));
    const logger = recordingLogger();
    const server = createServer(createNodeHandler(registry, { buildDir, logger }));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/static/manifest.json`;

    const first = await fetch(url);
    expect(Buffer.from(await first.arrayBuffer()).equals(accepted)).toBe(true);
    const etag = first.headers.get("etag") ?? "";

    // Half written by hand, then one pointing outside: both refused, as by the API.
    for (const refused of [
      '{"card": {"file": "bund',
      '{"card":{"file":"../x.js","hash":"abcdef12"}}',
    ]) {
      writeFileSync(join(parent, "next.json"), refused);
      renameSync(join(parent, "next.json"), join(buildDir, "manifest.json"));
      for (let i = 0; i < 2; i++) {
        const res = await fetch(url);
        expect(res.status).toBe(200);
        expect(res.headers.get("etag")).toBe(etag);
        expect(Buffer.from(await res.arrayBuffer()).equals(accepted)).toBe(true);
        expect((await fetch(url, { headers: { "if-none-match": etag } })).status).toBe(304);
      }
    }
    expect(logger.warnings).toHaveLength(2);

    // A usable manifest (the same entries, written compactly) is served from then on.
    const usable = JSON.stringify(JSON.parse(accepted.toString()));
    writeFileSync(join(parent, "next.json"), usable);
    renameSync(join(parent, "next.json"), join(buildDir, "manifest.json"));
    const next = await fetch(url);
    expect(next.headers.get("etag")).not.toBe(etag);
    expect(await next.text()).toBe(usable);
  });
});
