/**
 * An error always reaches the page, also after a good save: with the browser's HTTP cache on
 * (no request interception, which would turn it off), a page that got `card.js?<hash>` after
 * one save must show the build error of the next, broken save — not its cached copy of the
 * last good version — in a React app with `<SvcProvider live>`, with the loader's
 * `data-svc-live`, and in the playground, asking for the broken bundle once. Then a fix shows
 * the new version.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ComponentRegistry, type DevServer, silentLogger, startDevServer } from "@svc/server";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { buildPlayground } from "../../packages/server/playground/build.ts";
import {
  appPages,
  browserSuite,
  bundleApp,
  QUIET_DEV_SERVER,
  type TestServer,
  writeFiles,
} from "./helpers.ts";

const card = (text: string) =>
  `export default function Card() {\n  return <p className="card-text">${text}</p>;\n}\n`;
const BROKEN = "export default function Card() {\n  return <p>;\n}\n";
/** A page of `containers` and the loader following live reload. */
const loaderPage = (containers: string) =>
  `<!doctype html><html><body>${containers}<script src="/svc/loader.js" data-svc-live></script></body></html>`;

const suite = browserSuite();
let dir: string;
let server: TestServer;
let dev: DevServer;

beforeAll(async () => {
  const [root, app] = await Promise.all([
    suite.tempDir("svc-live-cache-"),
    bundleApp(new URL("./fixtures/liveCardApp.tsx", import.meta.url)),
    buildPlayground(),
  ]);
  dir = root;
  await writeFiles(dir, {
    "card/index.tsx": card("one"),
    // Shows `card` nested, through `useComponent`.
    "frame/index.tsx":
      'import { useComponent } from "@svc/react";\nexport default function Frame() {\n  const Card = useComponent("card");\n  return <div className="frame"><Card /></div>;\n}\n',
  });
  server = await suite.server({
    registry: new ComponentRegistry(dir, { logger: silentLogger }),
    handlerOptions: { logger: silentLogger },
    pages: {
      ...appPages(app),
      "/nested.html": {
        body: loaderPage(
          '<div id="frame" data-svc-component="frame"></div><div id="card" data-svc-component="card"></div>',
        ),
      },
      "/loader.html": {
        body: loaderPage(
          '<div id="card" data-svc-component="card"></div><div data-svc-component="card"></div>',
        ),
      },
    },
  });
  dev = await startDevServer({
    ...QUIET_DEV_SERVER,
    registry: new ComponentRegistry(dir, { logger: silentLogger }),
  });
  suite.after(() => dev.close());
});

const save = (text: string) => writeFile(join(dir, "card/index.tsx"), text);
const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 10_000 });
const textOf = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .textContent({ timeout: 500 })
    .catch(() => null);

