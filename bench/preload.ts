/**
 * Zero-waterfall composition (issue 18): a `carousel` whose 3 slides are each an `image`
 * component loaded with `useComponent("image")`, rendered by the standalone loader in real
 * Chromium with 100 ms of latency on every request (CDP `Network.emulateNetworkConditions`).
 * Time: from the first bundle request to the third image on screen (the page's clock), median
 * of {@link RUNS} page loads, each in a fresh context (empty HTTP cache). The baseline, measured
 * the same way in the same run, is one round trip: `image` alone, one bundle. "Without
 * preloading" is the same carousel asking for `image` by a name computed at run time, which
 * nothing can see at bundle time. Static mode (a manifest; its own request comes before the
 * first bundle's and is not counted) and the API (the `Link` header; a dev server that has built
 * each bundle once).
 *
 * `npm run bench -- preload`.
 */
import { join } from "node:path";
import { build, ComponentRegistry } from "@svc/server";
import type { Browser } from "playwright-core";
import {
  buildLoaderOnce,
  html,
  launchBrowser,
  makeTempDir,
  removeDir,
  startTestServer,
  type TestServer,
  widget,
  withLatency,
  writeFiles,
} from "../test/browser/helpers.ts";
import { median, type Row } from "./lib.ts";

const RUNS = 9;
const LATENCY = 100;
const SLIDES = ["s1", "s2", "s3"].map((id) => `data:image/gif;base64,R0lGODlhAQABAAAAACw=#${id}`);

const carousel = (imageName: string) =>
  `import { useComponent } from "@svc/react";\n` +
  `function Slide({ src }: { src: string }) {\n  const Image = useComponent(${imageName});\n  return <Image src={src} />;\n}\n` +
  `export default function Carousel({ images }: { images: string[] }) {\n  return <div>{images.map((src) => <Slide key={src} src={src} />)}</div>;\n}\n`;

const COMPONENTS = {
  "image/index.tsx":
    'export default function Image({ src }: { src: string }) {\n  return <img className="slide" src={src} width={8} height={8} alt="" />;\n}\n',
  "carousel/index.tsx": carousel('"image"'),
  "carousel_computed/index.tsx": carousel('["im", "age"].join("")'),
};

const PAGES = {
  "/image.html": widget("image", { src: SLIDES[0] }),
  "/carousel.html": widget("carousel", { images: SLIDES }),
  "/computed.html": widget("carousel_computed", { images: SLIDES }),
};

/** One page load: ms from the first bundle request to `count` images on screen. */
async function renderTime(browser: Browser, url: string, count: number): Promise<number> {
  const context = await browser.newContext();
  try {
    const page = await context.newPage();
    await withLatency(context, page, LATENCY);
    await page.addInitScript((n: number) => {
      new MutationObserver((_, observer) => {
        if (document.querySelectorAll("img.slide").length >= n) {
          (window as unknown as { renderedAt: number }).renderedAt = performance.now();
          observer.disconnect();
        }
      }).observe(document, { subtree: true, childList: true });
    }, count);
    await page.goto(url);
    await page.waitForFunction(() => "renderedAt" in window, undefined, { timeout: 20_000 });
    return await page.evaluate(() => {
      const starts = performance
        .getEntriesByType("resource")
        .filter((e) => /\/bundles\//.test(e.name))
        .map((e) => e.startTime);
      return (window as unknown as { renderedAt: number }).renderedAt - Math.min(...starts);
    });
  } finally {
    await context.close();
  }
}

async function measure(browser: Browser, server: TestServer) {
  const times = { image: [] as number[], carousel: [] as number[], computed: [] as number[] };
  // Interleaved, so a slow moment of the machine touches every variant alike.
  for (let i = 0; i < RUNS + 1; i++) {
    const image = await renderTime(browser, `${server.url}/image.html`, 1);
    const preloaded = await renderTime(browser, `${server.url}/carousel.html`, 3);
    const computed = await renderTime(browser, `${server.url}/computed.html`, 3);
    if (i === 0) continue; // warm-up
    times.image.push(image);
    times.carousel.push(preloaded);
    times.computed.push(computed);
  }
  return {
    image: median(times.image),
    carousel: median(times.carousel),
    computed: median(times.computed),
  };
}

export async function benchPreload(): Promise<Row[]> {
  const work = await makeTempDir("svc-bench-preload-");
  let browser: Browser | undefined;
  const servers: TestServer[] = [];
  try {
    const components = join(work, "components");
    await writeFiles(components, COMPONENTS);
    const out = join(work, "build");
    await build({ registry: new ComponentRegistry(components), outDir: out });
    await buildLoaderOnce();
    const pages = (loader: string) =>
      Object.fromEntries(
        Object.entries(PAGES).map(([path, body]) => [path, { body: html(body, { loader }) }]),
      );
    browser = await launchBrowser();
    const staticServer = await startTestServer({
      staticDir: out,
      pages: pages(' data-svc-manifest="/static/svc/manifest.json"'),
    });
    servers.push(staticServer);
    const api = await startTestServer({
      registry: new ComponentRegistry(components),
      pages: pages(""),
    });
    servers.push(api);
    await new Promise((resolve) => setTimeout(resolve, 100)); // sources older than the racy window
    for (const name of ["image", "carousel", "carousel_computed"]) {
      await fetch(`${api.url}/api/bundles/${name}.js`);
    }

    const rows: Row[] = [];
    for (const [label, server, target] of [
      ["static mode (manifest)", staticServer, 1.2],
      ["API (Link header)", api, undefined],
    ] as const) {
      const m = await measure(browser, server);
      const row = (name: string, value: number, withTarget: boolean): Row => ({
        name,
        value,
        unit: "ms",
        baseline: m.image,
        ratio: value / m.image,
        ...(withTarget && target !== undefined
          ? { target: `≤ ${target}×`, ok: value / m.image <= target }
          : {}),
      });
      rows.push(
        row(
          `carousel of 3 useComponent("image") slides, preloaded, ${label}, latency ${LATENCY} ms (baseline: image alone, one round trip)`,
          m.carousel,
          true,
        ),
        row(`  the same without preloading (name computed at run time)`, m.computed, false),
      );
    }
    return rows;
  } finally {
    await browser?.close();
    for (const server of servers) await server.close();
    await removeDir(work);
  }
}
