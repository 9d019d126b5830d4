/**
 * React Fast Refresh against Vite's (issue 36): the same counter, in the same Chromium, saved
 * in turn — on a loader page (`loader.dev.js`, `data-svc-live`, svc through the Express
 * bridge), in the playground of `svc serve` (`/#/counter`), and in a Vite 8 dev server with
 * `@vitejs/plugin-react` — `SAVES` times each after `WARM_UPS`. Each: the counter is at 1
 * (clicked once), the file is saved with a new text, and the time from the save to the new
 * text on screen is taken by the page's clock; the count must still be 1 (state kept). Part of
 * `npm run bench -- live`; `npm run bench -- fastRefresh` runs it alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ComponentRegistry, silentLogger, startDevServer } from "@svc/server";
import { svcExpress } from "@svc/server/express";
import react from "@vitejs/plugin-react";
import express from "express";
import type { Browser, Page } from "playwright-core";
import { createServer } from "vite";
import { buildPlayground } from "../packages/server/playground/build.ts";
import { launchBrowser } from "../test/browser/helpers.ts";
import { median, type Row } from "./lib.ts";

const SAVES = 20;
const WARM_UPS = 3;

const counter = (version: number) => `import { useState } from "react";

export default function Counter() {
  const [count, setCount] = useState(0);
  return (
    <button id="counter" type="button" onClick={() => setCount(count + 1)}>
      <span id="text">version ${version}</span> <span id="count">{count}</span>
    </button>
  );
}
`;

/** One side of the comparison: where its page is, and the file a save writes. */
interface Side {
  url: string;
  file: string;
  close(): Promise<void>;
}

/** A components directory under `root` with the counter as `counter`: the directory, the file. */
function counterComponents(root: string): { components: string; file: string } {
  const components = join(root, "components");
  mkdirSync(join(components, "counter"), { recursive: true });
  const file = join(components, "counter/index.tsx");
  writeFileSync(file, counter(0));
  return { components, file };
}

