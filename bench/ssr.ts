/**
 * Islands, server rendering (issue 17): `npm run bench -- ssr`.
 *
 * Rows, in order:
 *
 * - Warm render of the store's product card through svc in its default mode, in this thread
 *   (`handlers.renderIsland` of a development handler set: the bundles' and `schema.json`'s
 *   freshness checks, props checked against the schema, the render, the island's container,
 *   escaped props and stylesheet link) against React's `renderToString` of the same component
 *   imported in this process (built by esbuild for Node), same props. One render at a time,
 *   and 64 at once (a page of islands): per-render time, median of batches; and the CPU time of
 *   the process's threads per render, 64 at once. Each round runs both sides back to back,
 *   in turn first; the ratio is the median of the rounds' own ratios.
 * - The same, one at a time, in production: a handler set serving the store's `svc build`
 *   output (server bundles read once and kept; the sources beside it, so `schema.json` is
 *   still checked once a turn).
 * - The floor (informational): `renderToString` of the card and the least any island adds to
 *   it (its props as JSON in the container, the check for resource hints, the boundary's
 *   markers, one await of a promise), against `renderToString` alone — how close to 1× an
 *   island's render can come at all.
 * - React's own cost per call (informational): `renderToString` of an empty `<div>` against
 *   that of the card — the fixed part of every render (React's request and render state,
 *   its flush), which an island rendered on its own pays in full, as the direct render does.
 * - The same, one at a time, with `renderIsolation: "worker"` (informational: no target; the
 *   round trip between threads alone costs several times the direct render).
 * - Cold render (a new handler set: the browser bundle built, the server bundle made from it
 *   with one `esbuild.transform` and evaluated, the card rendered; React was loaded by an earlier handler set, as it is once
 *   per process) against a cold browser bundle (a new handler set's first `getBundle`). And
 *   the same with `renderIsolation: "worker"` (informational: a new worker loads React).
 * - A page of 20 product cards in Chromium under 4× CPU throttling and 100 ms latency (CDP):
 *   server-rendered islands hydrated on `visible`, the page starting with `islands.js` (which
 *   fetches the loader when a first card comes into view), against 20 empty containers the
 *   loader renders. First contentful paint, and bytes of JavaScript transferred until the page is
 *   loaded and its network idle, before any interaction. Twice: the cards in the first screen
 *   (a product list), and below a first screen of text (none in view until the reader
 *   scrolls).
 *
 * React runs with NODE_ENV=production (unless set otherwise), in this process and in the
 * render worker alike, as a production server would.
 *
 * The direct render and the in-process renders run in the same loop turn (nothing in them
 * waits on I/O), so the handler set's per-turn freshness checks of the bundles and of
 * `schema.json` run once per batch, not per render; the props are checked on every render.
 */

import { mkdtempSync, rmSync } from "node:fs";
import { createServer } from "node:http";
import { createRequire } from "node:module";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  build,
  ComponentRegistry,
  createHandlers,
  createNodeHandler,
  type Handlers,
  parseComponentName,
  type RenderIsolation,
  silentLogger,
} from "@svc/server";
import * as esbuild from "esbuild";
import { withLatency } from "../test/browser/helpers.ts";
import { median, type Row, timeMs } from "./lib.ts";

const COMPONENTS = fileURLToPath(new URL("../examples/store/components", import.meta.url));
const PRODUCT = parseComponentName("product");
const PROPS = {
  name: "Stoneware Mug",
  price: 14.5,
  description: "A hand-glazed 350 ml mug that keeps coffee warm through a long meeting.",
  url: "/products/1",
};

const require = createRequire(import.meta.url);

/** `renderToString` of the product card imported directly, its goober rules extracted. */
async function directRender(): Promise<() => string> {
  const React = require("react") as typeof import("react");
  const { renderToString } = require("react-dom/server") as typeof import("react-dom/server");
  const goober = require("goober") as typeof import("goober");
  goober.setup(React.createElement);
  const built = await esbuild.build({
    entryPoints: [join(COMPONENTS, "product", "index.tsx")],
    bundle: true,
    write: false,
    format: "cjs",
    platform: "node",
    target: "node22",
    jsx: "automatic",
    external: ["react", "react/jsx-runtime", "react-dom", "goober"],
    // The card imports a CSS module: esbuild needs somewhere to put its CSS (not written).
    outdir: join(tmpdir(), "svc-bench-ssr"),
    define: { "process.env.NODE_ENV": JSON.stringify(process.env.NODE_ENV) },
    logLevel: "silent",
  });
  const module = { exports: {} as { default: import("react").ComponentType<typeof PROPS> } };
  const script = built.outputFiles.find((file) => file.path.endsWith(".js"));
  new Function("module", "exports", "require", script?.text ?? "")(module, module.exports, require);
  const Product = module.exports.default;
  return () => renderToString(React.createElement(Product, PROPS)) + goober.extractCss();
}

