/**
 * Components that import CSS (a plain file, a CSS module, `url()`s to an image and a font), in
 * real Chromium under a policy with no inline script or style, no `data:` URLs and no eval, in
 * both module-loading modes (`blob:` allowed for scripts in blob mode only; the import map's
 * nonce in import map mode): through the API (live bundling and a build directory) and from
 * `svc build`'s files (static mode). Then through `useComponent` in a React app.
 */
import { cp, readFile, writeFile } from "node:fs/promises";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { ComponentRegistry, silentLogger } from "@svc/server";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  appPages,
  browserSuite,
  buildLoaderOnce,
  bundleApp,
  noisePng,
  poll,
  type SuitePage,
  svcBuild,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";
import { MODES, type ModuleLoadingMode } from "./modes.ts";

/** What a page needs and nothing more, with the scripts of its mode. */
const policy = (scriptSrc: string) =>
  `default-src 'none'; script-src ${scriptSrc}; style-src 'self'; img-src 'self'; ` +
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

/** The URLs of every script the page fetched (by import or modulepreload). */
const scriptUrls = (page: Page) =>
  page.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry.name)
      .filter((name) => /\.js(\?|$)/.test(name)),
  );

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

type Manifest = Record<
  string,
  { file: string; urlModule?: { file: string }; css?: { file: string }[] }
>;

/** What differs between the modes, beyond the page. */
interface Expected {
  /** What a styled page of the mode also shows. */
  expectLoaded(page: Page): Promise<void>;
  /** The dev server's requests for the styled page. */
  expectDevRequests(dev: TestServer): void;
  /** The static server's requests for the styled page. */
  expectStaticRequests(server: TestServer, manifest: Manifest): Promise<void>;
  /** For the title: what of the tampered build the mode refuses. */
  refused: string;
  /** The rest of the tampered page, past the refused stylesheet. */
  expectTampered(opened: SuitePage): Promise<void>;
  /** The server whose page the unmount test opens. */
  unmountOn: "dev" | "static";
}

