/**
 * `loader.js` carries React, ReactDOM and `@svc/runtime` only; `@svc/react` (with TanStack
 * Query) and goober are vendor files it fetches on demand, announced by the bundle's `Link`
 * header, and `loader.extras.js` (island hydration, live reload) is fetched only by a page
 * that needs it. In real Chromium: a page that needs none fetches none; a bundle that imports
 * `@svc/react` has them fetched alongside it, not after it; a live page fetches the extras
 * once; and the blob loader refuses the import-map mode with its one-line message.
 */
import { createHash } from "node:crypto";
import { beforeAll, describe, expect, it } from "vitest";
// For its `window.svc` declaration.
import type {} from "../../packages/loader/src/loader.tsx";
import {
  browserSuite,
  buildLoaderOnce,
  html,
  poll,
  type TestServer,
  widget,
  withLatency,
} from "./helpers.ts";

const LATENCY = 100;
/** Bytes per second while the bundles arrive: a long body, so "with" and "after" differ. */
const THROUGHPUT = 1_000_000;

/** About 400 kB that no compressor shrinks: the bundle's body takes a while to arrive. */
function incompressible(length: number): string {
  let text = "";
  let block = createHash("sha256").update("pad").digest();
  while (text.length < length) {
    text += block.toString("base64");
    block = createHash("sha256").update(block).digest();
  }
  return text.slice(0, length);
}

const COMPONENTS = {
  "plain/index.tsx": `import { useState } from "react";
export default function Plain() {
  const [count] = useState(1);
  return <p className="plain">plain {count}</p>;
}
`,
  "boxed/index.tsx": `import { SvcErrorBoundary } from "@svc/react";
export const pad = ${JSON.stringify(incompressible(400_000))};
export default function Boxed() {
  return <SvcErrorBoundary><p className="boxed">boxed {pad.length}</p></SvcErrorBoundary>;
}
`,
};