describe("live reload with the browser's HTTP cache on", () => {
  // Each fetches a failed build before it redraws, so the page goes from the last good render
  // straight to the error: nothing suspends (React shows the end of a suspended render up to
  // 300 ms late, with the Suspense fallback meanwhile).
  const clients = [
    {
      name: "a React app with <SvcProvider live>",
      url: () => `${server.url}/app.html`,
      root: "#card",
    },
    {
      name: "the loader with data-svc-live",
      url: () => `${server.url}/loader.html`,
      root: "#card",
    },
    { name: "the playground", url: () => `${dev.url}/#/card`, root: ".pg-stage" },
  ];

  for (const client of clients) {
    it(`${client.name}: a broken save after a good one shows the error; the fix shows the new version`, async () => {
      await save(card("one"));
      const { page } = await suite.newPage();
      await page.goto(client.url());
      await poll(() => textOf(page, `${client.root} .card-text`)).toBe("one");

      await save(card("two"));
      await poll(() => textOf(page, `${client.root} .card-text`)).toBe("two");
      // The good version came under its own hash: immutable, now in the browser's cache.

      const asked: string[] = [];
      page.on("request", (request) => {
        if (/\/bundles\/card\.js/.test(request.url())) asked.push(request.url());
      });
      // What the container shows after each change of its DOM.
      await page.evaluate((root) => {
        const element = document.querySelector(root) as Element;
        const shown: string[] = [];
        (window as unknown as { shown: string[] }).shown = shown;
        new MutationObserver(() => {
          shown.push(
            element.querySelector("[role=alert]") !== null
              ? "error"
              : (element.querySelector(".card-text")?.textContent ?? "nothing"),
          );
        }).observe(element, { childList: true, subtree: true, characterData: true });
      }, client.root);
      await save(BROKEN);
      await poll(() => textOf(page, `${client.root} [role=alert]`)).toMatch(/index\.tsx:\d+:\d+: /);
      const shown = await page.evaluate(() => (window as unknown as { shown: string[] }).shown);
      expect(shown.length).toBeGreaterThan(0);
      expect(shown.filter((state) => state !== "error")).toEqual([]);
      expect(await page.locator(`${client.root} .card-text`).count()).toBe(0);
      // The broken version is asked for once, not again by each boundary that starts over
      // (the loader's page shows the card twice).
      await page.waitForTimeout(300);
      expect(asked).toHaveLength(1);

      await save(card("three"));
      await poll(() => textOf(page, `${client.root} .card-text`)).toBe("three");
    });
  }

  it("the loader: a second broken save shows its own error, fetched once; new props try the failed build again", async () => {
    await save(card("one"));
    const { page } = await suite.newPage();
    await page.goto(`${server.url}/loader.html`);
    await poll(() => textOf(page, "#card .card-text")).toBe("one");
    const asked: string[] = [];
    page.on("request", (request) => {
      if (/\/bundles\/card\.js/.test(request.url())) asked.push(request.url());
    });
    await save(BROKEN);
    await poll(() => textOf(page, "#card [role=alert]")).toMatch(/index\.tsx:3:\d+: /);
    await page.waitForTimeout(300);
    expect(asked).toHaveLength(1);

    // Broken another way: both containers show the new error, the bundle asked for once more
    // (not again by each boundary that starts over at the new revision).
    await save("export default function Card() {\n  return <p>;\n\n\n}\n");
    await poll(() => textOf(page, "#card [role=alert]")).toMatch(/index\.tsx:5:\d+: /);
    await poll(() => page.locator("[role=alert]").allTextContents()).toEqual([
      expect.stringMatching(/index\.tsx:5:\d+: /),
      expect.stringMatching(/index\.tsx:5:\d+: /),
    ]);
    await page.waitForTimeout(300);
    expect(asked).toHaveLength(2);

    // New props for one container: the failed build is asked for again, for it alone.
    await page.evaluate(() => {
      const svc = (window as unknown as { svc: { update(e: Element, p: object): void } }).svc;
      svc.update(document.querySelector("#card") as Element, { title: "x" });
    });
    await poll(() => asked.length).toBe(3);
    await page.waitForTimeout(300);
    expect(asked).toHaveLength(3);
  });

  it("the loader: a broken save of a component shown nested (useComponent) shows its error there too; the fix, its new version", async () => {
    await save(card("one"));
    const { page } = await suite.newPage();
    await page.goto(`${server.url}/nested.html`);
    await poll(() => textOf(page, "#frame .frame .card-text")).toBe("one");
    await poll(() => textOf(page, "#card .card-text")).toBe("one");
    await save(BROKEN);
    await poll(() => textOf(page, "#card [role=alert]")).toMatch(/index\.tsx:\d+:\d+: /);
    await poll(() => textOf(page, "#frame [role=alert]")).toMatch(/index\.tsx:\d+:\d+: /);
    expect(await page.locator(".card-text").count()).toBe(0);
    await save(card("two"));
    await poll(() => textOf(page, "#frame .frame .card-text")).toBe("two");
    await poll(() => textOf(page, "#card .card-text")).toBe("two");
  });
});
