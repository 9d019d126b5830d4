/**
 * Real Django and Flask apps (test/python/fixtures) rendering islands through the Python
 * client, in real Chromium: with JavaScript off, hydrated, with svc on another origin (its
 * `publicUrl` absolute, the page's origin allowed by CORS), and behind a reverse proxy that
 * serves the page and maps `/svc/` to svc's `/api/` on one origin (`publicUrl: "/svc"`).
 */
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DevServer } from "@svc/server";
import type { Browser, Locator, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLoaderOnce, launchBrowser, writeFiles } from "../browser/helpers.ts";
import { COMPONENTS } from "./components.ts";
import {
  FIXTURES_DIR,
  freePort,
  PYTHON,
  type PythonServer,
  startPythonServer,
  startSvc,
} from "./python.ts";

const FRAMEWORKS = {
  django: ["-m", "django", "runserver", "--noreload"],
  flask: ["flask_app.py"],
} as const;
type Framework = keyof typeof FRAMEWORKS;

const TRICKY = { text: `</script><b>it's "quoted" & <fine></b>`, unicode: "café ✓" };

/** Starts `framework`'s fixture app on `port`, rendering with svc at `svcUrl`. */
function startApp(
  framework: Framework,
  port: number,
  env: { SVC_URL: string; SVC_PUBLIC_URL?: string },
): Promise<PythonServer> {
  const args =
    framework === "django" ? [...FRAMEWORKS.django, `127.0.0.1:${port}`] : [...FRAMEWORKS.flask];
  return startPythonServer(args, port, {
    cwd: FIXTURES_DIR,
    env: {
      ...env,
      PORT: String(port),
      PYTHONPATH: FIXTURES_DIR,
      DJANGO_SETTINGS_MODULE: "django_site.settings",
    },
  });
}

