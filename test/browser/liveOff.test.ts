/**
 * A page that keeps live reload on where the server does not serve it (production, static
 * mode, `live: false`: `/events` answers 204) asks once and stops: one `EventSource`, one
 * `HEAD`, nothing in the console — with the loader's `data-svc-live` and with a React app's
 * `<SvcProvider live>`, through the node handler.
 */
import { ComponentRegistry, silentLogger } from "@svc/server";
import { beforeAll, describe, expect, it } from "vitest";
import { appPages, browserSuite, bundleApp, type TestServer, writeFiles } from "./helpers.ts";

const suite = browserSuite();
let server: TestServer;

beforeAll(async () => {
  const [dir, app] = await Promise.all([
    suite.tempDir("svc-live-off-"),
    bundleApp(new URL("./fixtures/liveCardApp.tsx", import.meta.url), "production"),
  ]);
  await writeFiles(dir, {
    "card/index.tsx":
      'export default function Card() {\n  return <p className="card-text">one</p>;\n}\n',
  });
  server = await suite.server({
    registry: new ComponentRegistry(dir, { logger: silentLogger }),
    handlerOptions: { logger: silentLogger, live: false },
    pages: {
      ...appPages(app),
      "/loader.html": {
        body: '<!doctype html><html><body><div id="card" data-svc-component="card"></div><script src="/svc/loader.js" data-svc-live></script></body></html>',
      },
    },
  });
});

describe("live reload where the server does not serve it", () => {
  for (const [name, path] of [
    ["the loader with data-svc-live", "/loader.html"],
    ["a React app with <SvcProvider live>", "/app.html"],
  ]) {
    it(`${name}: asks for the stream once, then stops, quietly`, async () => {
      const { page } = await suite.newPage();
      const console: string[] = [];
      page.on("console", (message) => {
        // (Chromium asks for /favicon.ico, which the test server does not have.)
        const favicon = message.location().url.endsWith("/favicon.ico");
        if ((message.type() === "error" || message.type() === "warning") && !favicon) {
          console.push(`${message.text()} (${message.location().url})`);
        }
      });
      const asked: string[] = [];
      page.on("request", (request) => {
        const url = new URL(request.url());
        if (url.pathname.startsWith("/api/")) asked.push(`${request.method()} ${url.pathname}`);
      });
      await page.goto(`${server.url}${path}`);
      await expect
        .poll(() => page.locator("#card .card-text").textContent({ timeout: 500 }))
        .toBe("one");
      await expect.poll(() => asked.filter((r) => r === "HEAD /api/events")).toHaveLength(1);
      // Past the first two retries a stream that failed otherwise would make (1 s, then 2 s).
      await page.waitForTimeout(3200);
      expect(asked.filter((r) => r.endsWith(" /api/events"))).toEqual([
        "GET /api/events",
        "HEAD /api/events",
      ]);
      expect(console).toEqual([]);
    });
  }
});
