/**
 * Errors in development and production, in real Chromium under a strict CSP (no
 * `'unsafe-inline'`): in development a build error or a throw shows the error overlay (the
 * message, `file:line:col` and a code frame the dev server sends) over the page and the message
 * in the component's place, until it is dismissed or fixed; in production (a static build, a
 * production app build) the place shows a neutral placeholder and the details go to the
 * console only. Through the standalone loader and through `@svc/react`'s default fallbacks.
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { ComponentRegistry, silentLogger } from "@svc/server";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
import {
  browserSuite,
  bundleApp,
  html,
  poll,
  svcBuild,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";

const HELLO = `export default function Hello() {
  const name = "world";
  return <p className="hello">Hello, {name}!</p>;
}
`;
/** A syntax error on line 3: esbuild says `Expected ">" but found ","`. */
const BROKEN = `export default function Hello() {
  const name = "world";
  return <p className="hello", >Hello, {name}!</p>;
}
`;
const THROWER = `export default function Thrower(): never {
  throw new Error("kaboom from thrower");
}
`;

/** A component rendering the thrower through `@svc/react` (the vendor build on a loader page). */
const NEST = `import { ServerComponent } from "@svc/react";

export default function Nest() {
  return <section className="nest"><ServerComponent name="thrower" /></section>;
}
`;

/** The policy svc documents as enough (docs/BROWSER.md): no `'unsafe-inline'` anywhere. */
const STRICT = {
  "content-security-policy":
    "default-src 'none'; script-src 'self' blob:; style-src 'self'; connect-src 'self'; img-src 'self'",
};
const PLACEHOLDER = "This component could not be shown";

const appPage = (script: string) =>
  `<!doctype html><html><body><div id="root"></div><script type="module" src="${script}"></script></body></html>`;

const suite = browserSuite();
let dir: string;
let dev: TestServer;
let production: TestServer;

beforeAll(async () => {
  dir = await suite.tempDir("svc-overlay-");
  await writeFiles(dir, {
    "hello/index.tsx": HELLO,
    "thrower/index.tsx": THROWER,
    "nest/index.tsx": NEST,
  });
  const out = join(await suite.tempDir("svc-overlay-build-"), "svc");
  const app = new URL("./fixtures/errorOverlayApp.tsx", import.meta.url);
  const [devApp, prodApp] = await Promise.all([
    bundleApp(app, "development"),
    bundleApp(app, "production"),
    svcBuild(dir, out),
  ]);
  const live = `<script src="/svc/loader.js" data-svc-live></script>`;
  dev = await suite.server({
    registry: new ComponentRegistry(dir, { logger: silentLogger }),
    handlerOptions: { logger: silentLogger },
    pages: {
      "/hello.html": {
        headers: STRICT,
        body: html(`<div id="hello">${widget("hello")}</div>${live}`, { loader: false }),
      },
      "/thrower.html": {
        headers: STRICT,
        body: html(
          `<div id="thrower">${widget("thrower")}</div><div id="hello">${widget("hello")}</div>${live}`,
          { loader: false },
        ),
      },
      "/nest.html": {
        headers: STRICT,
        body: html(`<div id="nest">${widget("nest")}</div>${live}`, { loader: false }),
      },
      "/app.dev.js": { body: devApp },
      "/app.prod.js": { body: prodApp },
      "/app.dev.html": { headers: STRICT, body: appPage("/app.dev.js") },
      "/app.prod.html": { headers: STRICT, body: appPage("/app.prod.js") },
    },
  });
  production = await suite.server({
    staticDir: out,
    pages: {
      "/page.html": {
        headers: STRICT,
        body: html(
          `<div id="thrower">${widget("thrower")}</div><div id="nope">${widget("nope")}</div>` +
            `<div id="hello">${widget("hello")}</div>`,
          { loader: ' data-svc-manifest="/static/svc/manifest.json"' },
        ),
      },
    },
  });
}, 120_000);

const save = (source: string) => writeFile(join(dir, "hello/index.tsx"), source);
const overlay = (page: Page) => page.locator("svc-error-overlay");
const overlayText = (page: Page, part: string) =>
  overlay(page)
    .locator(part)
    .allTextContents()
    .then((texts) => texts.join("\n"));

/**
 * The overlay of a syntax error saved after a working version; then the fix, which takes it
 * away (all of it unless `othersFail`: only the error's report).
 */
