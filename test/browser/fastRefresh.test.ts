/**
 * React Fast Refresh in development, in real Chromium, through every host: a loader page
 * (`loader.dev.js`, `data-svc-live`) on Express and on Fastify, a hydrated island, a React app
 * with `<SvcProvider live>` (`useComponent`, through `ServerComponent`) and the playground. A
 * counter clicked to 3 keeps its count across an edit of its text and across an edit of its
 * CSS module's colour; an edit that adds a hook remounts it (count 0), without errors. On a
 * loader page also React's other rules: an edited module of non-components re-renders its
 * importers (state kept); a component module that also exports a non-component remounts.
 */
import { writeFile } from "node:fs/promises";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { ComponentRegistry, type DevServer, silentLogger, startDevServer } from "@svc/server";
import { svcExpress } from "@svc/server/express";
import { svcFastify } from "@svc/server/fastify";
import express from "express";
import Fastify from "fastify";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import { buildPlayground } from "../../packages/server/playground/build.ts";
import {
  appPages,
  browserSuite,
  buildLoaderOnce,
  bundleApp,
  QUIET_DEV_SERVER,
  writeFiles,
} from "./helpers.ts";

/** The counter, saying `text`; `extraHook` adds a hook (its signature changes: a remount). */
const counter = (text: string, extraHook = false) => `import { useState } from "react";
import styles from "./counter.module.css";

export default function Counter() {
  const [count, setCount] = useState(0);${extraHook ? '\n  const [label] = useState("n");' : ""}
  return (
    <button type="button" className={styles.button} onClick={() => setCount(count + 1)}>
      <span className="text">${text}</span> <span className="count">{count}</span>
    </button>
  );
}
`;
const css = (color: string) => `.button { color: ${color}; }\n`;

const suite = browserSuite();

/** A fresh directory with the counter as component `name`, and a registry over it. */
async function counterDir(name: string) {
  const dir = await suite.tempDir("svc-fast-refresh-");
  await writeFiles(dir, {
    [`${name}/index.tsx`]: counter("one"),
    [`${name}/counter.module.css`]: css("rgb(255, 0, 0)"),
  });
  return { dir, registry: new ComponentRegistry(dir, { logger: silentLogger }) };
}

const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });

/** The counter's text, count and colour in `root`, or null while it is not shown. */
function shown(page: Page, root: string) {
  return page
    .evaluate((root) => {
      const button = document.querySelector(`${root} button`);
      if (button === null) return null;
      return {
        text: button.querySelector(".text")?.textContent,
        count: button.querySelector(".count")?.textContent,
        color: getComputedStyle(button).color,
      };
    }, root)
    .catch(() => null);
}

/**
 * The scenario every host goes through, on `url`, with the counter as `name` in `dir`,
 * shown inside `root`.
 */