const EXPECTED: Record<ModuleLoadingMode["name"], Expected> = {
  blob: {
    async expectLoaded() {},
    expectDevRequests() {},
    async expectStaticRequests() {},
    refused: "a component whose stylesheet does not match the manifest's integrity",
    async expectTampered({ page }) {
      expect(await page.locator("#plain .plain").count()).toBe(0);
      // The others, whose files are intact, are styled.
      await poll(() => style(page, "#card h2", "color")).toBe(CARD_COLOR);
    },
    unmountOn: "dev",
  },
  "import map": {
    async expectLoaded(page) {
      // Imported by URL: nothing from blob:.
      expect((await scriptUrls(page)).some((url) => url.startsWith("blob:"))).toBe(false);
    },
    expectDevRequests(dev) {
      // Each bundle imported once, by its `?url` form; each stylesheet fetched once.
      for (const name of ["plain", "card", "media"]) {
        expect(dev.requestsTo(`/api/bundles/${name}.js`)).toEqual([`/api/bundles/${name}.js?url`]);
      }
      expect(dev.requestsTo("/api/bundles/theme-")).toHaveLength(1);
    },
    async expectStaticRequests(server, manifest) {
      // The manifest's urlModule of each, not its file.
      for (const name of ["plain", "card", "media"]) {
        const { file, urlModule } = manifest[name] ?? { file: "" };
        expect(urlModule?.file).toMatch(new RegExp(`^bundles/${name}\\.[0-9a-f]{12}\\.js$`));
        expect(server.requestsTo(`/static/svc/${urlModule?.file}`)).toHaveLength(1);
        expect(server.requestsTo(`/static/svc/${file}`)).toEqual([]);
        // The build machine's paths never reach the output.
        const served = await fetch(`${server.url}/static/svc/${urlModule?.file}`);
        expect(await served.text()).not.toMatch(/\/(tmp|work|home|root)\//);
      }
    },
    refused: "a stylesheet or a bundle that does not match its integrity",
    async expectTampered({ page, consoleLines }) {
      // The bundle: by the import map's integrity, in the browser.
      await poll(() => page.locator("#card [role=alert]").textContent()).toBe(
        "This component could not be shown",
      );
      await poll(() => consoleLines.join("\n")).toMatch(
        /Component "card" failed to load from http:.*\/bundles\/card\.[0-9a-f]{12}\.js/,
      );
      expect(consoleLines.join("\n")).toMatch(/integrity/);
      expect(consoleLines.join("\n")).not.toContain("pwned");
      // The untouched component is styled.
      await poll(() => style(page, "#media .backdrop", "width")).toBe("8px");
    },
    unmountOn: "static",
  },
};

const suite = browserSuite();
let work: string;
let components: string;
let out: string;
let tamperedOut: string;
let manifest: Manifest;

beforeAll(async () => {
  const [root, png, font] = await Promise.all([
    suite.tempDir("svc-styles-"),
    noisePng(48),
    aFont(),
    // loader.esm.js must be built before a server first reads the vendor build.
    buildLoaderOnce(),
  ]);
  work = root;
  const project = join(work, "project");
  await writeFiles(project, files(png, font) as Record<string, string>);
  components = join(project, "components");
  out = join(work, "build");
  await svcBuild(components, out);
  manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
  // A copy where plain's stylesheet and card's `?url` module were changed after the build.
  tamperedOut = join(work, "tampered");
  await cp(out, tamperedOut, { recursive: true });
  const plainCss = join(tamperedOut, manifest.plain?.css?.[1]?.file ?? "missing");
  await writeFile(plainCss, `${await readFile(plainCss, "utf8")}.plain{color:red}\n`);
  const cardModule = join(tamperedOut, manifest.card?.urlModule?.file ?? "missing");
  await writeFile(cardModule, `${await readFile(cardModule, "utf8")}\nconsole.log("pwned");\n`);
}, 120_000);

const registry = () => new ComponentRegistry(components, { logger: silentLogger });

describe.each(MODES)("styles and assets in %s, under a strict CSP", (mode) => {
  const expected = EXPECTED[mode.name];
  let dev: TestServer;
  let prebuilt: TestServer;
  let staticServer: TestServer;
  let tampered: TestServer;

  beforeAll(async () => {
    const headers = { "content-security-policy": policy(mode.scriptSrc) };
    const page = async (...args: Parameters<ModuleLoadingMode["page"]>) => ({
      "/page.html": { headers, body: await mode.page(...args) },
    });
    const staticPages = await page(WIDGETS, { buildDir: out });
    [dev, prebuilt, staticServer, tampered] = await Promise.all([
      suite.server({
        registry: registry(),
        handlerOptions: { logger: silentLogger },
        pages: await page(WIDGETS, "api", " data-svc-live"),
      }),
      suite.server({
        registry: registry(),
        handlerOptions: { logger: silentLogger, buildDir: out },
        pages: await page(WIDGETS, "api"),
      }),
      suite.server({ staticDir: out, pages: staticPages }),
      suite.server({ staticDir: tamperedOut, pages: staticPages }),
    ]);
  });

  // The styled page from each server: what it must show, then the requests that prove where
  // it came from.
  for (const { title, server, assets, expectRequests } of [
    {
      title: "in development (live bundling): plain CSS, a CSS module, an image and a font",
      server: () => dev,
      assets: "/api/bundles/",
      expectRequests: async () => expected.expectDevRequests(dev),
    },
    {
      title: "from a build directory through the API (prebuilt)",
      server: () => prebuilt,
      assets: "/api/bundles/",
      async expectRequests() {
        // The build's files, not live bundles: the stylesheets the manifest lists.
        for (const { file } of manifest.plain?.css ?? []) {
          expect(prebuilt.requestsTo(`/api/${file}`)).toHaveLength(1);
        }
      },
    },
    {
      title:
        "in static mode from svc build's files, through the manifest: no API, integrity checked",
      server: () => staticServer,
      assets: "/static/svc/bundles/",
      async expectRequests() {
        expect(staticServer.requestsTo("/api")).toEqual([]);
        await expected.expectStaticRequests(staticServer, manifest);
        // Two cards and a plain import the theme: fetched once.
        expect(staticServer.requestsTo("/static/svc/bundles/theme-")).toHaveLength(1);
      },
    },
  ]) {
    it(title, async () => {
      const { url } = server();
      const { page, errors, violations } = await suite.open(`${url}/page.html`);
      await expectStyled(page, url, assets);
      await expected.expectLoaded(page);
      await expectRequests();
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
    });
  }

  it(`in static mode, refuses ${expected.refused}`, async () => {
    const opened = await suite.open(`${tampered.url}/page.html`);
    // Production: a neutral placeholder in the page, the reason in the console.
    await poll(() => opened.page.locator("#plain [role=alert]").textContent()).toBe(
      "This component could not be shown",
    );
    await poll(() => opened.consoleLines.join("\n")).toMatch(
      /the stylesheet \(.*\/plain-[0-9a-f]{12}\.css\) does not match its integrity .*; it was refused/,
    );
    expect(await ruleCount(opened.page, ".plain")).toBe(0);
    await expected.expectTampered(opened);
  });

  it("removes a component's stylesheets when the last component using them unmounts", async () => {
    const server = expected.unmountOn === "dev" ? dev : staticServer;
    const { page } = await suite.open(`${server.url}/page.html`);
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
  });

  it("a live edit of the CSS restyles the component without a reload, leaving one copy of its rules", async () => {
    const { page, errors, violations } = await suite.open(`${dev.url}/page.html`);
    await poll(() => style(page, "#plain .plain", "color")).toBe(PLAIN_COLOR);
    await page.evaluate(() => {
      (window as unknown as { marker: number }).marker = 42;
    });
    const file = join(components, "plain/plain.css");
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
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });
});

describe("styles through useComponent in a React app, under a strict CSP", () => {
  let app: TestServer;

  beforeAll(async () => {
    const bundled = await bundleApp(new URL("./fixtures/stylesApp.tsx", import.meta.url));
    app = await suite.server({
      registry: registry(),
      handlerOptions: { logger: silentLogger },
      pages: appPages(bundled, { "content-security-policy": policy("'self' blob:") }),
    });
  });

  it("applies a component's stylesheets once while mounted and removes them with it", async () => {
    const { page, errors, violations } = await suite.open(`${app.url}/app.html`);
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
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });
});
