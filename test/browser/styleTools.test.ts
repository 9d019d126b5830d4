/**
 * Styles as users write them, in real Chromium: a Tailwind v4 component (PostCSS through the
 * project's `postcss.config.mjs` and `@tailwindcss/postcss`) and a Sass component (`.scss` and a
 * `.module.scss`), styled in development (live bundling, where an edit that adds a Tailwind
 * class restyles the page), from `svc build`'s files in static mode, and as islands (the
 * server-rendered HTML carries the class names and links the stylesheets). The fixture lives
 * in the repository's ignored `tmp/`, so `sass` and `tailwindcss` resolve from its
 * `node_modules` as from a project's own.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { ComponentRegistry, createHandlers, parseComponentName, silentLogger } from "@svc/server";
import type { Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  browserSuite,
  buildLoaderOnce,
  html,
  poll,
  svcBuild,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";
import { MODES } from "./modes.ts";

const REPO = fileURLToPath(new URL("../../", import.meta.url));

const POLICY =
  "default-src 'none'; script-src 'self' blob:; style-src 'self'; img-src 'self'; " +
  "connect-src 'self'; base-uri 'none'; object-src 'none'";

const TW_BACKGROUND = "rgb(11, 22, 33)";
const TW_EDITED = "rgb(44, 55, 66)";
const SCSS_COLOR = "rgb(7, 8, 9)";
const SCSS_PADDING = "10px";
const GLOBAL_OUTLINE = "rgb(1, 2, 3)";

const tailwindView = (classes: string) =>
  `export function View() {\n  return <p className="${classes}">tw</p>;\n}\n`;

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "style-tools-fixture", private: true }),
  "postcss.config.mjs": 'export default { plugins: { "@tailwindcss/postcss": {} } };\n',
  "components/tw/tw.css": '@import "tailwindcss";\n',
  "components/tw/index.tsx":
    'import "./tw.css";\nimport { View } from "./View";\nexport default function Tw() {\n  return <View />;\n}\n',
  "components/tw/View.tsx": tailwindView(`bg-[${TW_BACKGROUND.replaceAll(" ", "")}] pt-[13px]`),
  "components/card/_vars.scss": `$accent: ${SCSS_COLOR};\n$pad: 5px;\n`,
  "components/card/card.module.scss":
    "@use 'vars';\n.title {\n  padding-left: vars.$pad * 2;\n  & > b { color: vars.$accent; }\n}\n",
  "components/card/global.scss": `$ring: ${GLOBAL_OUTLINE};\n.card-frame { outline: 2px solid $ring; }\n`,
  "components/card/index.tsx":
    'import "./global.scss";\nimport styles from "./card.module.scss";\nexport default function Card() {\n  return <h2 className={`${styles.title} card-frame`}><b>card</b></h2>;\n}\n',
};

const WIDGETS = `<div id="tw">${widget("tw")}</div><div id="card">${widget("card")}</div>`;

const style = (page: Page, selector: string, property: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el, p) => getComputedStyle(el).getPropertyValue(p), property);

async function expectStyled(page: Page): Promise<void> {
  await poll(() => style(page, "#tw p", "background-color")).toBe(TW_BACKGROUND);
  expect(await style(page, "#tw p", "padding-top")).toBe("13px");
  await poll(() => style(page, "#card h2 > b", "color")).toBe(SCSS_COLOR);
  expect(await style(page, "#card h2", "padding-left")).toBe(SCSS_PADDING);
  expect(await style(page, "#card h2", "outline-color")).toBe(GLOBAL_OUTLINE);
  // The Sass module's class is scoped like a .module.css one.
  expect(await page.locator("#card h2").getAttribute("class")).toMatch(
    /^card_[0-9a-f]{8}_title card-frame$/,
  );
}

const suite = browserSuite();
let root: string;
let components: string;
let out: string;

beforeAll(async () => {
  await mkdir(join(REPO, "tmp"), { recursive: true });
  root = await mkdtemp(join(REPO, "tmp", "svc-style-tools-"));
  await writeFiles(root, FILES);
  components = join(root, "components");
  out = join(root, "build");
  await Promise.all([svcBuild(components, out), buildLoaderOnce()]);
}, 120_000);

afterAll(async () => {
  if (root !== undefined) await rm(root, { recursive: true, force: true });
});

const registry = () => new ComponentRegistry(components, { logger: silentLogger });
const headers = { "content-security-policy": POLICY };
const [blob] = MODES as [(typeof MODES)[number]];

describe("Tailwind and Sass components, under a strict CSP", () => {
  let dev: TestServer;
  let staticServer: TestServer;

  beforeAll(async () => {
    [dev, staticServer] = await Promise.all([
      suite.server({
        registry: registry(),
        handlerOptions: { logger: silentLogger },
        pages: {
          "/page.html": { headers, body: await blob.page(WIDGETS, "api", " data-svc-live") },
        },
      }),
      suite.server({
        staticDir: out,
        pages: { "/page.html": { headers, body: await blob.page(WIDGETS, { buildDir: out }) } },
      }),
    ]);
  });

  it("styles both in development, and an edit adding a Tailwind class restyles the page", async () => {
    const { page, errors, violations } = await suite.open(`${dev.url}/page.html`);
    await expectStyled(page);
    const file = join(components, "tw/View.tsx");
    const before = await readFile(file, "utf8");
    try {
      await writeFile(file, tailwindView(`bg-[${TW_EDITED.replaceAll(" ", "")}] pt-[13px]`));
      await poll(() => style(page, "#tw p", "background-color")).toBe(TW_EDITED);
    } finally {
      await writeFile(file, before);
    }
    await poll(() => style(page, "#tw p", "background-color")).toBe(TW_BACKGROUND);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("styles both from svc build's files in static mode, with no absolute path in them", async () => {
    const { page, errors, violations } = await suite.open(`${staticServer.url}/page.html`);
    await expectStyled(page);
    expect(staticServer.requestsTo("/api")).toEqual([]);
    const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as Record<
      string,
      { file: string; css?: { file: string }[] }
    >;
    for (const name of ["tw", "card"]) {
      const entry = manifest[name];
      expect(entry?.css?.length).toBeGreaterThan(0);
      for (const file of [entry?.file ?? "", ...(entry?.css ?? []).map((css) => css.file)]) {
        expect(await readFile(join(out, file), "utf8")).not.toContain(REPO);
      }
    }
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("renders both as islands: the server's HTML has the classes and links the stylesheets", async () => {
    const islands = createHandlers(registry(), { logger: silentLogger });
    const [tw, card] = await Promise.all([
      islands.renderIsland(parseComponentName("tw"), {}, { hydrate: "load" }),
      islands.renderIsland(parseComponentName("card"), {}, { hydrate: "load" }),
    ]);
    expect(tw).toContain(`bg-[${TW_BACKGROUND.replaceAll(" ", "")}]`);
    expect(tw).toMatch(/<link rel="stylesheet" href="\/api\/bundles\/tw-[0-9a-f]{12}\.css"/);
    expect(card).toMatch(/class="card_[0-9a-f]{8}_title card-frame"/);
    expect(card).toMatch(/<link rel="stylesheet" href="\/api\/bundles\/global-[0-9a-f]{12}\.css"/);
    // Server-rendered and styled before any script runs (the page has none).
    const server = await suite.server({
      registry: registry(),
      handlerOptions: { logger: silentLogger, live: false },
      pages: {
        "/islands.html": {
          headers,
          body: html(`<div id="tw">${tw}</div><div id="card">${card}</div>`, { loader: false }),
        },
      },
    });
    const { page, errors, violations } = await suite.open(`${server.url}/islands.html`);
    await expectStyled(page);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });
});