/** Serves `app` on a free loopback port until the suite ends; its origin. */
async function listen(app: express.Express, svc: { close(): unknown }): Promise<string> {
  const server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  suite.after(async () => {
    svc.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** Opens `url` and clicks the counter at `root` (showing "one", 0) up to 3. */
async function countedTo3(url: string, root: string) {
  const opened = await suite.newPage();
  await opened.page.goto(url);
  await poll(() => shown(opened.page, root)).toMatchObject({ text: "one", count: "0" });
  for (let i = 0; i < 3; i++) await opened.page.click(`${root} button`);
  await poll(() => shown(opened.page, root)).toMatchObject({ count: "3" });
  return opened;
}

async function keepsState(url: string, dir: string, name: string, root: string) {
  const { page, errors } = await countedTo3(url, root);
  expect(await shown(page, root)).toMatchObject({ color: "rgb(255, 0, 0)" });

  // The text: new text, same count.
  await writeFile(join(dir, name, "index.tsx"), counter("two"));
  await poll(() => shown(page, root)).toEqual({ text: "two", count: "3", color: "rgb(255, 0, 0)" });

  // The colour of the CSS module: restyled in place, same count.
  await writeFile(join(dir, name, "counter.module.css"), css("rgb(0, 0, 255)"));
  await poll(() => shown(page, root)).toEqual({ text: "two", count: "3", color: "rgb(0, 0, 255)" });

  // A hook added: React cannot keep the state, so the counter is remounted.
  await writeFile(join(dir, name, "index.tsx"), counter("three", true));
  await poll(() => shown(page, root)).toEqual({
    text: "three",
    count: "0",
    color: "rgb(0, 0, 255)",
  });
  // And it still counts, in the new version.
  await page.click(`${root} button`);
  await poll(() => shown(page, root)).toMatchObject({ text: "three", count: "1" });
  expect(errors).toEqual([]);
}

/** A page of the loader's development build following live reload, with `body`. */
const loaderPage = (body: string) =>
  `<!doctype html><html><head><meta charset="utf-8"></head><body>${body}<script src="/api/loader.dev.js" data-svc-live></script></body></html>`;

let devLoaderScript: string;
let islandsScript: string;

/** An Express app with svc at `/api` (live) and a loader page of `body`: the page's URL. */
async function expressLoaderPage(registry: ComponentRegistry, body: string): Promise<string> {
  const svc = svcExpress(registry, { live: true, devLoaderScript, logger: silentLogger });
  const app = express();
  app.use("/api", svc);
  app.get("/page.html", (_req, res) => {
    res.type("html").send(loaderPage(body));
  });
  return `${await listen(app, svc)}/page.html`;
}

beforeAll(async () => {
  ({ development: devLoaderScript, islands: islandsScript } = await buildLoaderOnce());
});

describe("React Fast Refresh on a loader page", () => {
  it("on Express: state kept across a text and a CSS edit, remounted when a hook is added", async () => {
    const { dir, registry } = await counterDir("counter");
    const url = await expressLoaderPage(
      registry,
      '<div id="c" data-svc-component="counter"></div>',
    );
    await keepsState(url, dir, "counter", "#c");
  });

  it("remounts a module that exports something other than components (React's rule)", async () => {
    const { dir, registry } = await counterDir("counter");
    const withConstant = (text: string) => `${counter(text)}export const TITLE = "counter";\n`;
    await writeFile(join(dir, "counter", "index.tsx"), withConstant("one"));
    const url = await expressLoaderPage(
      registry,
      '<div id="c" data-svc-component="counter"></div>',
    );
    const { page, errors } = await countedTo3(url, "#c");
    await writeFile(join(dir, "counter", "index.tsx"), withConstant("two"));
    await poll(() => shown(page, "#c")).toMatchObject({ text: "two", count: "0" });
    expect(errors).toEqual([]);
  });

  it("re-renders the importers of an edited module of non-components, keeping their state", async () => {
    const { dir, registry } = await counterDir("counter");
    const withLabel = counter("one")
      .replace("import styles", 'import { LABEL } from "./label.ts";\nimport styles')
      .replace('<span className="text">one</span>', '<span className="text">{LABEL}</span>');
    await writeFiles(dir, {
      "counter/index.tsx": withLabel,
      "counter/label.ts": 'export const LABEL = "one";\n',
    });
    const url = await expressLoaderPage(
      registry,
      '<div id="c" data-svc-component="counter"></div>',
    );
    const { page, errors } = await countedTo3(url, "#c");
    await writeFile(join(dir, "counter", "label.ts"), 'export const LABEL = "two";\n');
    await poll(() => shown(page, "#c")).toMatchObject({ text: "two", count: "3" });
    expect(errors).toEqual([]);
  });

  it("on Fastify: the same", async () => {
    const { dir, registry } = await counterDir("counter");
    const app = Fastify();
    await app.register(svcFastify, {
      prefix: "/api",
      registry,
      live: true,
      devLoaderScript,
      logger: silentLogger,
    });
    app.get("/page.html", (_req, reply) => {
      reply.type("text/html").send(loaderPage('<div id="c" data-svc-component="counter"></div>'));
    });
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    suite.after(() => app.close());
    await keepsState(`${url}/page.html`, dir, "counter", "#c");
  });

  it("a hydrated island (server-rendered, then hydrated by loader.dev.js): the same", async () => {
    const { dir, registry } = await counterDir("counter");
    const svc = svcExpress(registry, { live: true, devLoaderScript, logger: silentLogger });
    const app = express();
    app.use("/api", svc);
    app.get("/island.html", async (_req, res) => {
      const island = await svc.island("counter");
      res.type("html").send(loaderPage(`<div id="c">${island}</div>`));
    });
    await keepsState(`${await listen(app, svc)}/island.html`, dir, "counter", "#c");
  });

  it("an island started by islands.js with data-svc-live (it fetches loader.dev.js): the same", async () => {
    const { dir, registry } = await counterDir("counter");
    const svc = svcExpress(registry, {
      live: true,
      devLoaderScript,
      islandsScript,
      logger: silentLogger,
    });
    const app = express();
    const loaders: string[] = [];
    app.use((req, _res, next) => {
      if (/\/loader(\.dev)?\.js$/.test(req.path)) loaders.push(req.path);
      next();
    });
    app.use("/api", svc);
    app.get("/island.html", async (_req, res) => {
      const island = await svc.island("counter", {}, { hydrate: "visible" });
      res
        .type("html")
        .send(
          `<!doctype html><html><body><div id="c">${island}</div><script src="/api/islands.js" data-svc-live></script></body></html>`,
        );
    });
    await keepsState(`${await listen(app, svc)}/island.html`, dir, "counter", "#c");
    expect(loaders).toEqual(["/api/loader.dev.js"]);
  });
});

describe("React Fast Refresh with @svc/react", () => {
  it("a useComponent host (<SvcProvider live>, refresh.js before the app): the same", async () => {
    const { dir, registry } = await counterDir("card");
    const app = await bundleApp(new URL("./fixtures/liveCardApp.tsx", import.meta.url));
    const pages = appPages(app);
    const server = await suite.server({
      registry,
      handlerOptions: { logger: silentLogger },
      pages: {
        ...pages,
        "/app.html": {
          // The runtime first: a classic script runs before the app's module evaluates React.
          body: pages["/app.html"].body.replace(
            "<body>",
            '<body><script src="/api/refresh.js"></script>',
          ),
        },
      },
    });
    await keepsState(`${server.url}/app.html`, dir, "card", "#card");
  });

  it("the playground: the same", async () => {
    const [{ dir, registry }] = await Promise.all([counterDir("counter"), buildPlayground()]);
    const dev: DevServer = await startDevServer({ ...QUIET_DEV_SERVER, registry });
    suite.after(() => dev.close());
    await keepsState(`${dev.url}/#/counter`, dir, "counter", ".pg-stage");
  });
});
