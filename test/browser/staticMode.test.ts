import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ComponentRegistry } from "@svc/server";
import { beforeAll, describe, expect, it } from "vitest";
import {
  browserSuite,
  buildLoaderOnce,
  html,
  poll,
  svcBuild,
  type TestServer,
  widget,
} from "./helpers.ts";

const EXAMPLES = fileURLToPath(
  new URL("../../packages/server/examples/components", import.meta.url),
);
const MANIFEST_SCRIPT = ' data-svc-manifest="/static/svc/manifest.json"';

const PAGE = html(
  `<div id="counter">${widget("counter", { initialValue: 1 })}</div>` +
    `<div id="greeting">${widget("greeting", { name: "static" })}</div>` +
    `<div id="carousel">${widget("carousel", { images: ["data:image/gif;base64,R0lGODlhAQABAAAAACw="] })}</div>`,
  { loader: MANIFEST_SCRIPT },
);

describe("loader in static mode, after svc build", () => {
  const suite = browserSuite();
  let good: TestServer;
  let tampered: TestServer;

  beforeAll(async () => {
    const work = await suite.tempDir("svc-static-");
    const out = join(work, "svc");
    // The real command line, as a deployment would run it.
    await svcBuild(EXAMPLES, out);
    const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
    const broken = join(work, "tampered");
    await cp(out, broken, { recursive: true });
    const greeting = join(broken, manifest.greeting.file);
    await writeFile(greeting, (await readFile(greeting, "utf8")).replace("Hello", "Pwned"));

    await buildLoaderOnce();
    const server = (buildDir: string) =>
      suite.server({
        registry: new ComponentRegistry(EXAMPLES),
        // The API is mounted but in static mode: any bundle request to it would fail.
        handlerOptions: { buildDir, staticMode: true },
        staticDir: buildDir,
        pages: { "/page.html": { body: PAGE } },
      });
    [good, tampered] = await Promise.all([server(out), server(broken)]);
  });

  it("loads bundles only from the static files the manifest names", async () => {
    const { page, errors } = await suite.open(`${good.url}/page.html`);
    await poll(() => page.locator("#greeting").textContent()).toContain("Hello, static!");
    await poll(() => page.locator("#counter [data-testid=count]").textContent()).toBe("1");
    await page.locator("#counter [aria-label=increment]").click();
    await poll(() => page.locator("#counter [data-testid=count]").textContent()).toBe("2");
    // The carousel's slide comes from `image`, loaded through useComponent, also from the manifest.
    await poll(() => page.locator("#carousel img.svc-image").count()).toBe(1);

    expect(good.requestsTo("/api/bundles").filter((r) => /\.js(\?|$)/.test(r))).toEqual([]);
    const files = good.requestsTo("/static/svc/");
    expect(files.filter((r) => r.endsWith("manifest.json"))).toHaveLength(1);
    expect(files.filter((r) => /^\/static\/svc\/bundles\/.*\.js$/.test(r)).sort()).toEqual([
      expect.stringMatching(/^\/static\/svc\/bundles\/carousel\.[0-9a-f]{12}\.js$/),
      expect.stringMatching(/^\/static\/svc\/bundles\/counter\.[0-9a-f]{12}\.js$/),
      expect.stringMatching(/^\/static\/svc\/bundles\/greeting\.[0-9a-f]{12}\.js$/),
      expect.stringMatching(/^\/static\/svc\/bundles\/image\.[0-9a-f]{12}\.js$/),
    ]);
    expect(errors).toEqual([]);
  });

  it("refuses a bundle whose bytes do not match the manifest's integrity: a placeholder, the reason in the console", async () => {
    const { page, consoleLines } = await suite.open(`${tampered.url}/page.html`);
    // Production: a neutral placeholder in the page, the details for developers only.
    await poll(() => page.locator("#greeting [role=alert]").textContent()).toBe(
      "This component could not be shown",
    );
    await poll(() => consoleLines.join("\n")).toMatch(/does not match its integrity/);
    expect(await page.locator("#greeting").textContent()).not.toContain("Pwned");
    // Only the tampered component is refused.
    await poll(() => page.locator("#counter [data-testid=count]").textContent()).toBe("1");
  });
});