/** `renderToString` of an empty `<div>`: what React costs per call whatever it renders. */
function emptyRender(): () => string {
  const React = require("react") as typeof import("react");
  const { renderToString } = require("react-dom/server") as typeof import("react-dom/server");
  return () => renderToString(React.createElement("div"));
}

function storeHandlers(renderIsolation: RenderIsolation = "none"): Handlers {
  return createHandlers(new ComponentRegistry(COMPONENTS, { logger: silentLogger }), {
    logger: silentLogger,
    renderIsolation,
  });
}

/**
 * The least an island adds to `renderToString`'s `html`, whoever renders it: the container
 * with the props as JSON in an attribute (checked for what it must escape), the look for
 * resource hints React put first, the markers of the boundary the browser hydrates, and — the
 * render being an API that returns a promise — one await. What the floor row measures.
 */
function islandFloor(html: string): string {
  const props = JSON.stringify(PROPS);
  const escaped = /[&<>']/.test(props) ? props.replaceAll("'", "&#39;") : props;
  // (The card puts none first: with hints, they would go ahead of the boundary's markers.)
  const inner = /^<(?:link |meta |title>|script )/.test(html) ? html : `<!--$-->${html}<!--/$-->`;
  return `<div data-svc-component="product" data-svc-props='${escaped}' data-svc-ssr="">${inner}</div>`;
}

async function warmRender(): Promise<Row[]> {
  const direct = await directRender();
  const empty = emptyRender();
  const handlers = storeHandlers();
  const workerHandlers = storeHandlers("worker");
  // Production: the store's `svc build` output, its sources beside it (schema.json still read).
  const registry = new ComponentRegistry(COMPONENTS, { logger: silentLogger });
  const buildDir = mkdtempSync(join(tmpdir(), "svc-bench-ssr-build-"));
  await build({ registry, outDir: buildDir });
  const built = createHandlers(registry, { logger: silentLogger, buildDir });
  const svc = () => handlers.renderIsland(PRODUCT, PROPS);
  const floor = async () => islandFloor(direct());
  const inWorker = () => workerHandlers.renderIsland(PRODUCT, PROPS);
  const fromBuild = () => built.renderIsland(PRODUCT, PROPS);
  for (const html of [await svc(), await inWorker(), await fromBuild(), direct()]) {
    // bundles built, the worker started
    if (!html.includes("Stoneware Mug")) {
      throw new Error("ssr bench: the product card did not render its name");
    }
  }
  const batch = 200;
  const concurrent = 64;
  const directTimes: number[] = [];
  const serialTimes: number[] = [];
  const builtTimes: number[] = [];
  const floorTimes: number[] = [];
  const emptyTimes: number[] = [];
  const workerTimes: number[] = [];
  const concurrentTimes: number[] = [];
  const directCpu: number[] = [];
  const concurrentCpu: number[] = [];
  /** CPU time of every thread of the process (µs): esbuild's service is idle, no worker. */
  const cpu = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  for (let round = 0; round < 24; round++) {
    let d = 0;
    let s = 0;
    let b = 0;
    let f = 0;
    let e = 0;
    const runDirect = async () => {
      const dCpu = cpu();
      d = await timeMs(async () => {
        for (let i = 0; i < batch; i++) direct();
      });
      directCpu.push((cpu() - dCpu) / batch);
    };
    const runSvc = async () => {
      s = await timeMs(async () => {
        for (let i = 0; i < batch; i++) await svc();
      });
    };
    const runBuilt = async () => {
      b = await timeMs(async () => {
        for (let i = 0; i < batch; i++) await fromBuild();
      });
    };
    const runFloor = async () => {
      f = await timeMs(async () => {
        for (let i = 0; i < batch; i++) await floor();
      });
    };
    const runEmpty = async () => {
      e = await timeMs(async () => {
        for (let i = 0; i < batch; i++) empty();
      });
    };
    // In turn first: whatever one leaves behind (garbage to collect) weighs on each alike.
    const runs = [runDirect, runSvc, runBuilt, runFloor, runEmpty];
    for (let i = 0; i < runs.length; i++)
      await (runs[(round + i) % runs.length] as () => Promise<void>)();
    const w = await timeMs(async () => {
      for (let i = 0; i < batch; i++) await inWorker();
    });
    const cCpu = cpu();
    const c = await timeMs(async () => {
      for (let i = 0; i < batch; i += concurrent) {
        await Promise.all(Array.from({ length: concurrent }, svc));
      }
    });
    concurrentCpu.push((cpu() - cCpu) / (Math.ceil(batch / concurrent) * concurrent));
    if (round < 4) {
      directCpu.pop();
      concurrentCpu.pop();
      continue; // warm-up: JIT on both sides
    }
    directTimes.push((d / batch) * 1000);
    serialTimes.push((s / batch) * 1000);
    builtTimes.push((b / batch) * 1000);
    floorTimes.push((f / batch) * 1000);
    emptyTimes.push((e / batch) * 1000);
    workerTimes.push((w / batch) * 1000);
    concurrentTimes.push((c / (Math.ceil(batch / concurrent) * concurrent)) * 1000);
  }
  rmSync(buildDir, { recursive: true, force: true });
  // The ratio is the median of each round's own ratio: the host's speed moves between rounds
  // (by 2× on a shared machine), hardly within one, where both sides ran back to back.
  const row = (name: string, times: number[], baselines = directTimes): Row => {
    const value = median(times);
    const ratio = median(times.map((time, i) => time / (baselines[i] as number)));
    const baseline = median(baselines);
    return { name, value, unit: "µs/render", baseline, ratio, target: "≤ 1.2×", ok: ratio <= 1.2 };
  };
  return [
    row(
      "warm render, store product card, one at a time, development (svc renderIsland in process vs renderToString in process)",
      serialTimes,
    ),
    row(
      "warm render, store product card, one at a time, production (a handler set serving the svc build directory) vs renderToString in process",
      builtTimes,
    ),
    row(
      `warm render, store product card, ${concurrent} at once (svc renderIsland in process vs renderToString in process)`,
      concurrentTimes,
    ),
    {
      ...row(
        `warm render, store product card, ${concurrent} at once — CPU time of all threads per render`,
        concurrentCpu,
        directCpu,
      ),
      unit: "µs CPU/render",
    },
    {
      ...row(
        "warm render floor: renderToString and what any island adds to it — its props as JSON in the container, the check for hints, a promise — vs renderToString (informational)",
        floorTimes,
      ),
      target: undefined,
      ok: undefined,
    },
    {
      ...row(
        "React's own cost per call: renderToString of an empty <div> vs renderToString of the card (informational; the part of the card's render no island can spread or skip)",
        emptyTimes,
      ),
      target: undefined,
      ok: undefined,
    },
    {
      ...row(
        "warm render, store product card, one at a time, renderIsolation: worker (informational)",
        workerTimes,
      ),
      target: undefined,
      ok: undefined,
    },
  ];
}

async function coldRender(): Promise<Row[]> {
  // One registry, as a running server has discovered its components already: a cold render
  // is a new handler set (empty bundle caches; in the worker mode, a new render worker).
  const registry = new ComponentRegistry(COMPONENTS, { logger: silentLogger });
  const fresh = (renderIsolation: RenderIsolation = "none") =>
    createHandlers(registry, { logger: silentLogger, renderIsolation });
  const render = () => fresh().renderIsland(PRODUCT, PROPS);
  // Each leaves an idle, unreferenced worker behind, as before this mode was opt-in.
  const inWorker = () => fresh("worker").renderIsland(PRODUCT, PROPS);
  const bundle = () => fresh().getBundle(PRODUCT);
  for (let i = 0; i < 2; i++) {
    await bundle();
    await render();
    await inWorker();
  }
  const renderTimes: number[] = [];
  const workerTimes: number[] = [];
  const bundleTimes: number[] = [];
  for (let i = 0; i < 15; i++) {
    bundleTimes.push(await timeMs(bundle));
    renderTimes.push(await timeMs(render));
    if (i % 3 === 0) workerTimes.push(await timeMs(inWorker));
  }
  const value = median(renderTimes);
  const baseline = median(bundleTimes);
  const ratio = value / baseline;
  const worker = median(workerTimes);
  return [
    {
      name: "cold render, store product card (new handler set: browser bundle built, server bundle made from it and evaluated, rendered in process) vs cold browser bundle",
      value,
      unit: "ms",
      baseline,
      ratio,
      target: "≤ 1.5×",
      ok: ratio <= 1.5,
    },
    {
      name: "cold render, store product card, renderIsolation: worker (a new worker loads React) vs cold browser bundle (informational)",
      value: worker,
      unit: "ms",
      baseline,
      ratio: worker / baseline,
    },
  ];
}

const ISLANDS = 20;

function propsOf(i: number) {
  return { name: `Product ${i + 1}`, price: 10 + i * 2.5, url: `/products/${i + 1}` };
}

/**
 * `"top"`: the cards fill the first screen (a product list); `"below"`: they follow a screen
 * of text, so none is in view before the reader scrolls.
 */
type Layout = "top" | "below";

/**
 * The page: client-only pages start with the loader; server-rendered ones with `islands.js`,
 * which fetches the loader when a first island is to hydrate (docs/ISLANDS.md).
 */
function page(islands: string, layout: Layout, script: "loader.js" | "islands.js"): string {
  const intro =
    layout === "below"
      ? '<header style="height:100vh"><h1>Our shop</h1><p>Everything we sell, below.</p></header>'
      : "";
  return `<!doctype html><html><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Products</title><style>body{margin:0;font-family:sans-serif}main{display:grid;grid-template-columns:repeat(4,minmax(0,1fr));gap:16px;padding:16px}main>div{min-height:140px}</style></head><body>${intro}<main>${islands}</main><script src="/api/${script}" data-svc-api="/api" defer></script></body></html>`;
}

/** A real svc server: the API (bundles, the loader) at /api, and the two pages. */
async function startPageServer() {
  const handlers = createHandlers(new ComponentRegistry(COMPONENTS, { logger: silentLogger }), {
    logger: silentLogger,
    // As `svc build` writes them, so the JavaScript counted is what production sends.
    bundleOptions: { minify: true, sourcemap: false, mode: "production" },
  });
  const api = createNodeHandler(handlers, { prefix: "/api", live: false });
  const containers = Array.from(
    { length: ISLANDS },
    (_, i) =>
      `<div data-svc-component="product" data-svc-props="${JSON.stringify(propsOf(i)).replaceAll('"', "&quot;")}"></div>`,
  ).join("");
  const server = createServer((req, res) => {
    const send = (html: string) =>
      res
        .writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" })
        .end(html);
    if (req.url === "/favicon.ico") return res.writeHead(204).end();
    const [, mode, layout] = /^\/(client|ssr)\/(top|below)$/.exec(req.url ?? "") ?? [];
    if (mode === "client") return send(page(containers, layout as Layout, "loader.js"));
    if (mode === "ssr") {
      // Rendered per request, as a backend renders its page.
      void Promise.all(
        Array.from({ length: ISLANDS }, (_, i) =>
          handlers.renderIsland(PRODUCT, propsOf(i), { hydrate: "visible" }),
        ),
      ).then(
        (islands) => send(page(islands.join(""), layout as Layout, "islands.js")),
        (error: unknown) => res.writeHead(500).end(String(error)),
      );
      return;
    }
    api(req, res, () => res.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { base, close: () => new Promise((resolve) => server.close(resolve)) };
}

interface PageLoad {
  fcp: number;
  jsBytes: number;
  /** Contents of every product card on the page after load (checks that it rendered). */
  cards: number;
}

/** `hydrates`: the page's cards are to be rendered or hydrated before it counts as loaded. */
async function loadPage(
  browser: import("playwright-core").Browser,
  url: string,
  hydrates: boolean,
): Promise<PageLoad> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 720 } });
  try {
    const page = await context.newPage();
    const cdp = await withLatency(context, page, 100);
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    await cdp.send("Emulation.setCPUThrottlingRate", { rate: 4 });
    const scripts = new Set<string>();
    let jsBytes = 0;
    cdp.on("Network.responseReceived", (event) => {
      if (event.type === "Script" || /javascript/.test(event.response.mimeType)) {
        scripts.add(event.requestId);
      }
    });
    cdp.on("Network.loadingFinished", (event) => {
      if (scripts.has(event.requestId)) jsBytes += event.encodedDataLength;
    });
    const problems: string[] = [];
    page.on("pageerror", (error) => problems.push(error.message));
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") problems.push(message.text());
    });
    await page.goto(url, { waitUntil: "load" });
    // Every card is on the page and painted, and the loader ran where the cards need it…
    await page
      .waitForFunction(
        ({ count, hydrates }) =>
          (!hydrates || "svc" in window) &&
          document.querySelectorAll('[data-testid="product-card"]').length === count &&
          performance.getEntriesByName("first-contentful-paint").length > 0,
        { count: ISLANDS, hydrates },
        { timeout: 60_000 },
      )
      .catch(async (error: unknown) => {
        const state = await page.evaluate(() => ({
          loader: "svc" in window,
          cards: document.querySelectorAll('[data-testid="product-card"]').length,
          paints: performance.getEntriesByType("paint").map((e) => e.name),
        }));
        throw new Error(`ssr bench: ${url} did not finish: ${JSON.stringify(state)}`, {
          cause: error,
        });
      });
    // …and nothing more is fetched for a second: what the page needs before any interaction.
    let seen = -1;
    for (let quiet = 0; quiet < 1000; ) {
      const now = await page.evaluate(() => performance.getEntriesByType("resource").length);
      quiet = now === seen ? quiet + 100 : 0;
      seen = now;
      await page.waitForTimeout(100);
    }
    const fcp = await page.evaluate(
      () => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Number.NaN,
    );
    const cards = await page.locator('[data-testid="product-card"]').count();
    if (problems.length > 0) throw new Error(`ssr bench: ${url}: ${problems.join("; ")}`);
    return { fcp, jsBytes, cards };
  } finally {
    await context.close();
  }
}

