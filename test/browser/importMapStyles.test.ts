/**
 * Components that import CSS (a plain file, a CSS module, `url()`s to an image and a font) in
 * the no-blob mode (import map + `loader.esm.js`), in real Chromium under a policy without
 * `blob:`, inline scripts other than the nonced import map, or inline styles: through the
 * API (live bundling and a build directory) and from `svc build`'s files (static mode).
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ComponentRegistry, renderImportMap, silentLogger } from "@svc/server";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildLoaderOnce,
  launchBrowser,
  makeTempDir,
  noisePng,
  openPage,
  removeDir,
  startTestServer,
  svcBuild,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";

const NONCE = "st4t1cN0nce";
/** No `blob:`, no `'unsafe-inline'` for scripts or styles, no `data:`. */
const CSP =
  `default-src 'none'; script-src 'self' 'nonce-${NONCE}'; style-src 'self'; img-src 'self'; ` +
  "font-src 'self'; connect-src 'self'; base-uri 'none'; object-src 'none'";

const PLAIN_COLOR = "rgb(10, 20, 30)";
const EDITED_COLOR = "rgb(200, 100, 50)";
const CARD_COLOR = "rgb(40, 50, 60)";
const THEME_BORDER = "3px solid rgb(1, 2, 3)";

async function aFont(): Promise<Buffer> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("playwright-core/package.json"));
  return readFile(join(root, "lib/vite/recorder/assets/codicon-DCmgc-ay.ttf"));
}

function files(png: Buffer, font: Buffer): Record<string, string | Buffer> {
  return {
    "package.json": JSON.stringify({ name: "url-styles-fixture", private: true }),
    "shared/theme.css": `.theme { border-left: ${THEME_BORDER}; }\n`,
    "components/plain/plain.css": `.plain { color: ${PLAIN_COLOR}; padding-left: 7px; }\n`,
    "components/plain/index.tsx":
      'import "../../shared/theme.css";\nimport "./plain.css";\nexport default function Plain() {\n  return <p className="plain theme">plain</p>;\n}\n',
    "components/card/card.module.css": `.title { color: ${CARD_COLOR}; letter-spacing: 2px; }\n`,
    "components/card/index.tsx":
      'import "../../shared/theme.css";\nimport styles from "./card.module.css";\nexport default function Card() {\n  return <h2 className={`${styles.title} theme`}>card</h2>;\n}\n',
    "components/media/photo.png": png,
    "components/media/font.ttf": font,
    "components/media/media.css":
      '@font-face { font-family: "SvcTestFont"; src: url(./font.ttf) format("truetype"); }\n.media-text { font-family: "SvcTestFont"; }\n.backdrop { display: block; width: 8px; height: 8px; background-image: url(./photo.png); }\n',
    "components/media/index.tsx":
      'import "./media.css";\nimport photo from "./photo.png";\nexport default function Media() {\n  return <figure><img className="photo" src={photo} alt="" /><span className="media-text">Aa</span><i className="backdrop" /></figure>;\n}\n',
  };
}

const WIDGETS =
  `<div id="plain">${widget("plain")}</div>` +
  `<div id="card">${widget("card")}</div>` +
  `<div id="card2">${widget("card")}</div>` +
  `<div id="media">${widget("media")}</div>`;

/** A page of the four widgets: the import map, then `loader.esm.js` with `attributes`. */
function page(map: string, loader: string, attributes: string) {
  return {
    headers: { "content-security-policy": CSP },
    body: `<!doctype html><html><head><meta charset="utf-8">${map}</head><body>${WIDGETS}<script type="module" src="${loader}"${attributes}></script></body></html>`,
  };
}

function poll<T>(fn: () => T | Promise<T>) {
  return expect.poll(fn, { timeout: 20_000 });
}

/** Opens `url`, recording CSP violations, page errors and console lines. */
async function open(browser: Browser, url: string) {
  const opened = await openPage(browser);
  const consoleLines: string[] = [];
  opened.page.on("console", (message) => consoleLines.push(message.text()));
  await opened.page.addInitScript(() => {
    const seen: string[] = [];
    (window as unknown as { violations: string[] }).violations = seen;
    document.addEventListener("securitypolicyviolation", (e) =>
      seen.push(`${e.violatedDirective} ${e.blockedURI}`),
    );
  });
  await opened.page.goto(url);
  const violations = () =>
    opened.page.evaluate(() => (window as unknown as { violations: string[] }).violations);
  return { ...opened, violations, consoleLines };
}

const style = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

/** How many rules of the adopted stylesheets match (a selector, or a suffix after `*`). */
const ruleCount = (page: Page, selector: string) =>
  page.evaluate((wanted) => {
    const rules = document.adoptedStyleSheets.flatMap((sheet) => [...sheet.cssRules]);
    return rules.filter((rule) => {
      const text = (rule as CSSStyleRule).selectorText ?? "";
      return wanted.startsWith("*") ? text.endsWith(wanted.slice(1)) : text === wanted;
    }).length;
  }, selector);

