/** The handler set with a build directory (`buildDir`) and in static mode (`staticMode`). */
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import { build } from "../build/build.ts";
import { type Bundler, esbuildBundler } from "../bundling/bundler.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { type DevServer, startDevServer } from "../devServer/startDevServer.ts";
import { BundleError, ComponentNotFoundError, StaticModeError } from "../errors.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { cn, settleWrites, typicalComponent, writeTree } from "../test/fixtures.ts";
import { createNodeHandler } from "../transports/node.ts";
import { type Manifest, ManifestError } from "./manifest.ts";
import { PrebuiltBundles } from "./prebuiltBundles.ts";

const scratch: string[] = [];
const servers: DevServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A bundler that proves it is never used: esbuild "cannot run". */
const noBundler: Bundler = {
  bundle: async (component) => {
    throw new Error(`esbuild must not run (asked for ${component.name})`);
  },
};

function countingBundler() {
  const names: string[] = [];
  const bundler: Bundler = {
    bundle: (component, options) => {
      names.push(component.name);
      return esbuildBundler.bundle(component, options);
    },
  };
  return { bundler, names };
}

function registryOf(dir?: string): ComponentRegistry {
  return new ComponentRegistry(dir, { logger: silentLogger });
}

/** Sources with `card` and `ui.button`, built into a fresh directory. */
async function builtProject(): Promise<{ sources: string; buildDir: string; manifest: Manifest }> {
  const sources = writeTree({
    ...typicalComponent("card"),
    ...typicalComponent("ui/button", "Click"),
  });
  const parent = mkdtempSync(join(tmpdir(), "svc-prebuilt-"));
  scratch.push(parent);
  const buildDir = join(parent, "build");
  const { manifest } = await build({ registry: registryOf(sources), outDir: buildDir });
  return { sources, buildDir, manifest };
}

function fileOf(buildDir: string, manifest: Manifest, name: string): Buffer {
  return readFileSync(join(buildDir, manifest[name]?.file ?? "missing"));
}

