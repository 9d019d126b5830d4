/**
 * React Fast Refresh against Vite's (issue 36): the same counter, in the same Chromium, saved
 * in turn — once on a loader page (`loader.dev.js`, `data-svc-live`, svc through the Express
 * bridge), once in a Vite 8 dev server with `@vitejs/plugin-react` — `SAVES` times each after
 * `WARM_UPS`. Each: the counter is at 1 (clicked once), the file is saved with a new text, and
 * the time from the save to the new text on screen is taken by the page's clock; the count
 * must still be 1 (state kept). Part of `npm run bench -- live`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ComponentRegistry, silentLogger } from "@svc/server";
import { svcExpress } from "@svc/server/express";
import react from "@vitejs/plugin-react";
import express from "express";
import type { Browser, Page } from "playwright-core";
import { createServer } from "vite";
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

async function svcSide(root: string): Promise<Side> {
  const components = join(root, "components");
  mkdirSync(join(components, "counter"), { recursive: true });
  const file = join(components, "counter/index.tsx");
  writeFileSync(file, counter(0));
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

export async function benchFastRefresh(browser: Browser): Promise<Row[]> {
  // Inside the repository, so Vite resolves React from its node_modules.
  const root = mkdtempSync(join(fileURLToPath(new URL(".", import.meta.url)), ".fast-refresh-"));
  const sides: Side[] = [];
  try {
    mkdirSync(join(root, "svc"));
    mkdirSync(join(root, "vite"));
    const svc = await svcSide(join(root, "svc"));
    sides.push(svc);
    const vite = await viteSide(join(root, "vite"));
    sides.push(vite);
    const pages = [await openCounter(browser, svc), await openCounter(browser, vite)] as const;
    const times: [number[], number[]] = [[], []];
    const kept = [0, 0];
    for (let i = 1; i <= WARM_UPS + SAVES; i++) {
      for (const s of [0, 1] as const) {
        const [ms, stateKept] = await save(pages[s], [svc, vite][s] as Side, i);
        if (i <= WARM_UPS) continue;
        times[s].push(ms);
        if (stateKept) kept[s] = (kept[s] ?? 0) + 1;
      }
    }
    const [svcMs, viteMs] = [median(times[0]), median(times[1])];
    return [
      {
        name: `Fast Refresh, a loader page (loader.dev.js, Express): a save → the new text, state kept in ${kept[0]} of ${SAVES} (median)`,
        value: svcMs,
        unit: "ms",
        baseline: viteMs,
        ratio: svcMs / viteMs,
        target: "≤ 1.0× Vite",
        ok: svcMs <= viteMs,
      },
      {
        name: `  baseline: Vite 8 + @vitejs/plugin-react, the same counter in turn, state kept in ${kept[1]} of ${SAVES} (median)`,
        value: viteMs,
        unit: "ms",
      },
    ];
  } finally {
    for (const side of sides) await side.close().catch(() => {});
    rmSync(root, { recursive: true, force: true });
  }
}
