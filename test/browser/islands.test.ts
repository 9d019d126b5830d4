/**
 * Islands in real Chromium: components rendered on the server (`renderIsland`, as a backend
 * embeds them) and hydrated by the standalone loader by strategy.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ComponentRegistry,
  createHandlers,
  createNodeHandler,
  type Handlers,
  parseComponentName,
  silentLogger,
} from "@svc/server";
import type { Browser, ConsoleMessage, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLoaderOnce, launchBrowser, makeTempDir, removeDir, writeFiles } from "./helpers.ts";

const COMPONENTS: Record<string, string> = {
  "counter/index.tsx": `import { useState } from "react";
export default function Counter({ start = 0 }: { start?: number }) {
  const [count, setCount] = useState(start);
  return <button type="button" className="count" onClick={() => setCount(count + 1)}>{count}</button>;
}
`,
  "counter/schema.json": JSON.stringify({
    type: "object",
    properties: { start: { type: "integer" } },
  }),
  "outer/index.tsx": `import { useComponent } from "@svc/react";
import { useState } from "react";
export default function Outer() {
  const Inner = useComponent<{ label: string }>("inner");
  const [on, setOn] = useState(false);
  return <section className="outer"><Inner label="nested" /><button type="button" className="toggle" onClick={() => setOn(!on)}>{on ? "on" : "off"}</button></section>;
}
`,
  "inner/index.tsx": `export default function Inner({ label }: { label: string }) {
  return <em className="inner">{label}</em>;
}
`,
};

/** Bundle answers are held back this long, so parallel and sequential fetches differ. */
const BUNDLE_DELAY_MS = 400;

let browser: Browser;
let dir: string;
let server: Server;
let base: string;
let islands: Handlers;
const pages = new Map<string, string>();
/** Bundle requests: path and arrival time. */
const bundleRequests: { path: string; at: number }[] = [];

beforeAll(async () => {
  const [launched, root, loader] = await Promise.all([
    launchBrowser(),
    makeTempDir("svc-islands-"),
    buildLoaderOnce(),
  ]);
  browser = launched;
  dir = root;
  await writeFiles(dir, COMPONENTS);
  const registry = new ComponentRegistry(dir, { logger: silentLogger });
  // The backend renders islands with a handler set of its own; the API serves the bundles.
  islands = createHandlers(registry, { logger: silentLogger });
  const api = createNodeHandler(registry, { prefix: "/api", logger: silentLogger, live: false });
  const [loaderCode, devLoaderCode] = await Promise.all([
    readFile(loader.production),
    readFile(loader.development),
  ]);
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    const page = pages.get(url);
    if (page !== undefined) {
      res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(page);
      return;
    }
    if (url === "/svc/loader.js" || url === "/svc/loader.dev.js") {
      const code = url === "/svc/loader.js" ? loaderCode : devLoaderCode;
      res.writeHead(200, { "content-type": "text/javascript" }).end(code);
      return;
    }
    if (/^\/api\/bundles\/[^/]+\.js/.test(url)) {
      bundleRequests.push({ path: url, at: performance.now() });
      setTimeout(() => api(req, res), BUNDLE_DELAY_MS);
      return;
    }
    api(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
  await removeDir(dir);
});

async function island(name: string, props: object, hydrate = "load"): Promise<string> {
  return islands.renderIsland(parseComponentName(name), props, {
    hydrate: hydrate as "load",
  });
}

/** A page holding `body` and the loader; its console messages are collected. */
async function open(
  path: string,
  body: string,
  options: { javaScript?: boolean; loader?: string } = {},
) {
  const loader = options.loader ?? "/svc/loader.js";
  pages.set(
    path,
    `<!doctype html><html><body>${body}<script src="${loader}"></script></body></html>`,
  );
  const context = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true });
  const page = await context.newPage();
  const messages: ConsoleMessage[] = [];
  page.on("console", (message) => messages.push(message));
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const requestsFrom = bundleRequests.length;
  await page.goto(`${base}${path}`);
  return {
    page,
    errors,
    /** Console errors and warnings. */
    problems: () =>
      messages.filter((m) => m.type() === "error" || m.type() === "warning").map((m) => m.text()),
    bundlesRequested: () => bundleRequests.slice(requestsFrom).map((r) => r.path),
    close: () => context.close(),
  };
}

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 10_000 });
const text = (page: Page, selector: string) => page.locator(selector).first().textContent();