async function islandPage(): Promise<Row[]> {
  const { chromium } = await import("playwright-core");
  const browser = await chromium.launch({
    executablePath: process.env.SVC_CHROMIUM ?? "/usr/bin/chromium",
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const server = await startPageServer();
  try {
    const rows: Row[] = [];
    for (const [layout, rounds, where] of [
      ["top", 9, "cards in the first screen"],
      ["below", 9, "cards below a first screen of text"],
    ] as const) {
      const loads = { ssr: [] as PageLoad[], client: [] as PageLoad[] };
      for (let round = 0; round < rounds; round++) {
        for (const mode of ["client", "ssr"] as const) {
          // Client-only cards need the loader; server-rendered ones in view hydrate at once.
          const hydrates = mode === "client" || layout === "top";
          const load = await loadPage(browser, `${server.base}/${mode}/${layout}`, hydrates);
          if (load.cards !== ISLANDS || !Number.isFinite(load.fcp)) {
            throw new Error(`ssr bench: /${mode}/${layout} showed ${load.cards} cards`);
          }
          if (round > 0) loads[mode].push(load); // the first round warms the server's caches
        }
      }
      const prefix = `${ISLANDS}-island page (${where}), Chromium, 4× CPU throttling, 100 ms latency`;
      const fcp = median(loads.ssr.map((l) => l.fcp));
      const fcpBase = median(loads.client.map((l) => l.fcp));
      const bytes = median(loads.ssr.map((l) => l.jsBytes));
      const bytesBase = median(loads.client.map((l) => l.jsBytes));
      rows.push(
        {
          name: `${prefix} — first contentful paint (SSR + visible vs client-only)`,
          value: fcp,
          unit: "ms",
          baseline: fcpBase,
          ratio: fcp / fcpBase,
          target: "< 1× (lower)",
          ok: fcp < fcpBase,
        },
        {
          name: `${prefix} — JavaScript before interaction (SSR + visible vs client-only)`,
          value: bytes / 1024,
          unit: "KiB",
          baseline: bytesBase / 1024,
          ratio: bytes / bytesBase,
          target: "< 1× (lower)",
          ok: bytes < bytesBase,
        },
      );
    }
    return rows;
  } finally {
    await server.close();
    await browser.close();
  }
}

/** The groups `SVC_BENCH_SSR=warm,cold,page` picks (default: all three). */
const GROUPS = { warm: warmRender, cold: coldRender, page: islandPage };

export async function benchSsr(): Promise<Row[]> {
  process.env.NODE_ENV ??= "production";
  const picked = process.env.SVC_BENCH_SSR?.split(",") ?? Object.keys(GROUPS);
  const rows: Row[] = [];
  for (const [group, run] of Object.entries(GROUPS)) {
    if (picked.includes(group)) rows.push(...(await run()));
  }
  return rows;
}