describe("createHandlers with buildDir", () => {
  it("serves a manifest component from its file without bundling", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    const handlers = createHandlers(registryOf(sources), { buildDir, bundler: noBundler });
    const bundle = await handlers.getBundle(cn("card"));
    expect(Buffer.from(bundle.code).equals(fileOf(buildDir, manifest, "card"))).toBe(true);
    expect(bundle.hash).toBe(manifest.card?.hash);
    const metadata = await handlers.getMetadata(cn("card"));
    expect(metadata.hash).toBe(manifest.card?.hash);
    expect(metadata.title).toBe("The card");

    // …and over HTTP, with the usual bundle headers.
    const server = await startDevServer({
      registry: registryOf(sources),
      buildDir,
      bundler: noBundler,
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger,
    });
    servers.push(server);
    const res = await fetch(
      `${server.url}/api/bundles/ui.button.js?${manifest["ui.button"]?.hash}`,
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("etag")).toBe(`"${manifest["ui.button"]?.hash}"`);
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(
      Buffer.from(await res.arrayBuffer()).equals(fileOf(buildDir, manifest, "ui.button")),
    ).toBe(true);
  });

  it("bundles a component missing from the manifest live, and only that one", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    writeTree(typicalComponent("fresh", "New"), sources);
    settleWrites();
    const { bundler, names } = countingBundler();
    const handlers = createHandlers(registryOf(sources), { buildDir, bundler });
    await handlers.getBundle(cn("card"));
    const fresh = await handlers.getBundle(cn("fresh"));
    expect(Buffer.from(fresh.code).toString()).toContain("New");
    expect((await handlers.getMetadata(cn("fresh"))).hash).toBe(fresh.hash);
    expect((await handlers.getMetadata(cn("card"))).hash).toBe(manifest.card?.hash);
    expect(names).toEqual(["fresh"]);
    expect(await handlers.listBundles()).toEqual([
      { name: "card" },
      { name: "fresh" },
      { name: "ui.button" },
    ]);
  });

  it("reads each bundle file once and keeps it in memory", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    const handlers = createHandlers(registryOf(sources), { buildDir, bundler: noBundler });
    const first = await handlers.getBundle(cn("card"));
    rmSync(join(buildDir, manifest.card?.file ?? ""));
    const second = await handlers.getBundle(cn("card"));
    expect(second.code).toBe(first.code);
  });

  it("peeks a bundle only once it is read, and not across a new build", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    // Checked by stats alone (a watch vouching for the manifest leaves peeking to getBundle).
    const handlers = createHandlers(registryOf(sources), {
      buildDir,
      bundler: noBundler,
      watchFiles: false,
    });
    expect(handlers.peekBundle?.(cn("card"))).toBeUndefined();
    const read = await handlers.getBundle(cn("card"));
    expect(handlers.peekBundle?.(cn("card"))).toBe(read);
    writeTree(typicalComponent("card", "Changed"), sources);
    const next = await build({ registry: registryOf(sources), outDir: buildDir });
    await new Promise((resolve) => setImmediate(resolve)); // the manifest is checked once a turn
    expect(handlers.peekBundle?.(cn("card"))).toBeUndefined();
    expect((await handlers.getBundle(cn("card"))).hash).toBe(next.manifest.card?.hash);
    expect(handlers.peekBundle?.(cn("card"))?.hash).not.toBe(manifest.card?.hash);
  });

  it("serves a build deployed without its sources", async () => {
    const { buildDir, manifest } = await builtProject();
    const handlers = createHandlers(registryOf(), { buildDir, bundler: noBundler });
    expect(await handlers.listBundles()).toEqual([{ name: "card" }, { name: "ui.button" }]);
    expect(Buffer.from((await handlers.getBundle(cn("card"))).code)).toEqual(
      fileOf(buildDir, manifest, "card"),
    );
    const metadata = await handlers.getMetadata(cn("card"));
    expect(metadata).toMatchObject({ name: "card", title: "card", hash: manifest.card?.hash });
    await expect(handlers.getBundle(cn("other"))).rejects.toBeInstanceOf(ComponentNotFoundError);
  });

  it("picks up a new build swapped into the directory", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    const handlers = createHandlers(registryOf(sources), { buildDir, bundler: noBundler });
    expect((await handlers.getBundle(cn("card"))).hash).toBe(manifest.card?.hash);
    writeTree(typicalComponent("card", "Changed"), sources);
    const next = await build({ registry: registryOf(sources), outDir: buildDir });
    expect(next.manifest.card?.hash).not.toBe(manifest.card?.hash);
    const bundle = await handlers.getBundle(cn("card"));
    expect(bundle.hash).toBe(next.manifest.card?.hash);
    expect(Buffer.from(bundle.code).toString()).toContain("Changed");
  });

  it("rejects a bundle file that does not match its manifest hash, naming the file", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    writeFileSync(join(buildDir, manifest.card?.file ?? ""), "export default 'tampered';\n");
    const handlers = createHandlers(registryOf(sources), { buildDir, bundler: noBundler });
    const error = await handlers.getBundle(cn("card")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    expect((error as Error).message).toContain(`${manifest.card?.file} does not match its hash`);
  });

  it("throws at creation for a missing or malformed manifest", () => {
    const empty = writeTree({ "bundles/README": "" });
    expect(() => createHandlers(registryOf(), { buildDir: empty })).toThrow(ManifestError);
    const bad = writeTree({ "manifest.json": JSON.stringify({ card: { file: "../x.js" } }) });
    expect(() => createHandlers(registryOf(), { buildDir: bad })).toThrow(/points outside/);
  });
});

/** Resolves in a later turn of the event loop, after a poll phase. */
const laterTurn = () => new Promise((resolve) => setTimeout(resolve, 5));