/** The URLs of every script the page fetched (by import or modulepreload). */
const scriptUrls = (page: Page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry.name)
      .filter((name) => /\.js(\?|$)/.test(name)),
  );

/** Everything a page of the four widgets must show, whatever serves it. */
async function expectStyled(page: Page, origin: string, assets: string): Promise<void> {
  await poll(() => style(page, "#plain .plain", "color")).toBe(PLAIN_COLOR);
  expect(await style(page, "#plain .plain", "padding-left")).toBe("7px");
  await poll(() => style(page, "#card h2", "color")).toBe(CARD_COLOR);
  await poll(() => style(page, "#card2 h2", "color")).toBe(CARD_COLOR);
  expect(await style(page, "#card h2", "letter-spacing")).toBe("2px");
  expect(await page.locator("#card h2").getAttribute("class")).toMatch(
    /^card_[0-9a-f]{8}_title theme$/,
  );
  for (const id of ["#plain .plain", "#card h2"]) {
    expect(await style(page, id, "border-left")).toBe(THEME_BORDER);
  }
  const img = page.locator("#media img.photo");
  await poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(48);
  expect(await img.evaluate((el: HTMLImageElement) => el.src)).toMatch(
    new RegExp(`^${origin}${assets}assets/photo-[A-Z0-9]{8}\\.png$`),
  );
  expect(await style(page, "#media .backdrop", "background-image")).toMatch(
    new RegExp(`^url\\("${origin}${assets}assets/photo-[A-Z0-9]{8}\\.png"\\)$`),
  );
  await poll(() =>
    page.evaluate(async () => {
      await document.fonts.ready;
      return [...document.fonts]
        .filter((face) => face.family.replaceAll('"', "") === "SvcTestFont")
        .map((face) => face.status);
    }),
  ).toEqual(["loaded"]);
  // Each stylesheet once, however many components use it; nothing injected inline.
  expect(await ruleCount(page, ".theme")).toBe(1);
  expect(await ruleCount(page, "*_title")).toBe(1);
  expect(await page.locator("style").count()).toBe(0);
  // Imported by URL: nothing from blob:.
  expect((await scriptUrls(page)).some((url) => url.startsWith("blob:"))).toBe(false);
}

let browser: Browser;
let work: string;
let dev: TestServer;
let prebuilt: TestServer;
let staticServer: TestServer;
let tampered: TestServer;
let manifest: Record<
  string,
  { file: string; urlModule?: { file: string }; css?: { file: string }[] }
>;