describe("loader.js: on-demand vendor files", () => {
  const suite = browserSuite();
  let server: TestServer;

  beforeAll(async () => {
    const [fixtures] = await Promise.all([suite.fixtures(COMPONENTS), buildLoaderOnce()]);
    server = await suite.server({
      registry: fixtures.registry,
      pages: {
        "/plain.html": { body: html(widget("plain") + widget("plain")) },
        "/boxed.html": { body: html(widget("boxed")) },
        "/blank.html": { body: html("") },
        "/live.html": {
          body: html(widget("plain") + widget("plain"), { loader: " data-svc-live" }),
        },
      },
    });
    // Warm: the timing below is the page's, not esbuild's or the vendor build's.
    for (const name of ["plain", "boxed"]) {
      expect((await fetch(`${server.url}/api/bundles/${name}.js`)).status).toBe(200);
    }
  });

  it("fetches no vendor file for a page whose bundles import none of them", async () => {
    const { page, errors } = await suite.newPage();
    const requestsSince = server.since();
    await page.goto(`${server.url}/plain.html`);
    await poll(() => page.locator(".plain").count()).toBe(2);
    expect(errors).toEqual([]);
    const requests = requestsSince();
    expect(requests.filter((path) => path.startsWith("/api/bundles/plain.js"))).toHaveLength(1);
    expect(requests.filter((path) => path.includes("/vendor/"))).toEqual([]);
    // No island, no live reload: not the loader's extras or live part either.
    expect(requests.filter((path) => /loader\.(extras|live)/.test(path))).toEqual([]);
    // Nor does anything else of the page: the browser saw no request for one either.
    const seen = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((entry) => entry.name),
    );
    expect(seen.filter((url) => url.includes("/vendor/"))).toEqual([]);
  });

  it("fetches loader.live.js once, from the API, for a page that follows live reload (and not the islands' extras)", async () => {
    const { page, errors } = await suite.newPage();
    const requestsSince = server.since();
    await page.goto(`${server.url}/live.html`);
    await poll(() => page.locator(".plain").count()).toBe(2);
    // The live-reload client came with it: it asks for the API's event stream.
    await poll(() => requestsSince().some((path) => path === "/api/events")).toBe(true);
    const requests = requestsSince();
    expect(requests.filter((path) => /loader\.(extras|live)/.test(path))).toEqual([
      "/api/loader.live.js",
    ]);
    expect(errors).toEqual([]);
  });

  it("refuses loader.live.js of another version with one line, and the page's components still render", async () => {
    const { page } = await suite.newPage();
    const consoleErrors: string[] = [];
    page.on("console", (message) => {
      if (message.type() === "error") consoleErrors.push(message.text());
    });
    // An extras file from another svc (a stale CDN copy, say): its version says so.
    await page.route("**/api/loader.live.js", async (route) => {
      const response = await route.fetch();
      const body = (await response.text()).replace(
        /"\d+\.\d+\.\d+[^"]*"/,
        JSON.stringify("0.0.0-other"),
      );
      expect(body).toContain('"0.0.0-other"');
      await route.fulfill({ response, body });
    });
    await page.goto(`${server.url}/live.html`);
    await poll(() => page.locator(".plain").count()).toBe(2);
    await poll(() => consoleErrors.join("\n")).toMatch(
      /svc: live reload is off: Error: svc loader: \/api\/loader\.live\.js is version 0\.0\.0-other, this loader \d+\.\d+\.\d+\S*: serve both from one svc/,
    );
  });

  it("fetches the vendor files of a bundle that imports @svc/react alongside it, not after it", async () => {
    const { context, page, errors } = await suite.newPage();
    const cdp = await withLatency(context, page, LATENCY);
    await cdp.send("Network.emulateNetworkConditions", {
      offline: false,
      latency: LATENCY,
      downloadThroughput: THROUGHPUT,
      uploadThroughput: -1,
    });
    await page.goto(`${server.url}/boxed.html`);
    await poll(() => page.locator(".boxed").textContent()).toBe("boxed 400000");
    expect(errors).toEqual([]);
    const timing = await page.evaluate(() =>
      performance.getEntriesByType("resource").map((entry) => {
        const { name, startTime, responseEnd } = entry as PerformanceResourceTiming;
        return { path: new URL(name).pathname, start: startTime, end: responseEnd };
      }),
    );
    const bundle = timing.find((entry) => entry.path === "/api/bundles/boxed.js");
    const vendor = timing.filter((entry) => entry.path.startsWith("/api/vendor/"));
    if (bundle === undefined) throw new Error(`no bundle request: ${JSON.stringify(timing)}`);
    // `@svc/react` and the TanStack Query it imports: each once.
    expect(vendor.map((entry) => entry.path.replace(/\.[0-9a-f]{12}\.js$/, "")).sort()).toEqual([
      "/api/vendor/svc-react",
      "/api/vendor/tanstack-react-query",
    ]);
    // The bundle's body takes hundreds of milliseconds to arrive; its vendor files were
    // asked for as its response began (its Link header), so their requests overlap it, well
    // before its body ends (fetched after the body, they would start after it).
    expect(bundle.end - bundle.start).toBeGreaterThan(3 * LATENCY);
    for (const file of vendor) {
      expect(file.start).toBeGreaterThan(bundle.start);
      expect(file.start).toBeLessThan(bundle.end - LATENCY);
    }
  });

  it('refuses moduleLoading "url" with its one-line message (that is loader.esm.js\'s)', async () => {
    const { page, errors } = await suite.newPage();
    await page.goto(`${server.url}/blank.html`);
    await poll(() => page.evaluate(() => window.svc !== undefined)).toBe(true);
    // The runtime loader.js puts in the page's registry (for the vendor files, and anyone).
    const message = await page.evaluate(() => {
      const registry = (window as unknown as { __MODULES__: Record<string, unknown> }).__MODULES__;
      const runtime = registry["@svc/runtime"] as {
        createSvcClient(options: { moduleLoading: string }): unknown;
      };
      try {
        runtime.createSvcClient({ moduleLoading: "url" });
        return "no error";
      } catch (error) {
        return (error as Error).message;
      }
    });
    expect(message).toBe(
      'svc: moduleLoading "url" is not in loader.js: use loader.esm.js with an import map, or @svc/runtime from npm',
    );
    expect(message).not.toContain("\n");
    expect(errors).toEqual([]);
  });
});
