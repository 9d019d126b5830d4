/**
 * Zero-waterfall composition in real Chromium, with 100 ms of latency per request (CDP): a
 * three-level composition a → b → c (a asks for b with `useComponent("b")`, b for c with
 * `<ServerComponent name="c">`) against the same shape with names computed at run time
 * (x → y → z), which load on demand, one round trip per level.
 */
import { join } from "node:path";
import { build, ComponentRegistry } from "@svc/server";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { COMPONENTS, LATENCY, type Timing, timed } from "./composition.ts";
import {
  buildLoaderOnce,
  html,
  launchBrowser,
  makeTempDir,
  removeDir,
  startTestServer,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";

/**
 * What both modes must show: b and c asked for before a was evaluated, and rendered in one
 * pass; x, y and z one after another, and slower. With `rounds` (static mode, where nothing of
 * the page's own work stands between a's request and b's and c's), the three arrive within
 * about that many round trips of a's request (a round trip: a's own, on the same page).
 */
function expectNoWaterfall(preloaded: Timing, computed: Timing, rounds?: number) {
  const { a, b, c } = preloaded.requests;
  if (a === undefined || b === undefined || c === undefined) {
    throw new Error(`a bundle request is missing: ${JSON.stringify(preloaded.requests)}`);
  }
  // b and c were asked for before a's bundle was evaluated (as its response came: API)…
  for (const dependency of [b, c]) {
    expect(dependency.start).toBeLessThan(preloaded.evaluated.a as number);
  }
  // … so the three arrived sooner than the waterfall below (measured in the same run; through
  // the API a loaded host stretches the page's work before b and c past any fixed slack) …
  const span = Math.max(b.end, c.end) - a.start;
  if (rounds !== undefined) expect(span).toBeLessThan((rounds + 1) * (a.end - a.start));
  // … and render together: a waits for what it asks for instead of suspending per level
  // (React would reveal each level's Suspense boundary at least 300 ms after the last).
  expect((preloaded.rendered.c as number) - (preloaded.rendered.a as number)).toBeLessThan(
    LATENCY / 2,
  );

  const { x, y, z } = computed.requests;
  if (x === undefined || y === undefined || z === undefined) {
    throw new Error(`a computed bundle request is missing: ${JSON.stringify(computed.requests)}`);
  }
  // Names computed at run time: each level is asked for after the one before arrived.
  expect(y.start).toBeGreaterThanOrEqual(x.end);
  expect(z.start).toBeGreaterThanOrEqual(y.end);
  expect(z.end - x.start).toBeGreaterThanOrEqual(3 * LATENCY);
  expect(span).toBeLessThan(z.end - x.start);
}

describe("preloading: a three-level composition costs one round trip", () => {
  let browser: Browser;
  let work: string | undefined;
  let dev: TestServer;
  let staticServer: TestServer;

  beforeAll(async () => {
    work = await makeTempDir("svc-preload-");
    const components = join(work, "components");
    await writeFiles(components, COMPONENTS);
    const out = join(work, "build");
    await build({ registry: new ComponentRegistry(components), outDir: out });
    await buildLoaderOnce();
    const pages = (loader: string) => ({
      "/abc.html": { body: html(widget("a"), { loader }) },
      "/xyz.html": { body: html(widget("x"), { loader }) },
    });
    [browser, dev, staticServer] = await Promise.all([
      launchBrowser(),
      startTestServer({ registry: new ComponentRegistry(components), pages: pages("") }),
      startTestServer({
        staticDir: out,
        pages: pages(' data-svc-manifest="/static/svc/manifest.json"'),
      }),
    ]);
    // A dev server that has built these once (any page view after the first): a's Link header
    // names c too. Sources written just now would make the builds racy, hence the pause.
    await new Promise((resolve) => setTimeout(resolve, 100));
    for (const name of ["c", "b", "a", "z", "y", "x"]) {
      const response = await fetch(`${dev.url}/api/bundles/${name}.js`);
      expect(response.status).toBe(200);
    }
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
    await staticServer?.close();
    await removeDir(work);
  });

  it("from the API: b and c start with a's answer (Link), so three levels cost two round trips, not three", async () => {
    const linked = await fetch(`${dev.url}/api/bundles/a.js`);
    // Its components, then the vendor files loader.js fetches for its `@svc/react` import
    // (TanStack Query first: `@svc/react` imports it).
    expect(linked.headers.get("link")).toMatch(
      /^<\.\/b\.js\?[0-9a-f]{12}>; rel=modulepreload, <\.\/c\.js\?[0-9a-f]{12}>; rel=modulepreload, <\.\.\/vendor\/tanstack-react-query\.[0-9a-f]{12}\.js>; rel=modulepreload, <\.\.\/vendor\/svc-react\.[0-9a-f]{12}\.js>; rel=modulepreload$/,
    );
    const preloaded = await timed(browser, `${dev.url}/abc.html`, "c");
    const computed = await timed(browser, `${dev.url}/xyz.html`, "z");
    expectNoWaterfall(preloaded, computed);
    expect(dev.requestsTo("/api/bundles/b.js")).toHaveLength(2); // the warm-up, then the page
  });

  it("in static mode: a, b and c are requested together from the manifest, one round trip", async () => {
    const preloaded = await timed(browser, `${staticServer.url}/abc.html`, "c");
    const computed = await timed(browser, `${staticServer.url}/xyz.html`, "z");
    const { a, b, c } = preloaded.requests;
    // Started together: within a small part of one round trip.
    expect(Math.max(b?.start ?? 0, c?.start ?? 0) - (a?.start ?? 0)).toBeLessThan(LATENCY / 2);
    expectNoWaterfall(preloaded, computed, 1);
  });
});
