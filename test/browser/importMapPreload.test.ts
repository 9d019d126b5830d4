/**
 * Zero-waterfall composition in the no-blob mode (import map + `loader.esm.js`), in real
 * Chromium with 100 ms of latency per request (CDP), under `script-src 'self' 'nonce-…'`: a
 * three-level composition a → b → c (`useComponent("b")`, `<ServerComponent name="c">`)
 * against the same shape with names computed at run time (x → y → z), which load on demand.
 * The client sees no bundle response here (the browser imports them), so it learns what to
 * preload from the metadata (API) or the manifest (static) and starts each with
 * `<link rel="modulepreload">` at the URL it later imports.
 */
import { join } from "node:path";
import { build, ComponentRegistry, renderImportMap, silentLogger } from "@svc/server";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildLoaderOnce,
  launchBrowser,
  makeTempDir,
  openPage,
  removeDir,
  startTestServer,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";

const LATENCY = 100;
const NONCE = "pr3l0adN0nce";
const CSP = `script-src 'self' 'nonce-${NONCE}'; object-src 'none'`;

/** A component that notes when its module was evaluated, and renders `inner`. */
const component = (name: string, imports: string, body: string, inner: string) =>
  `${imports}\n` +
  `const w = window as unknown as { evaluated?: Record<string, number> };\n` +
  `(w.evaluated ??= {})[${JSON.stringify(name)}] = performance.now();\n` +
  `export default function Component() {\n  ${body}\n  return <span id="${name}">${name} ${inner}</span>;\n}\n`;

const COMPONENTS: Record<string, string> = {
  "a/index.tsx": component(
    "a",
    'import { useComponent } from "@svc/react";',
    'const B = useComponent("b");',
    "<B />",
  ),
  "b/index.tsx": component(
    "b",
    'import { ServerComponent } from "@svc/react";',
    "",
    '<ServerComponent name="c" />',
  ),
  "c/index.tsx": component("c", "", "", ""),
  "x/index.tsx": component(
    "x",
    'import { useComponent } from "@svc/react";',
    'const Y = useComponent(["y"].join(""));',
    "<Y />",
  ),
  "y/index.tsx": component(
    "y",
    'import { ServerComponent } from "@svc/react";',
    'const z = ["z"][0] as string;',
    "<ServerComponent name={z} />",
  ),
  "z/index.tsx": component("z", "", "", ""),
};

function recordRenders(page: Page) {
  return page.addInitScript(() => {
    const rendered: Record<string, number> = {};
    (window as unknown as { rendered: typeof rendered }).rendered = rendered;
    new MutationObserver(() => {
      for (const id of ["a", "b", "c", "x", "y", "z"]) {
        if (rendered[id] === undefined && document.getElementById(id)) {
          rendered[id] = performance.now();
        }
      }
    }).observe(document, { subtree: true, childList: true });
  });
}

interface Timing {
  requests: Record<string, { start: number; end: number }>;
  /** How many times each bundle was fetched (preload and import must be one request). */
  fetches: Record<string, number>;
  evaluated: Record<string, number>;
  rendered: Record<string, number>;
}

async function timed(browser: Browser, url: string, last: string): Promise<Timing> {
  const { context, page, errors } = await openPage(browser);
  try {
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.enable");
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: LATENCY,
      downloadThroughput: -1,
      uploadThroughput: -1,
    });
    await recordRenders(page);
    await page.goto(url);
    await page.waitForSelector(`#${last}`, { timeout: 20_000 });
    expect(errors).toEqual([]);
    return await page.evaluate(() => {
      const requests: Record<string, { start: number; end: number }> = {};
      const fetches: Record<string, number> = {};
      for (const entry of performance.getEntriesByType("resource")) {
        const file = /\/([a-z])(?:\.[0-9a-f]+)?\.js$/.exec(new URL(entry.name).pathname)?.[1];
        const timing = entry as PerformanceResourceTiming;
        if (file !== undefined && /bundles\//.test(entry.name)) {
          requests[file] = { start: timing.startTime, end: timing.responseEnd };
          fetches[file] = (fetches[file] ?? 0) + 1;
        }
      }
      const w = window as unknown as {
        evaluated: Record<string, number>;
        rendered: Record<string, number>;
      };
      return { requests, fetches, evaluated: w.evaluated, rendered: w.rendered };
    });
  } finally {
    await context.close();
  }
}

/**
 * a, b and c fetched within `rounds` round trips of a's request, b and c started together (not
 * one after the other) by the time a arrived, each fetched once, rendered in one pass; x, y
 * and z one after another.
 */
