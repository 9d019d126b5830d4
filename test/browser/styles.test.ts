import { cp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ComponentRegistry, silentLogger } from "@svc/server";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  appPages,
  buildLoaderOnce,
  bundleApp,
  html,
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

/** What a page needs and nothing more: no inline script or style, no data: URLs, no eval. */
const STRICT_CSP =
  "default-src 'none'; script-src 'self' blob:; style-src 'self'; img-src 'self'; " +
  "font-src 'self'; connect-src 'self'; base-uri 'none'; object-src 'none'";

/** A real TrueType font from an installed package (playwright-core ships its icon font). */
async function aFont(): Promise<Buffer> {
  const require = createRequire(import.meta.url);
  const root = dirname(require.resolve("playwright-core/package.json"));
  return readFile(join(root, "lib/vite/recorder/assets/codicon-DCmgc-ay.ttf"));
}

const PLAIN_COLOR = "rgb(10, 20, 30)";
const EDITED_COLOR = "rgb(200, 100, 50)";
const CARD_COLOR = "rgb(40, 50, 60)";
const THEME_BORDER = "3px solid rgb(1, 2, 3)";

function files(png: Buffer, font: Buffer): Record<string, string | Buffer> {
  return {
    "package.json": JSON.stringify({ name: "styles-fixture", private: true }),
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

function page(loader = ""): { body: string; headers: Record<string, string> } {
  return { body: html(WIDGETS, { loader }), headers: { "content-security-policy": STRICT_CSP } };
}

function poll<T>(fn: () => T | Promise<T>) {
  return expect.poll(fn, { timeout: 20_000 });
}

/** Opens `url`, recording CSP violations and page errors. */
async function open(browser: Browser, url: string) {
  const opened = await openPage(browser);
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
  return { ...opened, violations };
}

const style = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

/** How many rules of the adopted stylesheets match `test` (a selector, or a suffix with `*`). */
const ruleCount = (page: Page, selector: string) =>
  page.evaluate((wanted) => {
    const rules = document.adoptedStyleSheets.flatMap((sheet) => [...sheet.cssRules]);
    return rules.filter((rule) => {
      const text = (rule as CSSStyleRule).selectorText ?? "";
      return wanted.startsWith("*") ? text.endsWith(wanted.slice(1)) : text === wanted;
    }).length;
  }, selector);

/** Everything a page with the four widgets must show, whatever mode it loads them in. */
async function expectStyled(page: Page, origin: string, assets: string): Promise<void> {
  await poll(() => style(page, "#plain .plain", "color")).toBe(PLAIN_COLOR);
  expect(await style(page, "#plain .plain", "padding-left")).toBe("7px");
  await poll(() => style(page, "#card h2", "color")).toBe(CARD_COLOR);
  await poll(() => style(page, "#card2 h2", "color")).toBe(CARD_COLOR);
  expect(await style(page, "#card h2", "letter-spacing")).toBe("2px");
  // The CSS module's class is scoped and readable, not the plain name.
  expect(await page.locator("#card h2").getAttribute("class")).toMatch(
    /^card_[0-9a-f]{8}_title theme$/,
  );
  for (const id of ["#plain .plain", "#card h2"]) {
    expect(await style(page, id, "border-left")).toBe(THEME_BORDER);
  }
  // The image: loaded from a served, content-hashed URL, decoded.
  const img = page.locator("#media img.photo");
  await poll(() => img.evaluate((el: HTMLImageElement) => el.complete && el.naturalWidth)).toBe(48);
  expect(await img.evaluate((el: HTMLImageElement) => el.src)).toMatch(
    new RegExp(`^${origin}${assets}assets/photo-[A-Z0-9]{8}\\.png$`),
  );
  // url() in CSS: the same served file.
  expect(await style(page, "#media .backdrop", "background-image")).toMatch(
    new RegExp(`^url\\("${origin}${assets}assets/photo-[A-Z0-9]{8}\\.png"\\)$`),
  );
  // The font, from @font-face in the stylesheet.
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
}

let browser: Browser;
let work: string;
let dev: TestServer;
let prebuilt: TestServer;
let staticServer: TestServer;
let tampered: TestServer;
let app: TestServer;
let manifest: Record<string, { css?: { file: string }[] }>;

beforeAll(async () => {
  const [launched, root, png, font, bundledApp] = await Promise.all([
    launchBrowser(),
    makeTempDir("svc-styles-"),
    noisePng(48),
    aFont(),
    bundleApp(new URL("./fixtures/stylesApp.tsx", import.meta.url)),
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
  const broken = join(work, "tampered");
  await cp(out, broken, { recursive: true });
  const plainCss = join(broken, manifest.plain?.css?.[1]?.file ?? "missing");
  await writeFile(plainCss, `${await readFile(plainCss, "utf8")}.plain{color:red}\n`);

  const registry = () => new ComponentRegistry(components, { logger: silentLogger });
  [dev, prebuilt, staticServer, tampered, app] = await Promise.all([
    startTestServer({
      registry: registry(),
      handlerOptions: { logger: silentLogger },
      pages: { "/page.html": page(" data-svc-live") },
    }),
    startTestServer({
      registry: registry(),
      handlerOptions: { logger: silentLogger, buildDir: out },
      pages: { "/page.html": page() },
    }),
    startTestServer({
      staticDir: out,
      pages: { "/page.html": page(' data-svc-manifest="/static/svc/manifest.json"') },
    }),
    startTestServer({
      staticDir: broken,
      pages: { "/page.html": page(' data-svc-manifest="/static/svc/manifest.json"') },
    }),
    startTestServer({
      registry: registry(),
      handlerOptions: { logger: silentLogger },
      pages: {
        ...appPages(bundledApp, { "content-security-policy": STRICT_CSP }),
      },
    }),
  ]);
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await Promise.all([dev, prebuilt, staticServer, tampered, app].map((s) => s?.close()));
  await removeDir(work);
});

describe("styles and assets through the loader, under a strict CSP", () => {
  it("in development (live bundling): plain CSS, a CSS module, an image and a font", async () => {
    const { context, page, errors, violations } = await open(browser, `${dev.url}/page.html`);

    await expectStyled(page, dev.url, "/api/bundles/");
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("from a build directory through the API (prebuilt)", async () => {
    const { context, page, errors, violations } = await open(browser, `${prebuilt.url}/page.html`);
    await expectStyled(page, prebuilt.url, "/api/bundles/");
    // The build's files, not live bundles: the stylesheets the manifest lists.
    for (const { file } of manifest.plain?.css ?? []) {
      expect(prebuilt.requestsTo(`/api/${file}`)).toHaveLength(1);
    }
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("from static files through the manifest (static mode), integrity checked", async () => {
    const { context, page, errors, violations } = await open(
      browser,
      `${staticServer.url}/page.html`,
    );
    await expectStyled(page, staticServer.url, "/static/svc/bundles/");
    expect(staticServer.requestsTo("/api")).toEqual([]);
    // Two cards and a plain import the theme: fetched once.
    const theme = staticServer.requestsTo("/static/svc/bundles/theme-");
    expect(theme).toHaveLength(1);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("removes a component's stylesheets when the last component using them unmounts", async () => {
    const { context, page } = await open(browser, `${dev.url}/page.html`);
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

  it("refuses a component whose stylesheet does not match the manifest's integrity", async () => {
    const { context, page } = await open(browser, `${tampered.url}/page.html`);
    await poll(() => page.locator("#plain [role=alert]").textContent()).toMatch(
      /the stylesheet \(.*\/plain-[0-9a-f]{12}\.css\) does not match its integrity .*; it was refused/,
    );
    expect(await page.locator("#plain .plain").count()).toBe(0);
    expect(await ruleCount(page, ".plain")).toBe(0);
    // The others, whose files are intact, are styled.
    await poll(() => style(page, "#card h2", "color")).toBe(CARD_COLOR);
    await context.close();
  });

  it("a live edit of the CSS restyles the component without a reload, leaving one copy of its rules", async () => {
    const { context, page, errors } = await open(browser, `${dev.url}/page.html`);
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
      // And back.
      await writeFile(file, before);
      await poll(() => style(page, "#plain .plain", "color")).toBe(PLAIN_COLOR);
      expect(await ruleCount(page, ".plain")).toBe(1);
    } finally {
      await writeFile(file, before);
    }
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("styles through useComponent in a React app, under a strict CSP", () => {
  it("applies a component's stylesheets once while mounted and removes them with it", async () => {
    const { context, page, errors, violations } = await open(browser, `${app.url}/app.html`);
    await poll(() => style(page, "#first h2", "color")).toBe(CARD_COLOR);
    expect(await style(page, "#second h2", "border-left")).toBe(THEME_BORDER);
    expect(await ruleCount(page, "*_title")).toBe(1);
    expect(await ruleCount(page, ".theme")).toBe(1);
    await page.evaluate(() => (window as unknown as { show(on: boolean): void }).show(false));
    await poll(() => page.locator("#none").count()).toBe(1);
    expect(await page.evaluate(() => document.adoptedStyleSheets.length)).toBe(0);
    await page.evaluate(() => (window as unknown as { show(on: boolean): void }).show(true));
    await poll(() => style(page, "#first h2", "color")).toBe(CARD_COLOR);
    expect(await ruleCount(page, "*_title")).toBe(1);
    expect(await violations()).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });
});
