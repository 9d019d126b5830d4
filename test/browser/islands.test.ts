/**
 * Islands in real Chromium: components rendered on the server (`renderIsland`, as a backend
 * embeds them) and hydrated by the standalone loader by strategy.
 */
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseHydrate } from "@svc/protocol";
import {
  build,
  ComponentRegistry,
  createHandlers,
  createNodeHandler,
  type Handlers,
  parseComponentName,
  silentLogger,
} from "@svc/server";
import * as esbuild from "esbuild";
import type { Browser, ConsoleMessage, Locator, Page, Route } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { browserTestBase, noisePng, removeDir, writeFiles } from "./helpers.ts";

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
  // Text on both sides of its element: what React parts with <!-- --> from a neighbour's.
  "tally/index.tsx": `import { useState } from "react";
export default function Tally({ label }: { label: string }) {
  const [n, setN] = useState(0);
  return <>{label}: <button type="button" className="tally" onClick={() => setN(n + 1)}>{n}</button> clicks</>;
}
`,
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
  // Styled the recommended way: a CSS module, plain CSS, an image; a nested styled component.
  "card/index.tsx": `import "./card.css";
import styles from "./card.module.css";
import photo from "./photo.png";
import { useComponent } from "@svc/react";
import { useState } from "react";
export default function Card({ title = "Card" }: { title?: string }) {
  const Badge = useComponent<{ text: string }>("badge");
  const [clicks, setClicks] = useState(0);
  return (
    <article className={"card " + styles.frame}>
      <img className={styles.photo} src={photo} alt="" />
      <h3 className={styles.title}>{title}</h3>
      <Badge text="new" />
      <button type="button" className="clicks" onClick={() => setClicks(clicks + 1)}>{clicks}</button>
    </article>
  );
}
`,
  "card/card.css": ".card { padding: 12px; }\n",
  "card/card.module.css":
    ".frame { border: 3px solid rgb(1, 2, 3); }\n.photo { width: 16px; height: 16px; }\n.title { color: rgb(4, 5, 6); letter-spacing: 3px; }\n",
  "badge/index.tsx": `import "./badge.css";
export default function Badge({ text }: { text: string }) {
  return <span className="badge">{text}</span>;
}
`,
  "badge/badge.css": ".badge { color: rgb(7, 8, 9); }\n",
  // React 19 hoists a <style> with a precedence ahead of everything its render writes.
  "inked/index.tsx": `import { useState } from "react";
export default function Inked() {
  const [n, setN] = useState(0);
  return <><style href="inked" precedence="default">{".inked { color: rgb(9, 8, 7); }"}</style><button type="button" className="inked" onClick={() => setN(n + 1)}>{n}</button></>;
}
`,
};

/** What a page with islands needs: no inline script or style, scripts from blob: (the loader). */
const STRICT_CSP =
  "default-src 'none'; script-src 'self' blob:; style-src 'self'; img-src 'self'; " +
  "connect-src 'self'; base-uri 'none'; object-src 'none'";

/** Bundle answers are held back this long, so parallel and sequential fetches differ. */
const BUNDLE_DELAY_MS = 400;

let browser: Browser;
let dir: string;
/** The `svc build` output of the components in `dir`. */
let out: string;
let server: Server;
let base: string;
let islands: Handlers;
/** Renders islands from the `svc build` output served at `/static/svc/` (static mode). */
let builtIslands: Handlers;
const pages = new Map<string, string>();
/** Pages served with a Content-Security-Policy header. */
const policies = new Map<string, string>();
/** Bundle requests: path and arrival time. */
const bundleRequests: { path: string; at: number }[] = [];
/** Requests for the loader (`loader.js`, `loader.dev.js`), in order. */
const loaderRequests: string[] = [];
/** When `/slow/loader.js` was asked for (its answer is held back like a bundle's). */
const slowLoaderRequests: number[] = [];
/** When `/static/svc/loader.extras.js` (beside the build's manifest) was asked for. */
const staticExtrasRequests: number[] = [];
/** Every request path (with query), in order. */
const allRequests: string[] = [];
/** A React app that hydrates the page's islands with `@svc/react`'s `hydrateIsland`. */
let hydratingApp: string;

