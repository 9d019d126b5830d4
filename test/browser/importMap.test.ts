import { cp, readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { type ComponentRegistry, renderImportMap } from "@svc/server";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  buildLoaderOnce,
  fixtureRegistry,
  launchBrowser,
  makeTempDir,
  openPage,
  removeDir,
  startTestServer,
  svcBuild,
  type TestServer,
  widget,
} from "./helpers.ts";

const NONCE = "r4nd0mN0nce";
const CSP = `script-src 'self' 'nonce-${NONCE}'; object-src 'none'`;

// `outer` renders `inner` through @svc/react's useComponent and hands it a context of its own
// React: `inner` reads it only if both components run on the page's one React.
const COMPONENTS = {
  "outer/index.tsx": `import { createContext, useState } from "react";
import { useComponent } from "@svc/react";
const Shared = createContext("no provider");
export default function Outer({ label = "outer" }: { label?: string }) {
  const Inner = useComponent<{ context: typeof Shared }>("inner");
  const [clicks, setClicks] = useState(0);
  return (
    <Shared.Provider value={\`\${label} value \${clicks}\`}>
      <button type="button" className="outer" onClick={() => setClicks(clicks + 1)}>{label}</button>
      <Inner context={Shared} />
    </Shared.Provider>
  );
}
`,
  "inner/index.tsx": `import { type Context, useContext, useState } from "react";
export default function Inner({ context }: { context: Context<string> }) {
  const value = useContext(context);
  const [mounted] = useState("inner mounted");
  return <p className="inner">{mounted}: {value}</p>;
}
`,
  "styled/index.tsx": `import { styled } from "goober";
const Box = styled("p")\`
  color: rgb(0, 128, 0);
\`;
export default function Styled() {
  return <Box className="styled">styled</Box>;
}
`,
  // A CSS module: its stylesheet applied by the client, the bundle imported in its `?url` form.
  "boxed/index.tsx": `import styles from "./Boxed.module.css";
export default function Boxed() {
  return <p className={styles.box}>boxed</p>;
}
`,
  "boxed/Boxed.module.css": `.box { color: rgb(0, 0, 255); }
`,
  "broken/index.tsx": `export default function Broken() {
  return <p>{</p>;
}
`,
};

function poll<T>(fn: () => T | Promise<T>) {
  return expect.poll(fn, { timeout: 20_000 });
}

function page(head: string, body: string): string {
  return `<!doctype html><html><head><meta charset="utf-8">${head}</head><body>${body}</body></html>`;
}

/** Records CSP violations (events and console reports) from before the page's first script. */
async function watchCsp(p: Page): Promise<string[]> {
  const reports: string[] = [];
  p.on("console", (message) => {
    if (/Content Security Policy/i.test(message.text())) reports.push(message.text());
  });
  await p.exposeFunction("__svcCspViolation", (text: string) => reports.push(text));
  await p.addInitScript(() => {
    document.addEventListener("securitypolicyviolation", (event) => {
      const report = (window as unknown as { __svcCspViolation(text: string): void })
        .__svcCspViolation;
      report(`${event.violatedDirective} blocked ${event.blockedURI}`);
    });
  });
  return reports;
}

/** The URLs of every script the page fetched. */
function scriptUrls(p: Page): Promise<string[]> {
  return p.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry.name)
      .filter((name) => /\.js(\?|$)/.test(name)),
  );
}