function expectNoWaterfall(preloaded: Timing, computed: Timing, rounds: number) {
  const { a, b, c } = preloaded.requests;
  if (a === undefined || b === undefined || c === undefined) {
    throw new Error(`a bundle request is missing: ${JSON.stringify(preloaded.requests)}`);
  }
  expect(preloaded.fetches).toEqual({ a: 1, b: 1, c: 1 });
  const roundTrip = a.end - a.start;
  // b and c overlap: started together, in the round trip a's answer came in, not after b's.
  expect(Math.abs(c.start - b.start)).toBeLessThan(LATENCY / 2);
  for (const dependency of [b, c]) {
    expect(dependency.start).toBeLessThan(a.end + LATENCY / 2);
    expect(dependency.start).toBeLessThan(preloaded.rendered.a as number);
  }
  const span = Math.max(b.end, c.end) - a.start;
  expect(span).toBeLessThan((rounds + 1) * roundTrip);
  expect((preloaded.rendered.c as number) - (preloaded.rendered.a as number)).toBeLessThan(
    LATENCY / 2,
  );

  const { x, y, z } = computed.requests;
  if (x === undefined || y === undefined || z === undefined) {
    throw new Error(`a computed bundle request is missing: ${JSON.stringify(computed.requests)}`);
  }
  expect(y.start).toBeGreaterThanOrEqual(x.end);
  expect(z.start).toBeGreaterThanOrEqual(y.end);
  expect(z.end - x.start).toBeGreaterThanOrEqual(3 * LATENCY);
  expect(span).toBeLessThan(z.end - x.start);
}

describe("preloading in the no-blob mode: a three-level composition without a waterfall", () => {
  let browser: Browser;
  let work: string | undefined;
  let dev: TestServer;
  let staticServer: TestServer;

  beforeAll(async () => {
    await buildLoaderOnce();
    work = await makeTempDir("svc-url-preload-");
    const components = join(work, "components");
    await writeFiles(components, COMPONENTS);
    const out = join(work, "build");
    await build({ registry: new ComponentRegistry(components), outDir: out, importMap: true });
    const page = (map: string, loader: string, attributes: string, name: string) => ({
      headers: { "content-security-policy": CSP },
      body: `<!doctype html><html><head><meta charset="utf-8">${map}</head><body>${widget(name)}<script type="module" src="${loader}"${attributes}></script></body></html>`,
    });
    const devMap = await renderImportMap({ apiBase: "/api", nonce: NONCE });
    const staticMap = await renderImportMap({
      buildDir: out,
      staticUrl: "/static/svc/",
      nonce: NONCE,
    });
    const pages = (map: string, loader: string, attributes: string) => ({
      "/abc.html": page(map, loader, attributes, "a"),
      "/xyz.html": page(map, loader, attributes, "x"),
    });
    [browser, dev, staticServer] = await Promise.all([
      launchBrowser(),
      startTestServer({
        registry: new ComponentRegistry(components, { logger: silentLogger }),
        handlerOptions: { logger: silentLogger },
        pages: pages(devMap, "/api/loader.esm.js", ' data-svc-api="/api"'),
      }),
      startTestServer({
        staticDir: out,
        pages: pages(
          staticMap,
          "/static/svc/loader.esm.js",
          ' data-svc-manifest="/static/svc/manifest.json"',
        ),
      }),
    ]);
    // A dev server that has built these once: a's metadata names c too.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const name of ["c", "b", "a", "z", "y", "x"]) {
      expect((await fetch(`${dev.url}/api/bundles/${name}.js?url`)).status).toBe(200);
    }
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    await staticServer?.close();
    await removeDir(work);
  });

  it("through the API: b and c start from a's metadata, fetched alongside a, so three levels cost two round trips", async () => {
    const metadata = await (await fetch(`${dev.url}/api/bundles/a/metadata`)).json();
    expect(metadata.preload).toEqual(["b", "c"]);
    const preloaded = await timed(browser, `${dev.url}/abc.html`, "c");
    const computed = await timed(browser, `${dev.url}/xyz.html`, "z");
    expectNoWaterfall(preloaded, computed, 2);
    // The warm-up, then the page: the preloaded module is the one imported.
    expect(dev.requestsTo("/api/bundles/b.js")).toEqual([
      "/api/bundles/b.js?url",
      "/api/bundles/b.js?url",
    ]);
  });

  it("in static mode: a, b and c are requested together from the manifest, one round trip", async () => {
    const preloaded = await timed(browser, `${staticServer.url}/abc.html`, "c");
    const computed = await timed(browser, `${staticServer.url}/xyz.html`, "z");
    const { a, b, c } = preloaded.requests;
    expect(Math.max(b?.start ?? 0, c?.start ?? 0) - (a?.start ?? 0)).toBeLessThan(LATENCY / 2);
    expectNoWaterfall(preloaded, computed, 1);
  });
});