beforeAll(async () => {
  const [launched, root, png, font] = await Promise.all([
    launchBrowser(),
    makeTempDir("svc-url-styles-"),
    noisePng(48),
    aFont(),
    // loader.esm.js must be built before the server first reads the vendor build.
    buildLoaderOnce(),
  ]);
  browser = launched;
  work = root;
  const project = join(work, "project");
  await writeFiles(project, files(png, font) as Record<string, string>);
  const components = join(project, "components");
  const out = join(work, "build");
  await svcBuild(components, out);
  manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
  // A copy where plain's stylesheet and card's bundle were changed after the build.
  const broken = join(work, "tampered");
  await cp(out, broken, { recursive: true });
  const plainCss = join(broken, manifest.plain?.css?.[1]?.file ?? "missing");
  await writeFile(plainCss, `${await readFile(plainCss, "utf8")}.plain{color:red}\n`);
  const cardModule = join(broken, manifest.card?.urlModule?.file ?? "missing");
  await writeFile(cardModule, `${await readFile(cardModule, "utf8")}\nconsole.log("pwned");\n`);

  const devMap = await renderImportMap({ apiBase: "/api", nonce: NONCE });
  const staticMap = await renderImportMap({
    buildDir: out,
    staticUrl: "/static/svc/",
    nonce: NONCE,
  });
  const staticPage = page(
    staticMap,
    "/static/svc/loader.esm.js",
    ' data-svc-manifest="/static/svc/manifest.json"',
  );
  const registry = () => new ComponentRegistry(components, { logger: silentLogger });
  [dev, prebuilt, staticServer, tampered] = await Promise.all([
    startTestServer({
      registry: registry(),
      handlerOptions: { logger: silentLogger },
      pages: {
        "/page.html": page(devMap, "/api/loader.esm.js", ' data-svc-api="/api" data-svc-live'),
      },
    }),
    startTestServer({
      registry: registry(),
      handlerOptions: { logger: silentLogger, buildDir: out },
      pages: { "/page.html": page(devMap, "/api/loader.esm.js", ' data-svc-api="/api"') },
    }),
    startTestServer({ staticDir: out, pages: { "/page.html": staticPage } }),
    startTestServer({ staticDir: broken, pages: { "/page.html": staticPage } }),
  ]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([dev, prebuilt, staticServer, tampered].map((s) => s?.close()));
  await removeDir(work);
});

describe("stylesheets in the no-blob mode (import map + loader.esm.js)", () => {
  it("in development through the API: the ?url form of each bundle, its stylesheets from metadata", async () => {
    const { context, page, errors, violations } = await open(browser, `${dev.url}/page.html`);
    await expectStyled(page, dev.url, "/api/bundles/");
    // Each bundle imported once, by its `?url` form; each stylesheet fetched once.
    for (const name of ["plain", "card", "media"]) {
      expect(dev.requestsTo(`/api/bundles/${name}.js`)).toEqual([`/api/bundles/${name}.js?url`]);
    }
    expect(dev.requestsTo("/api/bundles/theme-")).toHaveLength(1);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("from a build directory through the API", async () => {
    const { context, page, errors, violations } = await open(browser, `${prebuilt.url}/page.html`);
    await expectStyled(page, prebuilt.url, "/api/bundles/");
    // The build's stylesheets, as the manifest lists them.
    for (const { file } of manifest.plain?.css ?? []) {
      expect(prebuilt.requestsTo(`/api/${file}`)).toHaveLength(1);
    }
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("in static mode from svc build's files: the manifest's urlModule, no API", async () => {
    const { context, page, errors, violations } = await open(
      browser,
      `${staticServer.url}/page.html`,
    );
    await expectStyled(page, staticServer.url, "/static/svc/bundles/");
    expect(staticServer.requestsTo("/api")).toEqual([]);
    for (const name of ["plain", "card", "media"]) {
      const { file, urlModule } = manifest[name] ?? { file: "" };
      expect(urlModule?.file).toMatch(new RegExp(`^bundles/${name}\\.[0-9a-f]{12}\\.js$`));
      expect(staticServer.requestsTo(`/static/svc/${urlModule?.file}`)).toHaveLength(1);
      expect(staticServer.requestsTo(`/static/svc/${file}`)).toEqual([]);
      // The build machine's paths never reach the output.
      const served = await fetch(`${staticServer.url}/static/svc/${urlModule?.file}`);
      expect(await served.text()).not.toMatch(/\/(tmp|work|home|root)\//);
    }
    expect(staticServer.requestsTo("/static/svc/bundles/theme-")).toHaveLength(1);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("in static mode, a stylesheet or a bundle that does not match its integrity is refused", async () => {
    const { context, page, consoleLines } = await open(browser, `${tampered.url}/page.html`);
    await poll(() => page.locator("#plain [role=alert]").textContent()).toMatch(
      /the stylesheet \(.*\/plain-[0-9a-f]{12}\.css\) does not match its integrity .*; it was refused/,
    );
    expect(await ruleCount(page, ".plain")).toBe(0);
    // The bundle: by the import map's integrity, in the browser.
    await poll(() => page.locator("#card [role=alert]").textContent()).toMatch(
      /Component "card" failed to load from http:.*\/bundles\/card\.[0-9a-f]{12}\.js/,
    );
    expect(consoleLines.join("\n")).toMatch(/integrity/);
    expect(consoleLines.join("\n")).not.toContain("pwned");
    // The untouched component is styled.
    await poll(() => style(page, "#media .backdrop", "width")).toBe("8px");
    await context.close();
  });

  it("removes a component's stylesheets when the last component using them unmounts", async () => {
    const { context, page } = await open(browser, `${staticServer.url}/page.html`);
    await poll(() => style(page, "#card2 h2", "color")).toBe(CARD_COLOR);
    await poll(() => style(page, "#plain .plain", "color")).toBe(PLAIN_COLOR);
    const unmount = (id: string) =>
      page.evaluate((selector) => {
        const svc = (window as unknown as { svc: { unmount(el: Element): void } }).svc;
        svc.unmount(document.querySelector(`${selector} [data-svc-component]`) as Element);
      }, id);
    await unmount("#plain");
    expect(await ruleCount(page, ".plain")).toBe(0);
    expect(await ruleCount(page, ".theme")).toBe(1); // the cards still use it
    await unmount("#card");
    expect(await ruleCount(page, "*_title")).toBe(1); // card2 still does
    await unmount("#card2");
    await unmount("#media");
    expect(await page.evaluate(() => document.adoptedStyleSheets.length)).toBe(0);
    await context.close();
  });

  it("a live edit of the CSS restyles the component in place, leaving one copy of its rules", async () => {
    const { context, page, errors, violations } = await open(browser, `${dev.url}/page.html`);
    await poll(() => style(page, "#plain .plain", "color")).toBe(PLAIN_COLOR);
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    const file = join(work, "project/components/plain/plain.css");
    const before = await readFile(file, "utf8");
    await writeFile(file, before.replace(PLAIN_COLOR, EDITED_COLOR));
    try {
      await poll(() => style(page, "#plain .plain", "color")).toBe(EDITED_COLOR);
      expect(await ruleCount(page, ".plain")).toBe(1);
      expect(await ruleCount(page, ".theme")).toBe(1);
      expect(await page.evaluate(() => (window as unknown as { marker?: number }).marker)).toBe(42);
      await writeFile(file, before);
      await poll(() => style(page, "#plain .plain", "color")).toBe(PLAIN_COLOR);
      expect(await ruleCount(page, ".plain")).toBe(1);
    } finally {
      await writeFile(file, before);
    }
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