// Watches vouch only on Linux (see dirWatches.ts); elsewhere the manifest is stat-checked.
describe.runIf(process.platform === "linux")("a build directory's manifest, watched", () => {
  it("is left to its watch between stat checks; an unrelated file changes nothing, a new manifest ends it", async () => {
    const { buildDir } = await builtProject();
    const bundles = new PrebuiltBundles(buildDir, { logger: silentLogger });
    expect(bundles.leftToWatch()).toBe(false); // never checked: nothing armed yet
    await bundles.read("card"); // a stat check, which arms the watch
    expect(bundles.manifest.card).toBeDefined(); // a stat check this turn…
    expect(bundles.leftToWatch()).toBe(false); // …which stands for the turn
    await laterTurn();
    expect(bundles.leftToWatch()).toBe(true);
    writeFileSync(join(buildDir, "notes.txt"), "not the manifest\n");
    await laterTurn();
    expect(bundles.leftToWatch()).toBe(true);
    writeFileSync(join(buildDir, "manifest.json"), readFileSync(join(buildDir, "manifest.json")));
    await laterTurn();
    expect(bundles.leftToWatch()).toBe(false);
    // The next check confirms it again.
    expect((await bundles.vouched("card"))?.name).toBe("card");
    await laterTurn();
    expect(bundles.leftToWatch()).toBe(true);
    expect(new PrebuiltBundles(buildDir, { watch: false }).leftToWatch()).toBe(false);
  });

  it("a warm request is answered after the poll phase, never from a build replaced before it", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    writeTree(typicalComponent("card", "Changed"), sources);
    const other = join(buildDir, "..", "other");
    const { manifest: changed } = await build({ registry: registryOf(sources), outDir: other });
    const handlers = createHandlers(registryOf(sources), { buildDir, bundler: noBundler });
    const handle = createNodeHandler(handlers, { prefix: "/api", live: false });
    const server = createServer((req, res) => handle(req, res));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/bundles/card.js`;
      const etag = async () => (await fetch(url)).headers.get("etag");
      expect(await etag()).toBe(`"${manifest.card?.hash}"`);
      // Both builds' files side by side, as publishing leaves them; then the manifest decides.
      cpSync(join(other, "bundles"), join(buildDir, "bundles"), { recursive: true });
      for (const [bytes, hash] of [
        [readFileSync(join(other, "manifest.json")), changed.card?.hash],
        [readFileSync(join(buildDir, "manifest.json")), manifest.card?.hash],
      ] as const) {
        for (let round = 0; round < 3; round++) {
          await laterTurn();
          // Left to the watch: peeking leaves the answer to getBundle, after the poll phase.
          expect(handlers.peekBundle?.(cn("card"))).toBeUndefined();
          // Published the moment before the request, as a deploy script then a client would.
          writeFileSync(join(buildDir, "manifest.json.tmp"), bytes);
          renameSync(join(buildDir, "manifest.json.tmp"), join(buildDir, "manifest.json"));
          expect(await etag()).toBe(`"${hash}"`);
        }
      }
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe("createHandlers with staticMode", () => {
  it("answers the bundle endpoint with 404 StaticMode and metadata with the manifest hash", async () => {
    const { sources, buildDir, manifest } = await builtProject();
    const handlers = createHandlers(registryOf(sources), {
      buildDir,
      staticMode: true,
      bundler: noBundler,
    });
    await expect(handlers.getBundle(cn("card"))).rejects.toBeInstanceOf(StaticModeError);
    expect((await handlers.getMetadata(cn("card"))).hash).toBe(manifest.card?.hash);

    const server = await startDevServer({
      registry: registryOf(sources),
      buildDir,
      staticMode: true,
      bundler: noBundler,
      host: "127.0.0.1",
      port: 0,
      logger: silentLogger,
    });
    servers.push(server);
    const bundle = await fetch(`${server.url}/api/bundles/card.js`);
    expect(bundle.status).toBe(404);
    expect(await bundle.json()).toMatchObject({ error: "StaticMode", name: "card" });
    const metadata = await fetch(`${server.url}/api/bundles/ui.button/metadata`);
    expect(metadata.status).toBe(200);
    expect(await metadata.json()).toMatchObject({
      name: "ui.button",
      title: "The ui/button",
      hash: manifest["ui.button"]?.hash,
    });
    const invalid = await fetch(`${server.url}/api/bundles/a..b.js`);
    expect(invalid.status).toBe(422);
    const unknown = await fetch(`${server.url}/api/bundles/nope/metadata`);
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { error: string }).error).toBe("ComponentNotFound");
  });
});