async function brokenThenFixed(page: Page, othersFail = false) {
  await poll(() => page.locator("#hello .hello").textContent()).toBe("Hello, world!");
  await save(BROKEN);
  await poll(() => overlayText(page, ".message")).toMatch(/index\.tsx:3:\d+: Expected ">"/);
  await poll(() => overlayText(page, ".where")).toMatch(/^index\.tsx:3:\d+$/);
  const frame = await overlayText(page, ".frame");
  // The lines around it, the error's marked, a caret under its column.
  expect(frame).toContain('  2 |   const name = "world";\n');
  expect(frame).toContain('> 3 |   return <p className="hello", >Hello, {name}!</p>;\n');
  expect(frame).toContain(`    | ${" ".repeat(29)}^\n`);
  expect(frame).toContain("  4 | }\n");
  expect(frame).not.toMatch(/\/(tmp|work|home)\//);
  // The place shows the message too.
  await poll(() => page.locator("#hello [role=alert]").textContent()).toMatch(/failed to build/);
  expect(await page.locator("#hello .hello").count()).toBe(0);

  await save(HELLO.replace("Hello,", "Hi,"));
  await poll(() => page.locator("#hello .hello").textContent()).toBe("Hi, world!");
  if (othersFail) await poll(() => overlayText(page, ".message")).not.toMatch(/failed to build/);
  else await poll(() => overlay(page).count()).toBe(0);
}

describe("development, the standalone loader (live reload)", () => {
  it("shows a syntax error over the page with file:line:col and a code frame; the fix takes it away", async () => {
    await save(HELLO);
    const { page, errors, violations } = await suite.open(`${dev.url}/hello.html`);
    await brokenThenFixed(page);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("is dismissed by its button and by Escape; the place keeps the message", async () => {
    await save(HELLO);
    const { page } = await suite.open(`${dev.url}/hello.html`);
    await poll(() => page.locator("#hello .hello").textContent()).toBe("Hello, world!");
    await save(BROKEN);
    await poll(() => overlay(page).count()).toBe(1);
    await overlay(page).getByRole("button", { name: "Dismiss" }).click();
    await poll(() => overlay(page).count()).toBe(0);
    expect(await page.locator("#hello [role=alert]").textContent()).toMatch(/failed to build/);

    // Broken another way: a new failure shows it again; Escape closes it.
    await save(BROKEN.replace("const name", "const name = 1;\n  const other"));
    await poll(() => overlayText(page, ".where")).toMatch(/^index\.tsx:4:\d+$/);
    await page.keyboard.press("Escape");
    await poll(() => overlay(page).count()).toBe(0);
    await save(HELLO);
    await poll(() => page.locator("#hello .hello").textContent()).toBe("Hello, world!");
  });

  it("names a component that throws while rendering; the others render", async () => {
    await save(HELLO);
    const { page, violations } = await suite.open(`${dev.url}/thrower.html`);
    await poll(() => overlayText(page, ".title")).toBe('Component "thrower" · Render');
    expect(await overlayText(page, ".message")).toBe(
      'Component "thrower" threw: kaboom from thrower',
    );
    expect(await page.locator("#thrower [role=alert]").textContent()).toBe(
      'Component "thrower" threw: kaboom from thrower',
    );
    await poll(() => page.locator("#hello .hello").textContent()).toBe("Hello, world!");
    expect(violations).toEqual([]);
  });

  it("a component nested through ServerComponent fails as the loader's own do (message and overlay, no placeholder)", async () => {
    const { page, violations } = await suite.open(`${dev.url}/nest.html`);
    await poll(() => overlayText(page, ".title")).toBe('Component "thrower" · Render');
    expect(await page.locator("#nest .nest [role=alert]").textContent()).toBe(
      'Component "thrower" threw: kaboom from thrower',
    );
    expect(violations).toEqual([]);
  });
});

describe("development, a React app (useComponent, ServerComponent)", () => {
  it("shows the overlay for a build error of a useComponent component and a throw; the fix takes the first away", async () => {
    await save(HELLO);
    const { page, violations } = await suite.open(`${dev.url}/app.dev.html`);
    await poll(() => overlayText(page, ".title")).toBe('Component "thrower" · Render');
    await brokenThenFixed(page, true);
    // The throw is still there.
    expect(await overlayText(page, ".title")).toBe('Component "thrower" · Render');
    expect(await page.locator("#thrower [role=alert]").textContent()).toBe(
      'Component "thrower" threw: kaboom from thrower',
    );
    expect(violations).toEqual([]);
  });
});

describe("production", () => {
  it("the loader in static mode shows a neutral placeholder; the details only in the console", async () => {
    const { page, consoleLines, violations } = await suite.open(`${production.url}/page.html`);
    await poll(() => page.locator("#hello .hello").textContent()).toBe("Hello, world!");
    await poll(() => page.locator("#thrower [role=alert]").textContent()).toBe(PLACEHOLDER);
    await poll(() => page.locator("#nope [role=alert]").textContent()).toBe(PLACEHOLDER);
    const body = await page.locator("body").evaluate((element) => element.outerHTML);
    expect(body).not.toContain("kaboom");
    expect(body).not.toContain("No component named");
    expect(await overlay(page).count()).toBe(0);
    await poll(() => consoleLines.join("\n")).toMatch(
      /svc: component "thrower" could not be shown:[\s\S]*kaboom from thrower/,
    );
    expect(consoleLines.join("\n")).toMatch(/svc: component "nope" could not be shown/);
    expect(violations).toEqual([]);
  });

  it("a production React app shows the placeholder; the details only in the console", async () => {
    await save(HELLO);
    const { page, consoleLines } = await suite.open(`${dev.url}/app.prod.html`);
    await poll(() => page.locator("#hello .hello").textContent()).toBe("Hello, world!");
    await poll(() => page.locator("#thrower [role=alert]").textContent()).toBe(PLACEHOLDER);
    expect(await page.locator("body").evaluate((element) => element.outerHTML)).not.toContain(
      "kaboom",
    );
    expect(await overlay(page).count()).toBe(0);
    await poll(() => consoleLines.join("\n")).toMatch(
      /svc: component "thrower" could not be shown:[\s\S]*kaboom from thrower/,
    );
  });
});