describe("the no-blob CSP mode (import map + loader.esm.js)", () => {
  let browser: Browser;
  let registry: ComponentRegistry;
  let components: string | undefined;
  let work: string | undefined;
  let dev: TestServer;
  let staticServer: TestServer;
  let tampered: TestServer;

  const WIDGETS =
    `<div id="outer">${widget("outer", { label: "dev" })}</div>` +
    `<div id="styled">${widget("styled")}</div>` +
    `<div id="broken">${widget("broken")}</div>` +
    `<div id="missing">${widget("missing_one")}</div>`;

  beforeAll(async () => {
    // loader.esm.js must be built before the server first reads the vendor build.
    await buildLoaderOnce();
    ({ dir: components, registry } = await fixtureRegistry(COMPONENTS));
    work = await makeTempDir("svc-importmap-");

    const headers = { "content-security-policy": CSP };
    const devMap = await renderImportMap({ apiBase: "/api", nonce: NONCE });
    dev = await startTestServer({
      registry,
      pages: {
        "/esm.html": {
          headers,
          body: page(
            devMap,
            `${WIDGETS}<script type="module" src="/api/loader.esm.js" data-svc-api="/api"></script>`,
          ),
        },
        "/css.html": {
          headers,
          body: page(
            devMap,
            `<div id="boxed">${widget("boxed")}</div><script type="module" src="/api/loader.esm.js" data-svc-api="/api"></script>`,
          ),
        },
        "/classic.html": {
          headers,
          body: page("", `${WIDGETS}<script src="/svc/loader.js"></script>`),
        },
      },
    });

    // Static: the real command line; then a plain static server, no API at all.
    const out = join(work, "svc");
    const { dir: staticComponents } = await fixtureRegistry(
      Object.fromEntries(Object.entries(COMPONENTS).filter(([path]) => !path.startsWith("broken"))),
    );
    await svcBuild(staticComponents, out);
    await removeDir(staticComponents);
    const staticMap = await renderImportMap({
      buildDir: out,
      staticUrl: "/static/svc/",
      nonce: NONCE,
    });
    const staticPage = page(
      staticMap,
      `<div id="outer">${widget("outer", { label: "static" })}</div>` +
        `<div id="styled">${widget("styled")}</div>` +
        `<script type="module" src="/static/svc/loader.esm.js" data-svc-manifest="/static/svc/manifest.json"></script>`,
    );
    const staticCssPage = page(
      staticMap,
      `<div id="boxed">${widget("boxed")}</div>` +
        `<script type="module" src="/static/svc/loader.esm.js" data-svc-manifest="/static/svc/manifest.json"></script>`,
    );
    // The same page over a copy whose `inner` bundle was changed after the build.
    const broken = join(work, "tampered");
    await cp(out, broken, { recursive: true });
    const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
    const inner = join(broken, manifest.inner.file);
    await writeFile(inner, (await readFile(inner, "utf8")).replace("inner mounted", "pwned"));

    [browser, staticServer, tampered] = await Promise.all([
      launchBrowser(),
      startTestServer({
        staticDir: out,
        pages: {
          "/esm.html": { headers, body: staticPage },
          "/css.html": { headers, body: staticCssPage },
        },
      }),
      startTestServer({ staticDir: broken, pages: { "/esm.html": { headers, body: staticPage } } }),
    ]);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await Promise.all([dev?.close(), staticServer?.close(), tampered?.close()]);
    await removeDir(components);
    await removeDir(work);
  });

  it("renders in development through the API, nested useComponent on one React, no violation", async () => {
    const { context, page: p, errors } = await openPage(browser);
    const violations = await watchCsp(p);
    await p.goto(`${dev.url}/esm.html`);
    await poll(() => p.locator("#outer .inner").textContent()).toBe("inner mounted: dev value 0");
    // State and context cross the component boundary: one React renders both.
    await p.locator("#outer button.outer").click();
    await poll(() => p.locator("#outer .inner").textContent()).toBe("inner mounted: dev value 1");
    // goober from the import map, set up by the loader.
    await poll(() =>
      p.locator("#styled .styled").evaluate((el) => getComputedStyle(el).color),
    ).toBe("rgb(0, 128, 0)");
    // Errors still land in their container, with the server's reason.
    await poll(() => p.locator("#broken [role=alert]").textContent()).toMatch(/failed to build/);
    await poll(() => p.locator("#missing [role=alert]").textContent()).toMatch(
      /No component named "missing_one"/,
    );

    // Bundles by their own URLs, React once, nothing from blob:.
    const scripts = await scriptUrls(p);
    expect(scripts.filter((url) => url.includes("/api/bundles/outer.js"))).toHaveLength(1);
    expect(scripts.filter((url) => url.includes("/api/bundles/inner.js"))).toHaveLength(1);
    expect(scripts.filter((url) => /\/vendor\/react\.[0-9a-f]{12}\.js$/.test(url))).toHaveLength(1);
    expect(scripts.filter((url) => /react\.(development|production)/.test(url))).toEqual([]);
    expect(scripts.some((url) => url.startsWith("blob:"))).toBe(false);
    expect(await p.evaluate(() => window.svc?.version)).toMatch(/^\d+\.\d+\.\d+/);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("serves the vendor modules content-hashed, immutable, nosniff", async () => {
    const map = await renderImportMap({ apiBase: "/api" });
    const json = JSON.parse(map.replace(/^<script type="importmap">|<\/script>$/g, ""));
    const url = json.imports.react as string;
    expect(url).toMatch(/^\/api\/vendor\/react\.[0-9a-f]{12}\.js$/);
    const response = await fetch(`${dev.url}${url}`);
    expect(response.status).toBe(200);
    expect(response.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(response.headers.get("x-content-type-options")).toBe("nosniff");
    expect(response.headers.get("content-type")).toMatch(/javascript/);
    const body = new Uint8Array(await response.arrayBuffer());
    const digest = await crypto.subtle.digest("SHA-384", body);
    expect(json.integrity[url]).toBe(`sha384-${Buffer.from(digest).toString("base64")}`);
    expect(new TextDecoder().decode(body)).not.toMatch(/\/(tmp|work|home|root)\//);
    expect((await fetch(`${dev.url}/api/vendor/react.000000000000.js`)).status).toBe(404);
  });

  it("refuses the classic loader.js under the same policy (blob: is not allowed)", async () => {
    const { context, page: p } = await openPage(browser);
    const violations = await watchCsp(p);
    await p.goto(`${dev.url}/classic.html`);
    await poll(() => violations.join("\n")).toMatch(/blob/);
    await poll(() => p.locator("#outer [role=alert]").count()).toBe(1);
    expect(await p.locator("#outer .inner").count()).toBe(0);
    await context.close();
  });

  it("renders in static mode from a plain static server: manifest, vendor files, no API", async () => {
    const { context, page: p, errors } = await openPage(browser);
    const violations = await watchCsp(p);
    await p.goto(`${staticServer.url}/esm.html`);
    await poll(() => p.locator("#outer .inner").textContent()).toBe(
      "inner mounted: static value 0",
    );
    await p.locator("#outer button.outer").click();
    await poll(() => p.locator("#outer .inner").textContent()).toBe(
      "inner mounted: static value 1",
    );
    await poll(() =>
      p.locator("#styled .styled").evaluate((el) => getComputedStyle(el).color),
    ).toBe("rgb(0, 128, 0)");
    expect(staticServer.requestsTo("/api")).toEqual([]);
    const files = staticServer.requestsTo("/static/svc/");
    expect(files.filter((r) => r.startsWith("/static/svc/bundles/")).sort()).toEqual([
      expect.stringMatching(/^\/static\/svc\/bundles\/inner\.[0-9a-f]{12}\.js$/),
      expect.stringMatching(/^\/static\/svc\/bundles\/outer\.[0-9a-f]{12}\.js$/),
      expect.stringMatching(/^\/static\/svc\/bundles\/styled\.[0-9a-f]{12}\.js$/),
    ]);
    expect(
      files.filter((r) => /^\/static\/svc\/vendor\/react\.[0-9a-f]{12}\.js$/.test(r)),
    ).toHaveLength(1);
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
    await context.close();
  });

  it("renders a component with a CSS module in development and static mode, no violation", async () => {
    for (const server of [dev, staticServer]) {
      const { context, page: p, errors } = await openPage(browser);
      const violations = await watchCsp(p);
      await p.goto(`${server.url}/css.html`);
      await poll(() => p.locator("#boxed p").evaluate((el) => getComputedStyle(el).color)).toBe(
        "rgb(0, 0, 255)",
      );
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
      await context.close();
    }
  });

  it("in static mode, a bundle whose bytes do not match the import map's integrity never runs", async () => {
    const { context, page: p } = await openPage(browser);
    const consoleLines: string[] = [];
    p.on("console", (message) => consoleLines.push(message.text()));
    await p.goto(`${tampered.url}/esm.html`);
    await poll(() => p.locator("#outer [role=alert]").textContent()).toMatch(
      /Component "inner" failed to load from http:.*\/bundles\/inner\.[0-9a-f]{12}\.js/,
    );
    // Refused by the browser for its digest, not for any other reason.
    expect(consoleLines.join("\n")).toMatch(/integrity/);
    expect(await p.locator("body").textContent()).not.toContain("pwned");
    // The untouched component renders.
    await poll(() => p.locator("#styled .styled").count()).toBe(1);
    await context.close();
  });
});