beforeAll(async () => {
  const made = await browserTestBase("svc-islands-");
  const { loader } = made;
  browser = made.browser;
  hydratingApp = await bundleHydratingApp();
  dir = made.dir;
  out = made.buildDir;
  await writeFiles(dir, { ...COMPONENTS, "card/photo.png": noisePng(12) as unknown as string });
  const registry = new ComponentRegistry(dir, { logger: silentLogger });
  // The backend renders islands with a handler set of its own; the API serves the bundles.
  islands = createHandlers(registry, { logger: silentLogger });
  // A deployment's static mode: `svc build` output, the loader reading its manifest.
  await build({ registry, outDir: out });
  builtIslands = createHandlers(registry, { logger: silentLogger, buildDir: out });
  const api = createNodeHandler(registry, { prefix: "/api", logger: silentLogger, live: false });
  const [loaderCode, devLoaderCode, islandsCode] = await Promise.all([
    readFile(loader.production),
    readFile(loader.development),
    readFile(loader.islands),
  ]);
  server = createServer((req, res) => {
    const url = req.url ?? "/";
    allRequests.push(url);
    const page = pages.get(url);
    if (page !== undefined) {
      const policy = policies.get(url);
      res
        .writeHead(200, {
          "content-type": "text/html; charset=utf-8",
          ...(policy === undefined ? {} : { "content-security-policy": policy }),
        })
        .end(page);
      return;
    }
    if (url === "/svc/loader.js" || url === "/svc/loader.dev.js") {
      loaderRequests.push(url);
      const code = url === "/svc/loader.js" ? loaderCode : devLoaderCode;
      res.writeHead(200, { "content-type": "text/javascript" }).end(code);
      return;
    }
    if (url === "/hydrating-app.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(hydratingApp);
      return;
    }
    if (url === "/favicon.ico") {
      res.writeHead(204).end(); // Chromium asks: its 404 would be a console error
      return;
    }
    if (url === "/slow/loader.js") {
      slowLoaderRequests.push(performance.now());
      setTimeout(() => {
        res.writeHead(200, { "content-type": "text/javascript" }).end(loaderCode);
      }, BUNDLE_DELAY_MS);
      return;
    }
    if (url === "/svc/islands.js" || url === "/slow/islands.js") {
      res.writeHead(200, { "content-type": "text/javascript" }).end(islandsCode);
      return;
    }
    if (url.startsWith("/static/svc/")) {
      const file = url.slice("/static/svc/".length);
      if (file === "loader.extras.js") staticExtrasRequests.push(performance.now());
      readFile(join(out, file)).then(
        (body) => {
          const type = file.endsWith(".json") ? "application/json" : "text/javascript";
          res.writeHead(200, { "content-type": type }).end(body);
        },
        () => res.writeHead(404).end(),
      );
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
  await removeDir(out);
});

/** The app `/hydrating-app.js`, bundled as an app's build would (React and `@svc/react` in it). */
async function bundleHydratingApp(): Promise<string> {
  const result = await esbuild.build({
    stdin: {
      contents: `import { createSvcClient, hydrateIsland, installReactModules } from "@svc/react";
import { QueryClient } from "@tanstack/react-query";
import * as ReactDOM from "react-dom";
import * as ReactDOMClient from "react-dom/client";
installReactModules({ "react-dom": ReactDOM, "react-dom/client": ReactDOMClient });
const client = createSvcClient({ apiBase: "/api" });
const queryClient = new QueryClient();
for (const container of document.querySelectorAll("[data-svc-ssr]")) {
  hydrateIsland(container, { client, queryClient, hydrateRoot: ReactDOMClient.hydrateRoot });
}
`,
      resolveDir: fileURLToPath(new URL(".", import.meta.url)),
      loader: "tsx",
    },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    target: "es2022",
    conditions: ["source"],
    define: { "process.env.NODE_ENV": '"development"' },
    logLevel: "silent",
  });
  return result.outputFiles[0]?.text ?? "";
}

async function island(name: string, props: object, hydrate = "load"): Promise<string> {
  return islands.renderIsland(parseComponentName(name), props, {
    hydrate: hydrate as "load",
  });
}

/** A page holding `body` and the loader; its console messages are collected. */
async function open(
  path: string,
  body: string,
  options: { javaScript?: boolean; loader?: string; csp?: string; scriptAttributes?: string } = {},
) {
  const loader = options.loader ?? "/svc/loader.js";
  const attributes = options.scriptAttributes ?? "";
  if (options.csp !== undefined) policies.set(path, options.csp);
  pages.set(
    path,
    `<!doctype html><html><body>${body}<script src="${loader}"${attributes}></script></body></html>`,
  );
  const context = await browser.newContext({ javaScriptEnabled: options.javaScript ?? true });
  const page = await context.newPage();
  const messages: ConsoleMessage[] = [];
  page.on("console", (message) => messages.push(message));
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  const requestsFrom = bundleRequests.length;
  const loadersFrom = loaderRequests.length;
  const allFrom = allRequests.length;
  await page.goto(`${base}${path}`);
  return {
    page,
    errors,
    /** Console errors and warnings. */
    problems: () =>
      messages.filter((m) => m.type() === "error" || m.type() === "warning").map((m) => m.text()),
    bundlesRequested: () => bundleRequests.slice(requestsFrom).map((r) => r.path),
    loadersRequested: () => loaderRequests.slice(loadersFrom),
    /** Every request since the page was opened. */
    requested: () => allRequests.slice(allFrom),
    close: () => context.close(),
  };
}

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 10_000 });
/** Clicks `button` until its text, a number, passes the assertion chained on (it hydrates). */
const clicked = (button: Locator) =>
  poll(async () => {
    await button.click();
    return Number(await button.textContent());
  });
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
        await clicked(tab.page.locator(".count")).toBeGreaterThan(3);
        expect(tab.problems().filter((p) => /hydrat/i.test(p))).toEqual([]);
        expect(tab.errors).toEqual([]);
      } finally {
        await tab.close();
      }
    });
  }

  it("hydrate islands rendered together (one render on the server for all) with no mismatch", async () => {
    // Rendered once each first: versions that render alone cleanly are batched from then on.
    await island("counter", { start: 0 });
    await island("tally", { label: "warm" });
    const asked = [0, 1, 2, 3, 4, 5].map((i) =>
      i % 2 === 0 ? island("counter", { start: 10 + i }) : island("tally", { label: `T${i}` }),
    );
    const body = (await Promise.all(asked)).map((html) => `<section>${html}</section>`).join("");
    const tab = await open("/together.html", body, { loader: "/svc/loader.dev.js" });
    try {
      expect(await tab.page.locator("section").allTextContents()).toEqual([
        "10",
        "T1: 0 clicks",
        "12",
        "T3: 0 clicks",
        "14",
        "T5: 0 clicks",
      ]);
      await clicked(tab.page.locator(".count").last()).toBeGreaterThan(14);
      await poll(async () => {
        await tab.page.locator(".tally").first().click();
        return tab.page.locator("section").nth(1).textContent();
      }).not.toBe("T1: 0 clicks");
      expect(tab.problems()).toEqual([]);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

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
      await clicked(tab.page.locator(".count")).toBeGreaterThan(7);
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
      await clicked(tab.page.locator("#wide .count")).toBeGreaterThan(2);
      // The other one stays the server's HTML: a click changes nothing.
      await tab.page.locator("#narrow .count").click();
      expect(await text(tab.page, "#narrow .count")).toBe("1");
    } finally {
      await tab.close();
    }
  });

  it("hydrate a visible:200px island 150px below the fold without scrolling, and a visible one there only once scrolled to", async () => {
    const near = await island("counter", { start: 4 }, "visible:200px");
    const plain = await island("tally", { label: "plain" }, "visible");
    const tab = await open(
      "/visible-margin.html",
      `<div style="height: calc(100vh + 150px)">spacer</div><div style="display: flex; gap: 20px">${near}${plain}</div>`,
    );
    const names = () => tab.bundlesRequested().map((path) => path.split(/[/.]/)[3]);
    try {
      await poll(names).toEqual(["counter"]);
      await tab.page.waitForTimeout(800);
      expect(names()).toEqual(["counter"]);
      expect(await tab.page.evaluate(() => scrollY)).toBe(0);
      await tab.page.locator(".tally").scrollIntoViewIfNeeded();
      await poll(names).toEqual(["counter", "tally"]);
      await clicked(tab.page.locator(".count")).toBeGreaterThan(4);
      expect(tab.problems()).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("parse every media query parseHydrate accepts (Chromium's matchMedia)", async () => {
    const queries = [
      "(min-width: 800px)",
      "screen and (max-width: 40em)",
      "(prefers-reduced-motion: reduce)",
      "(hover)",
      "print",
      "only screen and (min-width: 800px) and (orientation: landscape)",
      "not all and (monochrome)",
      "(min-aspect-ratio: 16/9), print",
      "(width >= 800px)",
      "(400px < width <= 900px)",
      "(hover) or (min-resolution: 2dppx)",
      "not (hover)",
      "screen and not (color)",
    ];
    expect(queries.filter((query) => parseHydrate(`media:${query}`) === undefined)).toEqual([]);
    const tab = await open("/media-queries.html", "<p>queries</p>", { loader: "/svc/islands.js" });
    try {
      const parsed = await tab.page.evaluate(
        (list) => list.filter((query) => matchMedia(query).media === "not all"),
        queries,
      );
      expect(parsed).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("fetch a nested component's bundle together with the island's, not after it", async () => {
    const body = await island("outer", {});
    expect(body).toContain(`data-svc-deps='{"inner":`);
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

  it("are styled by their own and nested components' CSS with JavaScript off, under a strict CSP", async () => {
    const body = await island("card", { title: "Styled" });
    expect(body).toMatch(
      /^(<link rel="stylesheet" href="\/api\/bundles\/[\w.-]+\.css"[^>]*>){3}<div /,
    );
    const tab = await open("/styled-no-js.html", body, { javaScript: false, csp: STRICT_CSP });
    const style = (selector: string, property: string) =>
      tab.page
        .locator(selector)
        .first()
        .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);
    try {
      // The CSS module's scoped class, the plain CSS and the nested component's CSS apply.
      expect(await style("h3", "color")).toBe("rgb(4, 5, 6)");
      expect(await style("h3", "letter-spacing")).toBe("3px");
      expect(await style("article", "border-top-color")).toBe("rgb(1, 2, 3)");
      expect(await style("article", "padding-top")).toBe("12px");
      expect(await style(".badge", "color")).toBe("rgb(7, 8, 9)");
      const img = tab.page.locator("article img");
      await poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(
        12,
      );
      expect(tab.bundlesRequested()).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("hydrate a styled island with no mismatch: the browser bundle gives the server's class names and URLs", async () => {
    const body = await island("card", { title: "Styled" });
    const tab = await open("/styled.html", body, { csp: STRICT_CSP, loader: "/svc/loader.dev.js" });
    try {
      await clicked(tab.page.locator(".clicks")).toBeGreaterThan(0);
      expect(tab.problems().filter((p) => /hydrat|match/i.test(p))).toEqual([]);
      expect(tab.errors).toEqual([]);
      expect(
        await tab.page
          .locator("h3")
          .evaluate((el) => getComputedStyle(el).getPropertyValue("color")),
      ).toBe("rgb(4, 5, 6)");
    } finally {
      await tab.close();
    }
  });

  it("hydrate a component whose <style precedence> React hoists, styled before and after, with no mismatch", async () => {
    const body = await island("inked", {});
    // Inside the container, ahead of the boundary the browser hydrates.
    expect(body).toMatch(
      /<style data-precedence="default" data-href="inked">[^<]*<\/style><!--\$--><button/,
    );
    const tab = await open("/inked.html", body, { loader: "/svc/loader.dev.js" });
    try {
      const color = () =>
        tab.page.locator(".inked").evaluate((button) => getComputedStyle(button).color);
      expect(await color()).toBe("rgb(9, 8, 7)");
      await clicked(tab.page.locator(".inked")).toBeGreaterThan(0);
      expect(await color()).toBe("rgb(9, 8, 7)");
      expect(tab.problems()).toEqual([]);
      expect(tab.errors).toEqual([]);
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

describe("islands.js, the start of a page of islands", () => {
  it("fetches neither the loader nor a bundle while the islands are out of view, then hydrates the one scrolled to", async () => {
    const below = await island("counter", { start: 7 }, "visible");
    const never = await island("counter", { start: 1 }, "none");
    const tab = await open(
      "/start-visible.html",
      `${never}<div style="height: 3000px">spacer</div>${below}`,
      { loader: "/svc/islands.js" },
    );
    try {
      await tab.page.waitForTimeout(800);
      expect(tab.loadersRequested()).toEqual([]);
      expect(tab.bundlesRequested()).toEqual([]);
      expect(await tab.page.evaluate(() => "svc" in window)).toBe(false);
      await tab.page.locator(".count").last().scrollIntoViewIfNeeded();
      await clicked(tab.page.locator(".count").last()).toBeGreaterThan(7);
      // The loader came from beside islands.js, once; the none island stayed the server's HTML.
      expect(tab.loadersRequested()).toEqual(["/svc/loader.js"]);
      expect(tab.bundlesRequested()).toHaveLength(1);
      await tab.page.locator(".count").first().click();
      expect(await text(tab.page, ".count")).toBe("1");
      expect(tab.problems()).toEqual([]);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("never fetches the loader for a page whose islands are all none", async () => {
    const body = await island("counter", { start: 5 }, "none");
    const tab = await open("/start-none.html", body, { loader: "/svc/islands.js" });
    try {
      await tab.page.waitForTimeout(800);
      expect(tab.loadersRequested()).toEqual([]);
      expect(tab.bundlesRequested()).toEqual([]);
      expect(await text(tab.page, ".count")).toBe("5");
    } finally {
      await tab.close();
    }
  });

  it("fetches the loader at once for a load island and a container the server did not render, handing on its data-svc-* attributes, under a strict CSP", async () => {
    const body = await island("counter", { start: 3 });
    const tab = await open(
      "/start-load.html",
      `${body}<div id="client" data-svc-component="inner" data-svc-props='{"label":"client"}'></div>`,
      {
        loader: "/svc/islands.js",
        scriptAttributes: ' data-svc-api="/api" data-svc-live="false"',
        csp: STRICT_CSP,
      },
    );
    try {
      await poll(() => text(tab.page, "#client .inner")).toBe("client");
      expect(
        await tab.page.evaluate(() => {
          const added = document.querySelector<HTMLScriptElement>('script[src$="/loader.js"]');
          return [added?.dataset.svcApi, added?.dataset.svcLive];
        }),
      ).toEqual(["/api", "false"]);
      await clicked(tab.page.locator(".count")).toBeGreaterThan(3);
      expect(tab.loadersRequested()).toEqual(["/svc/loader.js"]);
      expect(tab.problems()).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("says in one line which loader it could not fetch, and leaves the islands' HTML", async () => {
    const body = await island("counter", { start: 4 });
    const tab = await open("/start-missing.html", body, {
      loader: "/svc/islands.js",
      scriptAttributes: ' data-svc-loader="/nowhere/loader.js"',
    });
    try {
      await poll(() => tab.problems().join("\n")).toMatch(
        /svc islands: http:\/\/127\.0\.0\.1:\d+\/nowhere\/loader\.js could not be loaded/,
      );
      expect(await text(tab.page, ".count")).toBe("4");
    } finally {
      await tab.close();
    }
  });

  it("asks for the island's bundle together with the loader, and the loader uses that answer", async () => {
    const below = await island("counter", { start: 9 }, "visible");
    const tab = await open(
      "/start-preload.html",
      `<div style="height: 3000px">spacer</div>${below}`,
      {
        loader: "/slow/islands.js",
      },
    );
    try {
      await tab.page.waitForTimeout(500);
      expect(tab.bundlesRequested()).toEqual([]);
      await tab.page.locator(".count").scrollIntoViewIfNeeded();
      await clicked(tab.page.locator(".count")).toBeGreaterThan(9);
      // The loader's answer is held back 400 ms: fetched after it, the bundle would be asked
      // for 400 ms later at least.
      const askedFor = slowLoaderRequests.at(-1) ?? Number.NaN;
      const bundle = bundleRequests.at(-1)?.at ?? Number.NaN;
      expect(Math.abs(bundle - askedFor)).toBeLessThan(BUNDLE_DELAY_MS / 2);
      // Asked for once: the loader's own fetch got the preloaded answer. Chromium warns a few
      // seconds after load about a preload nothing used.
      await tab.page.waitForTimeout(3500);
      expect(tab.bundlesRequested()).toHaveLength(1);
      expect(tab.problems()).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("in static mode, asks for the extras beside the manifest together with the loader, and the loader uses that answer", async () => {
    const below = await builtIslands.renderIsland(
      parseComponentName("counter"),
      { start: 6 },
      {
        hydrate: "visible",
      },
    );
    const tab = await open(
      "/start-static.html",
      `<div style="height: 3000px">spacer</div>${below}`,
      {
        loader: "/slow/islands.js",
        scriptAttributes: ' data-svc-manifest="/static/svc/manifest.json"',
      },
    );
    const extrasFrom = staticExtrasRequests.length;
    try {
      await tab.page.waitForTimeout(500);
      expect(staticExtrasRequests.length).toBe(extrasFrom);
      await tab.page.locator(".count").scrollIntoViewIfNeeded();
      await clicked(tab.page.locator(".count")).toBeGreaterThan(6);
      // The loader's answer is held back 400 ms: asked for by the loader, the extras would come
      // 400 ms after it at least; under another URL than the loader's, twice.
      const askedFor = slowLoaderRequests.at(-1) ?? Number.NaN;
      const extras = staticExtrasRequests.at(-1) ?? Number.NaN;
      expect(Math.abs(extras - askedFor)).toBeLessThan(BUNDLE_DELAY_MS / 2);
      await tab.page.waitForTimeout(3500);
      expect(staticExtrasRequests.length - extrasFrom).toBe(1);
      // Static mode: nothing from the API.
      expect(tab.bundlesRequested()).toEqual([]);
      expect(tab.problems()).toEqual([]);
    } finally {
      await tab.close();
    }
  });
});

/**
 * Holds back `page`'s requests for URLs matching `pattern` until `release()`: what a test does
 * meanwhile happens before they are answered, however slow the machine.
 */
async function holdRequests(page: Page, pattern: RegExp) {
  const held: Route[] = [];
  let holding = true;
  await page.route(pattern, (route) => {
    if (holding) held.push(route);
    else void route.continue();
  });
  return {
    held: () => held.length,
    async release() {
      holding = false;
      await Promise.all(held.splice(0).map((route) => route.continue()));
    },
  };
}

const BUNDLES = /\/api\/bundles\/[^/]+\.js/;

/**
 * Clicks `count` (a counter at 0) while its bundle is held back, then lets the bundle through:
 * the click that woke the island counts once it hydrates, and only once.
 */
async function clickBeforeHydration(
  page: Page,
  count: Locator,
  bundles: Awaited<ReturnType<typeof holdRequests>>,
): Promise<void> {
  await count.click();
  await poll(() => bundles.held()).toBe(1);
  expect(await count.textContent()).toBe("0");
  await bundles.release();
  await poll(() => count.textContent()).toBe("1");
  await page.waitForTimeout(500);
  expect(await count.textContent()).toBe("1"); // once, not replayed twice
}

describe("interaction islands", () => {
  for (const loader of ["/svc/loader.js", "/svc/loader.dev.js"]) {
    it(`fetch nothing until interacted with, and count the click that woke them once hydrated (${loader})`, async () => {
      const body = await island("counter", { start: 0 }, "interaction");
      const tab = await open(`/interaction${loader.replaceAll("/", "-")}.html`, body, { loader });
      const count = tab.page.locator(".count");
      const bundles = await holdRequests(tab.page, BUNDLES);
      try {
        await tab.page.waitForTimeout(800);
        await count.hover(); // a pointer passing over is no interaction
        await tab.page.waitForTimeout(300);
        expect(bundles.held()).toBe(0);
        // One click, while its bundle is held back: it comes before hydration.
        await clickBeforeHydration(tab.page, count, bundles);
        expect(tab.bundlesRequested()).toHaveLength(1);
        await count.click(); // hydrated: React's at once
        expect(await count.textContent()).toBe("2");
        expect(tab.problems()).toEqual([]);
        expect(tab.errors).toEqual([]);
      } finally {
        await tab.close();
      }
    });
  }

  it("wake on the focus of Tab, and count a button pressed with Enter or Space before hydration", async () => {
    const first = await island("counter", { start: 0 }, "interaction");
    const second = await island("tally", { label: "keys" }, "interaction");
    const tab = await open(
      "/interaction-keys.html",
      `<p>text</p><section id="a">${first}</section><section id="b">${second}</section>`,
      { loader: "/svc/loader.dev.js" },
    );
    const a = tab.page.locator("#a .count");
    const b = tab.page.locator("#b .tally");
    const bundles = await holdRequests(tab.page, BUNDLES);
    const focused = () => tab.page.evaluate(() => document.activeElement?.className);
    try {
      await tab.page.waitForTimeout(500);
      expect(bundles.held()).toBe(0);
      await tab.page.keyboard.press("Tab");
      expect(await focused()).toBe("count");
      await poll(() => bundles.held()).toBe(1); // its focus woke it
      await tab.page.keyboard.press("Enter");
      await tab.page.keyboard.press("Tab");
      expect(await focused()).toBe("tally");
      await poll(() => bundles.held()).toBe(2);
      await tab.page.keyboard.press(" ");
      expect([await a.textContent(), await b.textContent()]).toEqual(["0", "0"]);
      await bundles.release();
      await poll(() => a.textContent()).toBe("1");
      await poll(() => b.textContent()).toBe("1");
      await tab.page.waitForTimeout(500);
      expect([await a.textContent(), await b.textContent()]).toEqual(["1", "1"]);
      expect(tab.problems()).toEqual([]);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("on a page started by /api/islands.js: the loader comes on the first click, and the click counts", async () => {
    const body = await island("counter", { start: 0 }, "interaction");
    const tab = await open("/interaction-start.html", `<p>text</p>${body}`, {
      loader: "/api/islands.js",
    });
    const count = tab.page.locator(".count");
    const loaders = () => tab.requested().filter((path) => /\/loader[.\w]*\.js/.test(path));
    const bundles = await holdRequests(tab.page, BUNDLES);
    try {
      await tab.page.waitForTimeout(800);
      await count.hover();
      expect(tab.requested()).toContain("/api/islands.js");
      expect(loaders()).toEqual([]);
      expect(bundles.held()).toBe(0);
      expect(await tab.page.evaluate(() => "svc" in window)).toBe(false);
      await clickBeforeHydration(tab.page, count, bundles);
      expect(loaders().sort()).toEqual(["/api/loader.extras.js", "/api/loader.js"]);
      await count.click();
      expect(await count.textContent()).toBe("2");
      // The loader used the bundle islands.js preloaded.
      expect(tab.bundlesRequested()).toHaveLength(1);
      expect(tab.errors).toEqual([]);
      expect(tab.problems().filter((p) => /hydrat/i.test(p))).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("keep watching while the loader is on its way: a second island clicked meanwhile counts too", async () => {
    const first = await island("counter", { start: 0 }, "interaction");
    const second = await island("counter", { start: 10 }, "interaction");
    const tab = await open(
      "/interaction-slow.html",
      `<section id="a">${first}</section><section id="b">${second}</section>`,
      { loader: "/svc/islands.js" },
    );
    const a = tab.page.locator("#a .count");
    const b = tab.page.locator("#b .count");
    const loader = await holdRequests(tab.page, /\/svc\/loader\.js$/);
    try {
      await tab.page.waitForTimeout(500);
      await a.click();
      await poll(() => loader.held()).toBe(1);
      await b.click(); // the loader is not there yet
      expect(await tab.page.evaluate(() => "svc" in window)).toBe(false);
      await loader.release();
      await poll(() => a.textContent()).toBe("1");
      await poll(() => b.textContent()).toBe("11");
      await tab.page.waitForTimeout(500);
      expect([await a.textContent(), await b.textContent()]).toEqual(["1", "11"]);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("in a React app (@svc/react's hydrateIsland): the click before hydration counts", async () => {
    const body = await island("counter", { start: 0 }, "interaction");
    const tab = await open("/interaction-app.html", `<p>text</p>${body}`, {
      loader: "/hydrating-app.js",
      scriptAttributes: ' type="module"',
    });
    const count = tab.page.locator(".count");
    const bundles = await holdRequests(tab.page, BUNDLES);
    try {
      await tab.page.waitForTimeout(800);
      expect(bundles.held()).toBe(0);
      await clickBeforeHydration(tab.page, count, bundles);
      expect(tab.problems()).toEqual([]);
      expect(tab.errors).toEqual([]);
    } finally {
      await tab.close();
    }
  });

  it("hand a held click on a link to the page when the loader cannot be fetched", async () => {
    const body = await island("counter", { start: 0 }, "interaction");
    const tab = await open(
      "/interaction-missing.html",
      body.replace("</button>", '</button><a id="next" href="#followed">next</a>'),
      { loader: "/svc/islands.js", scriptAttributes: ' data-svc-loader="/nowhere/loader.js"' },
    );
    try {
      await tab.page.locator("#next").click();
      await poll(() => tab.page.evaluate(() => location.hash)).toBe("#followed");
      expect(await text(tab.page, ".count")).toBe("0");
    } finally {
      await tab.close();
    }
  });
});
