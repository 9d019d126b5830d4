import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { join } from "node:path";
import { IMPORT_MAP_MODULES } from "@svc/protocol";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../build/build.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { typicalComponent, writeTree } from "../test/fixtures.ts";
import { createImportMap, renderImportMap } from "./importMap.ts";

// The browser side (Chromium under a CSP without blob:) is test/browser/importMap.test.ts.

const scratch: string[] = [];
afterAll(() => {
  for (const dir of scratch.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sri(bytes: Uint8Array): string {
  return `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
}

describe("createImportMap / renderImportMap", () => {
  it("maps every shared module to {apiBase}/vendor/<name>.<hash>.js with its integrity", async () => {
    const map = await createImportMap({ apiBase: "/svc/" });
    expect(Object.keys(map.imports).sort()).toEqual([...IMPORT_MAP_MODULES].sort());
    for (const url of Object.values(map.imports)) {
      expect(url).toMatch(/^\/svc\/vendor\/[a-z0-9-]+\.[0-9a-f]{12}\.js$/);
      expect(map.integrity[url]).toMatch(/^sha384-[A-Za-z0-9+/]{64}$/);
    }
    expect(map.integrity["/svc/loader.esm.js"]).toMatch(/^sha384-/);
    // Built once per process: the same files for every page.
    expect(await createImportMap({ apiBase: "/svc" })).toEqual(map);
  });

  it("writes one inline script, nonce escaped, no way out of the element", async () => {
    const html = await renderImportMap({ apiBase: "/a</script><b>", nonce: 'n"1' });
    expect(html).toMatch(/^<script type="importmap" nonce="n&quot;1">\{.*\}<\/script>$/);
    expect(html.match(/<\/script>/g)).toHaveLength(1);
    const json = JSON.parse(html.replace(/^<script[^>]*>|<\/script>$/g, ""));
    expect(json.imports.react).toMatch(/^\/a<\/script><b>\/vendor\/react\./);
    expect(await renderImportMap({ apiBase: "/api" })).toMatch(/^<script type="importmap">/);
  });

  it("svc build writes vendor/, loader.esm.js and importmap.json; the map names the build's files", async () => {
    const root = writeTree({ ...typicalComponent("card"), ...typicalComponent("ui/badge") });
    const outDir = join(writeTree({}), "out");
    scratch.push(root, outDir);
    const result = await build({
      registry: new ComponentRegistry(root),
      outDir,
      importMap: true,
      keepOldFilesMs: 0,
    });
    expect(readdirSync(outDir).sort()).toEqual([
      "bundles",
      "importmap.json",
      "loader.esm.js",
      "loader.extras.js",
      "manifest.json",
      "vendor",
    ]);
    const written = JSON.parse(readFileSync(join(outDir, "importmap.json"), "utf8"));
    expect(written).toEqual(result.importMap);
    // Every file the map lists is there, with the integrity of its bytes.
    for (const [url, integrity] of Object.entries(written.integrity as Record<string, string>)) {
      expect(url.startsWith("./")).toBe(true);
      const bytes = readFileSync(join(outDir, url));
      expect(sri(bytes)).toBe(integrity);
      expect(bytes.toString("utf8")).not.toContain(root);
      expect(bytes.toString("utf8")).not.toMatch(/\/(tmp|work|home|root)\//);
    }
    expect(written.integrity[`./${result.manifest.card?.file}`]).toBe(
      result.manifest.card?.integrity,
    );

    const map = await createImportMap({ buildDir: outDir, staticUrl: "/static/svc" });
    expect(map.imports.react).toMatch(/^\/static\/svc\/vendor\/react\.[0-9a-f]{12}\.js$/);
    expect(map.integrity[`/static/svc/${result.manifest["ui.badge"]?.file}`]).toBe(
      result.manifest["ui.badge"]?.integrity,
    );
    expect(map.integrity["/static/svc/loader.esm.js"]).toBe(written.integrity["./loader.esm.js"]);

    // A rebuild over it is allowed, and an unlisted vendor file goes after the grace period.
    const stale = join(outDir, "vendor", "react.0123456789ab.js");
    writeTree({ "vendor/react.0123456789ab.js": "old" }, outDir);
    utimesSync(stale, new Date(0), new Date(0));
    await build({ registry: new ComponentRegistry(root), outDir, importMap: true });
    expect(existsSync(stale)).toBe(false);
    expect(readdirSync(join(outDir, "vendor"))).toHaveLength(IMPORT_MAP_MODULES.length);
  });

  it("says in one line what is missing", async () => {
    const empty = writeTree({});
    scratch.push(empty);
    await expect(createImportMap({ buildDir: empty, staticUrl: "/s/" })).rejects.toThrow(
      /^svc: .*importmap\.json is missing: run `svc build`/,
    );
    await expect(createImportMap({ buildDir: empty })).rejects.toThrow(/needs staticUrl too/);
  });
});
