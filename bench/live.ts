/**
 * Live reload (issue 14): a file saved → the page shows the new render, in real Chromium, with
 * the page and svc served by an Express app through the bridge (not `svc serve`), the loader's
 * `data-svc-live` following `/api/events`. Median of 25 saves (after 3 warm-ups); target
 * ≤ 100 ms (Vite's HMR is the reference). Where the time goes, per save, from four clocks
 * on one machine (`Date.now()` in Node and in the page):
 *
 * - save → change event sent: the watcher's event, the rebuild to learn the hash (the quiet
 *   time after the event overlaps it);
 * - event sent → event in the page: the stream;
 * - event in the page → bundle requested: the client's reaction;
 * - bundle requested → new render on screen: the answer, evaluation and React's render.
 *
 * Then 25 saves of a shared file outside the source root that the card imports
 * (`shared/word.ts`), which the dev cache's watches of the bundle's inputs hear: save → new
 * render, same target.
 *
 * Last, React Fast Refresh on a loader page and in the playground against Vite's HMR on the
 * same counter, in turn (`fastRefresh.ts`).
 *
 * `npm run bench -- live`.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ComponentRegistry, createHandlers, createLiveReload, silentLogger } from "@svc/server";
import { svcExpress } from "@svc/server/express";
import express from "express";
import { launchBrowser } from "../test/browser/helpers.ts";
import { benchFastRefresh } from "./fastRefresh.ts";
import { median, type Row } from "./lib.ts";

const SAVES = 25;
const WARM_UPS = 3;

/** The card: a file of the component, and a shared helper outside the source root. */
const card = (version: number) =>
  `import { word } from "../../shared/word";\nexport default function Card() {\n  return <p id="card">version ${version} {word}</p>;\n}\n`;
const word = (version: number) => `export const word = "w${version}";\n`;

