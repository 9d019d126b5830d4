import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ComponentRegistry } from "@svc/server";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildLoaderOnce,
  html,
  launchBrowser,
  makeTempDir,
  openPage,
  removeDir,
  startTestServer,
  svcBuild,
  type TestServer,
  widget,
} from "./helpers.ts";

const EXAMPLES = fileURLToPath(
  new URL("../../packages/server/examples/components", import.meta.url),
);
const MANIFEST_SCRIPT = ' data-svc-manifest="/static/svc/manifest.json"';

function poll<T>(fn: () => T | Promise<T>) {
  return expect.poll(fn, { timeout: 20_000 });
}

const PAGE = html(
  `<div id="counter">${widget("counter", { initialValue: 1 })}</div>` +
    `<div id="greeting">${widget("greeting", { name: "static" })}</div>` +
    `<div id="carousel">${widget("carousel", { images: ["data:image/gif;base64,R0lGODlhAQABAAAAACw="] })}</div>`,
  { loader: MANIFEST_SCRIPT },
);

describe("loader in static mode, after svc build", () => {
  let browser: Browser;
  let work: string | undefined;
  let good: TestServer;
  let tampered: TestServer;

  beforeAll(async () => {
    work = await makeTempDir("svc-static-");
    const out = join(work, "svc");
    // The real command line, as a deployment would run it.
    await svcBuild(EXAMPLES, out);
    const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
    const broken = join(work, "tampered");
    await cp(out, broken, { recursive: true });
    const greeting = join(broken, manifest.greeting.file);
    await writeFile(greeting, (await readFile(greeting, "utf8")).replace("Hello", "Pwned"));

    await buildLoaderOnce();
    const api = (buildDir: string) => ({
      registry: new ComponentRegistry(EXAMPLES),
      // The API is mounted but in static mode: any bundle request to it would fail.
      handlerOptions: { buildDir, staticMode: true },
    });
    [browser, good, tampered] = await Promise.all([
      launchBrowser(),
      startTestServer({ ...api(out), staticDir: out, pages: { "/page.html": { body: PAGE } } }),
      startTestServer({
        ...api(broken),
        staticDir: broken,
        pages: { "/page.html": { body: PAGE } },
      }),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await good?.close();
    await tampered?.close();
    await removeDir(work);
  });

  it("loads bundles only from the static files the manifest names", async () => {
    const { context, page, errors } = await openPage(browser);
    await page.goto(`${good.url}/page.html`);
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
    await context.close();
  });

  it("refuses a bundle whose bytes do not match the manifest's integrity, visibly", async () => {
    const { context, page } = await openPage(browser);
    await page.goto(`${tampered.url}/page.html`);
    await poll(() => page.locator("#greeting [role=alert]").textContent()).toMatch(
      /does not match its integrity/,
    );
    expect(await page.locator("#greeting").textContent()).not.toContain("Pwned");
    // Only the tampered component is refused.
    await poll(() => page.locator("#counter [data-testid=count]").textContent()).toBe("1");
    await context.close();
  });
});