describe("islands", () => {
  it("show their server HTML with JavaScript off", async () => {
    const body = await island("counter", { start: 3 });
    const tab = await open("/no-js.html", body, { javaScript: false });
    try {
      expect(await text(tab.page, ".count")).toBe("3");
      expect(tab.bundlesRequested()).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  for (const loader of ["/svc/loader.js", "/svc/loader.dev.js"]) {
    it(`hydrate (load): the server's counter counts on from 3, with no hydration warning (${loader})`, async () => {
      const body = await island("counter", { start: 3 });
      const tab = await open(`/load${loader.replaceAll("/", "-")}.html`, body, { loader });
      try {
        expect(await text(tab.page, ".count")).toBe("3"); // before hydration: the server's HTML
        await poll(async () => {
          await tab.page.locator(".count").click();
          return Number(await text(tab.page, ".count"));
        }).toBeGreaterThan(3);
        expect(tab.problems().filter((p) => /hydrat/i.test(p))).toEqual([]);
        expect(tab.errors).toEqual([]);
      } finally {
        await tab.close();
      }
    });
  }

  it("never fetch the bundle of an island with hydrate none", async () => {
    const body = await island("counter", { start: 5 }, "none");
    const tab = await open("/none.html", body);
    try {
      await tab.page.waitForTimeout(1000);
      expect(await text(tab.page, ".count")).toBe("5");
      expect(tab.bundlesRequested()).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("fetch the bundle of a visible island only once it is scrolled into view", async () => {
    const below = await island("counter", { start: 7 }, "visible");
    const tab = await open("/visible.html", `<div style="height: 3000px">spacer</div>${below}`);
    try {
      await tab.page.waitForTimeout(800);
      expect(tab.bundlesRequested()).toEqual([]);
      await tab.page.locator(".count").scrollIntoViewIfNeeded();
      await poll(() => tab.bundlesRequested().length).toBe(1);
      await poll(async () => {
        await tab.page.locator(".count").click();
        return Number(await text(tab.page, ".count"));
      }).toBeGreaterThan(7);
    } finally {
      await tab.close();
    }
  });

  it("hydrate a media island only while its query matches", async () => {
    const never = await island("counter", { start: 1 }, "media:(min-width: 100000px)");
    const always = (await island("counter", { start: 2 }, "media:(min-width: 10px)")).replace(
      "<div",
      '<div id="wide"',
    );
    const tab = await open("/media.html", `<div id="narrow">${never}</div>${always}`);
    try {
      await poll(() => tab.bundlesRequested().length).toBe(1);
      await poll(async () => {
        await tab.page.locator("#wide .count").click();
        return Number(await text(tab.page, "#wide .count"));
      }).toBeGreaterThan(2);
      // The other one stays the server's HTML: a click changes nothing.
      await tab.page.locator("#narrow .count").click();
      expect(await text(tab.page, "#narrow .count")).toBe("1");
    } finally {
      await tab.close();
    }
  });

  it("fetch a nested component's bundle together with the island's, not after it", async () => {
    const body = await island("outer", {});
    expect(body).toContain('data-svc-deps="{&quot;inner&quot;:');
    const tab = await open("/nested.html", body);
    try {
      expect(await text(tab.page, ".inner")).toBe("nested");
      await poll(async () => {
        await tab.page.locator(".toggle").click();
        return text(tab.page, ".toggle");
      }).toBe("on");
      const requested = bundleRequests.slice(-2);
      expect(requested.map((r) => r.path.split("?")[0]).sort()).toEqual([
        "/api/bundles/inner.js",
        "/api/bundles/outer.js",
      ]);
      // Each answer is held back 400 ms: one after the other, they would arrive 400 ms apart.
      const [first, second] = requested;
      expect(Math.abs((second?.at ?? Infinity) - (first?.at ?? 0))).toBeLessThan(
        BUNDLE_DELAY_MS / 2,
      );
      expect(tab.problems().filter((p) => /hydrat/i.test(p))).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("report a hydration mismatch with the component's name", async () => {
    const body = (await island("counter", { start: 3 })).replace(">3</button>", ">33</button>");
    const tab = await open("/mismatch.html", body);
    try {
      await poll(() => tab.problems().join("\n")).toMatch(/island "counter"/);
    } finally {
      await tab.close();
    }
  });
});
