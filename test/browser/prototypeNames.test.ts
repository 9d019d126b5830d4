import { createHash } from "node:crypto";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ComponentRegistry } from "@svc/server";
import { beforeAll, describe, expect, it } from "vitest";
import {
  browserSuite,
  html,
  poll,
  svcBuild,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";

const NAMES = ["__proto__", "card", "constructor"];

const component = (name: string) =>
  `export default function C() {\n  return <p className="text">component ${name}</p>;\n}\n`;

/** Every component, and `valueOf`: a name that is not built, yet a property of every object. */
const page = (loader: string) =>
  html([...NAMES, "valueOf"].map((name) => `<div id="${name}">${widget(name)}</div>`).join(""), {
    loader,
  });

describe("components named __proto__ and constructor", () => {
  const suite = browserSuite();
  let server: TestServer;
  let out: string;
  let manifestText: string;

  beforeAll(async () => {
    const work = await suite.tempDir("svc-proto-");
    const sources = join(work, "components");
    await writeFiles(
      sources,
      Object.fromEntries(NAMES.map((name) => [`${name}/index.tsx`, component(name)])),
    );
    out = join(work, "svc");
    await svcBuild(sources, out);
    manifestText = await readFile(join(out, "manifest.json"), "utf8");
    server = await suite.server({
      // The build only: no sources, so every answer comes from the pre-built files.
      registry: new ComponentRegistry(undefined),
      handlerOptions: { buildDir: out },
      pages: {
        "/manifest.html": { body: page(' data-svc-manifest="/api/static/manifest.json"') },
        "/api.html": { body: page(' data-svc-api="/api"') },
      },
    });
  });

  it("are built into manifest.json as own keys", () => {
    const manifest = JSON.parse(manifestText) as Record<string, { file: string }>;
    expect(Object.keys(manifest)).toEqual(NAMES);
    const entries = new Map(Object.entries(manifest));
    expect(entries.get("__proto__")?.file).toMatch(/^bundles\/__proto__\.[0-9a-f]{12}\.js$/);
    expect(entries.get("constructor")?.file).toMatch(/^bundles\/constructor\.[0-9a-f]{12}\.js$/);
  });

  it("are served by the pre-built API and the static route", async () => {
    const manifest = JSON.parse(manifestText) as Record<string, { file: string; hash: string }>;
    const list = await fetch(`${server.url}/api/bundles`);
    expect(await list.json()).toEqual(NAMES.map((name) => ({ name })));
    for (const name of NAMES) {
      const entry = manifest[name] as { file: string; hash: string };
      const bytes = await readFile(join(out, entry.file));
      expect(createHash("sha256").update(bytes).digest("hex")).toMatch(
        new RegExp(`^${entry.hash}`),
      );
      for (const path of [`/api/bundles/${name}.js`, `/api/static/${entry.file}`]) {
        const res = await fetch(`${server.url}${path}`);
        expect(res.status, path).toBe(200);
        expect(Buffer.from(await res.arrayBuffer()).equals(bytes), path).toBe(true);
      }
      const metadata = await fetch(`${server.url}/api/bundles/${name}/metadata`);
      expect(await metadata.json()).toMatchObject({ name, hash: entry.hash });
    }
    const served = await fetch(`${server.url}/api/static/manifest.json`);
    expect(await served.text()).toBe(manifestText);
  });

  it.each([
    ["the manifest", "/manifest.html"],
    ["the API", "/api.html"],
  ])("are loaded by the loader in Chromium from %s", async (_, path) => {
    const { page, errors, consoleLines } = await suite.open(`${server.url}${path}`);
    for (const name of NAMES) {
      await poll(() => page.locator(`[id="${name}"] .text`).textContent()).toBe(
        `component ${name}`,
      );
    }
    // From the manifest (production) the page shows a placeholder, the reason in the console.
    await poll(() => page.locator("#valueOf [role=alert]").textContent()).toContain(
      path === "/manifest.html"
        ? "This component could not be shown"
        : `No component named "valueOf"`,
    );
    await poll(() => consoleLines.join("\n")).toContain(`No component named "valueOf"`);
    expect(errors).toEqual([]);
  });
});