export async function benchLive(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "svc-live-"));
  const browser = await launchBrowser();
  let server: Server | undefined;
  try {
    writeFileSync(join(root, "package.json"), '{ "name": "bench-live", "private": true }\n');
    mkdirSync(join(root, "components/card"), { recursive: true });
    writeFileSync(join(root, "components/card/index.tsx"), card(0));
    mkdirSync(join(root, "shared"), { recursive: true });
    writeFileSync(join(root, "shared/word.ts"), word(0));

    const handlers = createHandlers(
      new ComponentRegistry(join(root, "components"), { logger: silentLogger }),
      { logger: silentLogger },
    );
    const live = createLiveReload(handlers);
    const sent = new Map<string, number>();
    live.subscribe((event) => {
      if (event.type === "change") sent.set(event.hash, Date.now());
    });
    const requested = new Map<string, number>();
    const app = express();
    app.use("/api", (req, _res, next) => {
      const hash = /^\/bundles\/card\.js\?([0-9a-f]+)$/.exec(req.url)?.[1];
      if (hash !== undefined && !requested.has(hash)) requested.set(hash, Date.now());
      next();
    });
    app.use("/api", svcExpress(handlers, { live }));
    app.get("/", (_req, res) => {
      res.type("html").send(`<!doctype html><html><body>
<div data-svc-component="card"></div>
<script src="/api/loader.js" data-svc-api="/api" data-svc-live></script>
</body></html>`);
    });
    const listening = app.listen(0, "127.0.0.1");
    server = listening;
    await new Promise((resolve) => listening.once("listening", resolve));
    const { port } = listening.address() as AddressInfo;

    const page = await browser.newPage();
    // The page's own clocks: when a change event arrives, when the text changes.
    await page.addInitScript(() => {
      const marks = { events: {} as Record<string, number>, renders: {} as Record<string, number> };
      (window as unknown as { marks: typeof marks }).marks = marks;
      const source = new EventSource("/api/events");
      source.onmessage = ({ data }) => {
        const event = JSON.parse(data) as { type: string; hash?: string };
        if (event.type === "change" && event.hash) marks.events[event.hash] = Date.now();
      };
      new MutationObserver(() => {
        const text = document.getElementById("card")?.textContent;
        if (text && marks.renders[text] === undefined) marks.renders[text] = Date.now();
      }).observe(document, { subtree: true, childList: true, characterData: true });
    });
    await page.goto(`http://127.0.0.1:${port}/`);
    await page.waitForFunction(
      () => document.getElementById("card")?.textContent === "version 0 w0",
    );

    const totals: number[] = [];
    const phases = {
      detect: [] as number[],
      stream: [] as number[],
      react: [] as number[],
      render: [] as number[],
    };
    for (let i = 1; i <= WARM_UPS + SAVES; i++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const savedAt = Date.now();
      writeFileSync(join(root, "components/card/index.tsx"), card(i));
      const text = `version ${i} w0`;
      await page.waitForFunction((t) => document.getElementById("card")?.textContent === t, text, {
        timeout: 10_000,
      });
      const marks = await page.evaluate(
        () =>
          (
            window as unknown as {
              marks: { events: Record<string, number>; renders: Record<string, number> };
            }
          ).marks,
      );
      const rendered = marks.renders[text] as number;
      const hash = [...sent.entries()].find(([, at]) => at >= savedAt)?.[0];
      if (i <= WARM_UPS || hash === undefined) continue;
      const eventSent = sent.get(hash) as number;
      const eventSeen = marks.events[hash] ?? eventSent;
      const bundleAsked = requested.get(hash) ?? eventSeen;
      totals.push(rendered - savedAt);
      phases.detect.push(eventSent - savedAt);
      phases.stream.push(eventSeen - eventSent);
      phases.react.push(bundleAsked - eventSeen);
      phases.render.push(rendered - bundleAsked);
    }
    // The same, saving the shared helper outside the source root (`shared/word.ts`): heard
    // through the dev cache's watches of the bundle's inputs, not the source watcher.
    const outside: number[] = [];
    const last = WARM_UPS + SAVES;
    for (let j = 1; j <= WARM_UPS + SAVES; j++) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      const savedAt = Date.now();
      writeFileSync(join(root, "shared/word.ts"), word(j));
      const text = `version ${last} w${j}`;
      await page.waitForFunction((t) => document.getElementById("card")?.textContent === t, text, {
        timeout: 10_000,
      });
      const rendered = await page.evaluate(
        (t) =>
          (window as unknown as { marks: { renders: Record<string, number> } }).marks.renders[t],
        text,
      );
      if (j > WARM_UPS && rendered !== undefined) outside.push(rendered - savedAt);
    }
    const total = median(totals);
    const outsideTotal = median(outside);
    const label = `live reload through the Express bridge: a save → the new render in Chromium (median of ${totals.length})`;
    return [
      { name: label, value: total, unit: "ms", target: "≤ 100 ms", ok: total <= 100 },
      {
        name: "  of which: save → change event sent (watcher, rebuild, quiet time)",
        value: median(phases.detect),
        unit: "ms",
      },
      {
        name: "  of which: event sent → event in the page (the stream)",
        value: median(phases.stream),
        unit: "ms",
      },
      {
        name: "  of which: event in the page → bundle requested (the client)",
        value: median(phases.react),
        unit: "ms",
      },
      {
        name: "  of which: bundle requested → new render (answer, evaluation, React)",
        value: median(phases.render),
        unit: "ms",
      },
      {
        name: `live reload, a save of a shared file outside the source root that the card imports → the new render (median of ${outside.length})`,
        value: outsideTotal,
        unit: "ms",
        target: "≤ 100 ms",
        ok: outsideTotal <= 100,
      },
      // React Fast Refresh against Vite's, in turn in the same Chromium (fastRefresh.ts).
      ...(await benchFastRefresh(browser)),
    ];
  } finally {
    await browser.close();
    await new Promise((resolve) => (server ? server.close(resolve) : resolve(undefined)));
    rmSync(root, { recursive: true, force: true });
  }
}