/** One origin for the page and svc: `/svc/…` goes to svc's `/api/…`, the rest to the app. */
async function startProxy(app: string, svc: string): Promise<{ server: Server; url: string }> {
  const server = createServer((req, res) => {
    const url = req.url ?? "/";
    const target = url.startsWith("/svc/")
      ? new URL(`/api/${url.slice(5)}`, svc)
      : new URL(url, app);
    const forwarded = request(
      target,
      { method: req.method, headers: { ...req.headers, host: target.host } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on("error", () => {
      res.writeHead(502).end();
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

/** Clicks `button` until its number passes the assertion chained on (it hydrates first). */
const clicked = (button: Locator) =>
  expect.poll(
    async () => {
      await button.click();
      return Number((await button.textContent())?.replace(/^.*: /, ""));
    },
    { timeout: 10_000 },
  );

describe.skipIf(PYTHON === undefined)("Django and Flask pages of islands in Chromium", () => {
  let dir: string;
  let browser: Browser;
  /** svc for pages of another origin; svc behind the proxy. */
  let crossSvc: DevServer;
  let proxiedSvc: DevServer;
  /** Each framework's port, known before svc starts: its origin is allowed by CORS. */
  const ports = {} as Record<Framework, number>;
  const closers: (() => Promise<unknown>)[] = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "svc-python-pages-"));
    const [, launched] = await Promise.all([
      writeFiles(dir, COMPONENTS),
      launchBrowser(),
      buildLoaderOnce(),
    ]);
    browser = launched;
    for (const framework of Object.keys(FRAMEWORKS) as Framework[]) {
      ports[framework] = await freePort();
    }
    const crossPort = await freePort();
    crossSvc = (
      await startSvc({
        componentsDir: dir,
        renderWorkers: 1,
        port: crossPort,
        publicUrl: `http://127.0.0.1:${crossPort}/api`,
        corsOrigins: Object.values(ports).map((port) => `http://127.0.0.1:${port}`),
      })
    ).svc;
    // Behind the proxy: one origin, no CORS; islands name svc by the proxy's path.
    proxiedSvc = (
      await startSvc({
        componentsDir: dir,
        renderWorkers: 1,
        publicUrl: "/svc",
        corsOrigins: [],
      })
    ).svc;
  });

  afterAll(async () => {
    for (const close of closers.reverse()) await close();
    await browser?.close();
    await crossSvc?.close(1000);
    await proxiedSvc?.close(1000);
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
  });

  /** A tab on `url`; what it requested and every console error and page error it saw. */
  async function open(url: string, javaScript = true) {
    const context = await browser.newContext({ javaScriptEnabled: javaScript });
    const page = await context.newPage();
    const problems: string[] = [];
    const requested: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning")
        problems.push(`${m.text()} ${m.location().url}`);
    });
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("request", (r) => requested.push(r.url()));
    page.on("response", (r) => {
      if (r.status() >= 400) problems.push(`${r.status()} ${r.url()}`);
    });
    await page.goto(url);
    return { page, problems, requested, close: () => context.close() };
  }

  /** What every page shows before any script runs. */
  async function expectServerContent(page: Page, framework: Framework): Promise<void> {
    expect(await page.locator("h1").textContent()).toBe(framework);
    expect(await page.locator("button.counter").allTextContents()).toEqual([
      "single: 3",
      "a: 10",
      "b: 20",
    ]);
    expect(JSON.parse((await page.locator("pre.echo").textContent()) ?? "")).toEqual(TRICKY);
  }

  for (const framework of Object.keys(FRAMEWORKS) as Framework[]) {
    describe(framework, () => {
      let cross: PythonServer;

      beforeAll(async () => {
        cross = await startApp(framework, ports[framework], { SVC_URL: `${crossSvc.url}/api` });
        closers.push(() => cross.close());
      });

      it("shows every island with JavaScript off: the server's HTML, props intact", async () => {
        const tab = await open(`${cross.url}/`, false);
        try {
          await expectServerContent(tab.page, framework);
          // The island svc could not render is left to the browser: nothing without scripts.
          expect(
            await tab.page.locator("[data-svc-fallback]").getAttribute("data-svc-fallback"),
          ).toBe("RenderError");
          expect(await tab.page.locator(".browser-only").count()).toBe(0);
        } finally {
          await tab.close();
        }
      });

      it("hydrates with svc on another origin: counters count, the fallback renders in the browser, no warning", async () => {
        const tab = await open(`${cross.url}/`);
        try {
          await expectServerContent(tab.page, framework);
          await clicked(tab.page.locator("button.counter").first()).toBeGreaterThan(3);
          await clicked(tab.page.locator("button.counter").nth(2)).toBeGreaterThan(20);
          expect(await tab.page.locator(".browser-only").textContent()).toBe(
            "rendered in the browser",
          );
          expect(tab.problems).toEqual([]);
          expect(tab.requested.some((url) => url.startsWith(`${crossSvc.url}/api/bundles/`))).toBe(
            true,
          );
        } finally {
          await tab.close();
        }
      });
    });
  }

  // The proxy setup is the client's and svc's, the same for every framework: Flask's here.
  describe("flask behind a reverse proxy", () => {
    let proxied: { server: Server; url: string };

    beforeAll(async () => {
      const app = await startApp("flask", await freePort(), {
        SVC_URL: `${proxiedSvc.url}/api`,
        SVC_PUBLIC_URL: "/svc",
      });
      closers.push(() => app.close());
      proxied = await startProxy(app.url, proxiedSvc.url);
      closers.push(() => new Promise((resolve) => proxied.server.close(resolve)));
    });

    it("hydrates behind a reverse proxy that serves the page and svc on one origin", async () => {
      const tab = await open(`${proxied.url}/`);
      try {
        await expectServerContent(tab.page, "flask");
        await clicked(tab.page.locator("button.counter").nth(1)).toBeGreaterThan(10);
        expect(await tab.page.locator(".browser-only").textContent()).toBe(
          "rendered in the browser",
        );
        expect(tab.problems).toEqual([]);
        expect(
          tab.requested.filter(
            (url) => url.startsWith("http") && !url.startsWith(`${proxied.url}/`),
          ),
        ).toEqual([]);
        expect(tab.requested).toContain(`${proxied.url}/svc/loader.js`);
      } finally {
        await tab.close();
      }
    });
  });
});