async function loaderPageSide(root: string): Promise<Side> {
  const { components, file } = counterComponents(root);
  const svc = svcExpress(new ComponentRegistry(components, { logger: silentLogger }), {
    live: true,
    logger: silentLogger,
  });
  const app = express();
  app.use("/api", svc);
  app.get("/", (_req, res) => {
    res
      .type("html")
      .send(
        '<!doctype html><html><body><div data-svc-component="counter"></div><script src="/api/loader.dev.js" data-svc-live></script></body></html>',
      );
  });
  const server: Server = app.listen(0, "127.0.0.1");
  await new Promise((resolve) => server.once("listening", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/`,
    file,
    async close() {
      svc.close();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** `svc serve`'s playground showing the counter (`/#/counter`), started as its tests start it. */
async function playgroundSide(root: string): Promise<Side> {
  const { components, file } = counterComponents(root);
  await buildPlayground();
  const dev = await startDevServer({
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger,
    logRequests: false,
    registry: new ComponentRegistry(components, { logger: silentLogger }),
  });
  return { url: `${dev.url}/#/counter`, file, close: () => dev.close() };
}

async function viteSide(root: string): Promise<Side> {
  const file = join(root, "Counter.tsx");
  writeFileSync(file, counter(0));
  writeFileSync(
    join(root, "main.tsx"),
    'import { createRoot } from "react-dom/client";\nimport Counter from "./Counter.tsx";\ncreateRoot(document.getElementById("root")!).render(<Counter />);\n',
  );
  writeFileSync(
    join(root, "index.html"),
    '<!doctype html><html><body><div id="root"></div><script type="module" src="/main.tsx"></script></body></html>',
  );
  const server = await createServer({
    root,
    configFile: false,
    logLevel: "silent",
    cacheDir: join(root, ".vite"),
    plugins: [react()],
    server: { host: "127.0.0.1", port: 0, strictPort: false },
  });
  await server.listen();
  const url = server.resolvedUrls?.local[0];
  if (url === undefined) throw new Error("vite: no local URL");
  return { url, file, close: () => server.close() };
}

/** Opens `side`'s page with the counter clicked to 1 and the page's clock on the text. */
async function openCounter(browser: Browser, side: Side): Promise<Page> {
  const page = await browser.newPage();
  await page.addInitScript(() => {
    const seen: Record<string, number> = {};
    (window as unknown as { seen: typeof seen }).seen = seen;
    new MutationObserver(() => {
      const text = document.getElementById("text")?.textContent;
      if (text && seen[text] === undefined) seen[text] = Date.now();
    }).observe(document, { subtree: true, childList: true, characterData: true });
  });
  await page.goto(side.url);
  await page.waitForFunction(() => document.getElementById("text")?.textContent === "version 0", {
    timeout: 30_000,
  });
  await page.click("#counter");
  await page.waitForFunction(() => document.getElementById("count")?.textContent === "1");
  return page;
}

/** Saves version `version` of `side`'s counter: ms to the new text, and whether the count stayed. */
async function save(page: Page, side: Side, version: number): Promise<[number, boolean]> {
  await new Promise((resolve) => setTimeout(resolve, 250));
  const savedAt = Date.now();
  writeFileSync(side.file, counter(version));
  const text = `version ${version}`;
  await page.waitForFunction((t) => document.getElementById("text")?.textContent === t, text, {
    timeout: 10_000,
  });
  const [shownAt, count] = await page.evaluate(
    (t) => [
      (window as unknown as { seen: Record<string, number> }).seen[t] as number,
      document.getElementById("count")?.textContent,
    ],
    text,
  );
  return [shownAt - savedAt, count === "1"];
}

/** The sides, in the order they take turns; the last is the baseline. */
const SIDES = [
  {
    name: "loader",
    start: loaderPageSide,
    label: "Fast Refresh, a loader page (loader.dev.js, Express): a save → the new text",
  },
  {
    name: "playground",
    start: playgroundSide,
    label: "Fast Refresh, the playground of svc serve (/#/counter): a save → the new text",
  },
  {
    name: "vite",
    start: viteSide,
    label: "  baseline: Vite 8 + @vitejs/plugin-react, the same counter in turn",
  },
] as const;

export async function benchFastRefresh(browser: Browser): Promise<Row[]> {
  // Inside the repository, so Vite resolves React from its node_modules.
  const root = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".fast-refresh-"));
  const sides: Side[] = [];
  try {
    for (const { name, start } of SIDES) {
      mkdirSync(join(root, name));
      sides.push(await start(join(root, name)));
    }
    const pages: Page[] = [];
    for (const side of sides) pages.push(await openCounter(browser, side));
    const times = sides.map((): number[] => []);
    const kept = sides.map(() => 0);
    for (let i = 1; i <= WARM_UPS + SAVES; i++) {
      for (let s = 0; s < sides.length; s++) {
        const [ms, stateKept] = await save(pages[s] as Page, sides[s] as Side, i);
        if (i <= WARM_UPS) continue;
        (times[s] as number[]).push(ms);
        if (stateKept) kept[s] = (kept[s] ?? 0) + 1;
      }
    }
    const medians = times.map((ms) => median(ms));
    const viteMs = medians[medians.length - 1] as number;
    return SIDES.map(({ label }, s) => {
      const ms = medians[s] as number;
      const name = `${label}, state kept in ${kept[s]} of ${SAVES} (median)`;
      if (s === SIDES.length - 1) return { name, value: ms, unit: "ms" };
      return {
        name,
        value: ms,
        unit: "ms",
        baseline: viteMs,
        ratio: ms / viteMs,
        target: "≤ 1.0× Vite",
        ok: ms <= viteMs,
      };
    });
  } finally {
    for (const side of sides) await side.close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
}

/** `npm run bench -- fastRefresh`: the comparison alone, in a Chromium of its own. */
export async function benchFastRefreshAlone(): Promise<Row[]> {
  const browser = await launchBrowser();
  try {
    return await benchFastRefresh(browser);
  } finally {
    await browser.close();
  }
}
