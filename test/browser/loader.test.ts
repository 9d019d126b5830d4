/**
 * The loader in real Chromium. First in each module-loading mode under the CSP the mode needs
 * (blob: `loader.js`, `script-src 'self' blob:`; import map: `loader.esm.js`, `script-src` with
 * the map's nonce and no `blob:`), through the API and in static mode; then what only the
 * import map mode has; then `loader.js`'s page API (`window.svc`), and `svc serve` serving it.
 */
import { readFileSync } from "node:fs";
import { cp, readFile, writeFile } from "node:fs/promises";
import { SourceMap } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { rewriteImports } from "@svc/runtime";
import {
  type ComponentRegistry,
  type DevServer,
  renderImportMap,
  startDevServer,
} from "@svc/server";
import type { Page } from "playwright-core";
import { beforeAll, describe, expect, it } from "vitest";
// For its `window.svc` declaration.
import type {} from "../../packages/loader/src/loader.tsx";
import { renderWidget } from "../../packages/server/src/http/widget.ts";
import {
  browserSuite,
  buildLoaderOnce,
  html,
  poll,
  QUIET_DEV_SERVER,
  svcBuild,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";
import { MODES, type ModuleLoadingMode } from "./modes.ts";

const suite = browserSuite();

/** A component styled with goober: an element `tag` of class `className`, in `color`. */
const styledBy = (tag: string, className: string, color: string) =>
  `import { styled } from "goober";
const Box = styled("${tag}")\`
  color: ${color};
\`;
export default function Styled() {
  return <Box className="${className}">styled</Box>;
}
`;

// `outer` renders `inner` through @svc/react's useComponent and hands it a context of its own
// React: `inner` reads it only if both components run on the page's one React.
const MODE_COMPONENTS = {
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
  "styled/index.tsx": styledBy("p", "styled", "rgb(0, 128, 0)"),
  // A CSS module: its stylesheet applied by the client (in import map mode the bundle imported
  // in its `?url` form).
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

const WIDGETS = (label: string) =>
  `<div id="outer">${widget("outer", { label })}</div>` +
  `<div id="styled">${widget("styled")}</div>`;
const BOXED = `<div id="boxed">${widget("boxed")}</div>`;

/** The policy of a page of `mode`: its scripts, and no plugins. */
const policy = (mode: ModuleLoadingMode) => ({
  "content-security-policy": `script-src ${mode.scriptSrc}; object-src 'none'`,
});

/** The URLs of every script the page fetched. */
function scriptUrls(p: Page): Promise<string[]> {
  return p.evaluate(() =>
    performance
      .getEntriesByType("resource")
      .map((entry) => entry.name)
      .filter((name) => /\.js(\?|$)/.test(name)),
  );
}

const VENDOR_REACT = /\/vendor\/react\.[0-9a-f]{12}\.js$/;

/** What differs between the modes, beyond the page. */
interface Expected {
  /** The vendor build's React files a page fetches. */
  vendorReact: number;
  /** What else the scripts of a page through the API show. */
  expectScripts(scripts: string[]): void;
  /** Whose integrity a tampered bundle fails, for the title. */
  integrityOf: string;
  /** The error the component that asked for a tampered bundle shows. */
  refused: RegExp;
  /** The rest of a page with a tampered bundle, past its error. */
  expectRefused(consoleLines: string[]): void;
}

const EXPECTED: Record<ModuleLoadingMode["name"], Expected> = {
  blob: {
    // loader.js carries React.
    vendorReact: 0,
    expectScripts() {},
    integrityOf: "the manifest's",
    refused: /does not match its integrity/,
    expectRefused() {},
  },
  "import map": {
    vendorReact: 1,
    expectScripts(scripts) {
      // Bundles by their own URLs, nothing from blob:.
      expect(scripts.some((url) => url.startsWith("blob:"))).toBe(false);
    },
    integrityOf: "the import map's",
    refused: /Component "inner" failed to load from http:.*\/bundles\/inner\.[0-9a-f]{12}\.js/,
    expectRefused(consoleLines) {
      // Refused by the browser for its digest, not for any other reason.
      expect(consoleLines.join("\n")).toMatch(/integrity/);
    },
  },
};

describe("the loader in each module-loading mode", () => {
  let registry: ComponentRegistry;
  let out: string;
  let tamperedOut: string;

  beforeAll(async () => {
    // loader.esm.js must be built before the server first reads the vendor build.
    await buildLoaderOnce();
    ({ registry } = await suite.fixtures(MODE_COMPONENTS));
    // Static: the real command line; then a plain static server, no API at all.
    const work = await suite.tempDir("svc-modes-");
    out = join(work, "svc");
    const { dir: staticComponents } = await suite.fixtures(
      Object.fromEntries(
        Object.entries(MODE_COMPONENTS).filter(([path]) => !path.startsWith("broken")),
      ),
    );
    await svcBuild(staticComponents, out);
    // A copy whose `inner` bundle was changed after the build.
    tamperedOut = join(work, "tampered");
    await cp(out, tamperedOut, { recursive: true });
    const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8"));
    const inner = join(tamperedOut, manifest.inner.file);
    await writeFile(inner, (await readFile(inner, "utf8")).replace("inner mounted", "pwned"));
  }, 120_000);

  describe.each(MODES)("%s, under its CSP", (mode) => {
    const expected = EXPECTED[mode.name];
    let dev: TestServer;
    let staticServer: TestServer;
    let tampered: TestServer;

    beforeAll(async () => {
      const headers = policy(mode);
      const staticPage = await mode.page(WIDGETS("static"), { buildDir: out });
      [dev, staticServer, tampered] = await Promise.all([
        suite.server({
          registry,
          pages: {
            "/page.html": {
              headers,
              body: await mode.page(
                WIDGETS("dev") +
                  `<div id="broken">${widget("broken")}</div>` +
                  `<div id="missing">${widget("missing_one")}</div>`,
                "api",
              ),
            },
            "/css.html": { headers, body: await mode.page(BOXED, "api") },
          },
        }),
        suite.server({
          staticDir: out,
          pages: {
            "/page.html": { headers, body: staticPage },
            "/css.html": { headers, body: await mode.page(BOXED, { buildDir: out }) },
          },
        }),
        suite.server({
          staticDir: tamperedOut,
          pages: { "/page.html": { headers, body: staticPage } },
        }),
      ]);
    });

    it("renders in development through the API, nested useComponent on one React, no violation", async () => {
      const { page: p, errors, violations } = await suite.open(`${dev.url}/page.html`);
      await poll(() => p.locator("#outer .inner").textContent()).toBe("inner mounted: dev value 0");
      // State and context cross the component boundary: one React renders both.
      await p.locator("#outer button.outer").click();
      await poll(() => p.locator("#outer .inner").textContent()).toBe("inner mounted: dev value 1");
      // goober, set up by the loader (in import map mode, from the import map).
      await poll(() =>
        p.locator("#styled .styled").evaluate((el) => getComputedStyle(el).color),
      ).toBe("rgb(0, 128, 0)");
      // Errors still land in their container, with the server's reason.
      await poll(() => p.locator("#broken [role=alert]").textContent()).toMatch(/failed to build/);
      await poll(() => p.locator("#missing [role=alert]").textContent()).toMatch(
        /No component named "missing_one"/,
      );

      // Each bundle once, React once (or not at all: inside the loader).
      const scripts = await scriptUrls(p);
      expect(scripts.filter((url) => url.includes("/api/bundles/outer.js"))).toHaveLength(1);
      expect(scripts.filter((url) => url.includes("/api/bundles/inner.js"))).toHaveLength(1);
      expect(scripts.filter((url) => VENDOR_REACT.test(url))).toHaveLength(expected.vendorReact);
      expect(scripts.filter((url) => /react\.(development|production)/.test(url))).toEqual([]);
      expected.expectScripts(scripts);
      expect(await p.evaluate(() => window.svc?.version)).toMatch(/^\d+\.\d+\.\d+/);
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
    });

    it("renders in static mode from a plain static server: manifest, vendor files, no API", async () => {
      const { page: p, errors, violations } = await suite.open(`${staticServer.url}/page.html`);
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
      expect(files.filter((r) => VENDOR_REACT.test(r))).toHaveLength(expected.vendorReact);
      expect(violations).toEqual([]);
      expect(errors).toEqual([]);
    });

    it("renders a component with a CSS module in development and static mode, no violation", async () => {
      for (const server of [dev, staticServer]) {
        const { page: p, errors, violations } = await suite.open(`${server.url}/css.html`);
        await poll(() => p.locator("#boxed p").evaluate((el) => getComputedStyle(el).color)).toBe(
          "rgb(0, 0, 255)",
        );
        expect(violations).toEqual([]);
        expect(errors).toEqual([]);
      }
    });

    it(`in static mode, a bundle whose bytes do not match ${expected.integrityOf} integrity never runs`, async () => {
      const { page: p, consoleLines } = await suite.open(`${tampered.url}/page.html`);
      // Production: a neutral placeholder in the page, the reason in the console.
      await poll(() => p.locator("#outer [role=alert]").textContent()).toBe(
        "This component could not be shown",
      );
      await poll(() => consoleLines.join("\n")).toMatch(expected.refused);
      expected.expectRefused(consoleLines);
      expect(await p.locator("body").textContent()).not.toContain("pwned");
      // The untouched component renders.
      await poll(() => p.locator("#styled .styled").count()).toBe(1);
    });
  });

  describe("import map mode only", () => {
    let dev: TestServer;

    beforeAll(async () => {
      const importMapMode = MODES.find((mode) => mode.name === "import map") as ModuleLoadingMode;
      dev = await suite.server({
        registry,
        // The classic loader under the import map mode's policy.
        pages: { "/classic.html": { headers: policy(importMapMode), body: html(WIDGETS("dev")) } },
      });
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
      const { page: p, violations } = await suite.open(`${dev.url}/classic.html`);
      await poll(() => violations.join("\n")).toMatch(/blob/);
      await poll(() => p.locator("#outer [role=alert]").count()).toBe(1);
      expect(await p.locator("#outer .inner").count()).toBe(0);
    });
  });
});

const COMPONENTS = {
  "hello/index.tsx": `export default function Hello({ name = "world" }: { name?: string }) {
  return <p className="hello">Hello, {name}!</p>;
}
`,
  "clicker/index.tsx": `import { useState } from "react";
export default function Clicker({ start = 0 }: { start?: number }) {
  const [count, setCount] = useState(start);
  return <button type="button" className="clicker" onClick={() => setCount(count + 1)}>clicked {count}</button>;
}
`,
  "styled_box/index.tsx": styledBy("div", "styled-box", "rgb(255, 0, 0)"),
  "portal/index.tsx": `import { createPortal } from "react-dom";
export default function Portal({ id = "p" }: { id?: string }) {
  return <span className="portal-host">{createPortal(<span className="portal" data-id={id}>in portal</span>, document.body)}</span>;
}
`,
  "editable/index.tsx": `export default function Editable() {
  return <p className="editable">version one</p>;
}
`,
  "typed/index.tsx": `export default function Typed({ count }: { count: number }) {
  return <output className="typed">{count}</output>;
}
`,
  "typed/schema.json": JSON.stringify({
    type: "object",
    properties: { count: { type: "integer" } },
    required: ["count"],
  }),
  "thrower/index.tsx": `export { default } from "./Thrower";\n`,
  // The throw sits on line 6, column 11 (1-based) of Thrower.tsx.
  "thrower/Thrower.tsx": `export interface ThrowerProps {
  message?: string;
}
export default function Thrower({ message = "thrown on purpose" }: ThrowerProps) {
  if (message) {
    throw new Error(message);
  }
  return null;
}
`,
};

describe("loader.js in blob mode: the page, and window.svc", () => {
  let server: TestServer;
  let dir: string;

  beforeAll(async () => {
    const [fixtures] = await Promise.all([suite.fixtures(COMPONENTS), buildLoaderOnce()]);
    dir = fixtures.dir;
    server = await suite.server({ registry: fixtures.registry });
  });

  async function open(path: string, body: string, headers?: Record<string, string>) {
    server.setPage(path, { body, headers });
    const requestsSince = server.since();
    return { ...(await suite.open(server.url + path)), requestsSince };
  }

  it("renders each container, using the shared React, react-dom and goober", async () => {
    const { page } = await open(
      "/basic.html",
      html(
        widget("hello", { name: "svc" }) +
          widget("clicker", { start: 5 }) +
          widget("styled_box") +
          widget("portal", { id: "one" }),
      ),
    );
    await poll(() => page.locator(".hello").textContent()).toBe("Hello, svc!");
    await page.locator(".clicker").click();
    await poll(() => page.locator(".clicker").textContent()).toBe("clicked 6");
    // goober was set up with React: the styled element got its class and its CSS.
    await poll(() => page.locator(".styled-box").evaluate((el) => getComputedStyle(el).color)).toBe(
      "rgb(255, 0, 0)",
    );
    // react-dom (a bundle external) is in the registry: the portal rendered into <body>.
    await poll(() => page.locator("body > .portal").getAttribute("data-id")).toBe("one");
    // The loading placeholder is gone once the component is there.
    expect(await page.locator(".placeholder").count()).toBe(0);
    // window.svc.version is the loader package's version, set when it was built.
    const { version } = JSON.parse(
      readFileSync(new URL("../../packages/loader/package.json", import.meta.url), "utf8"),
    ) as { version: string };
    expect(await page.evaluate(() => window.svc?.version)).toBe(version);
  });

  it("shows a failing component's error in its own container while the others keep working", async () => {
    const { page } = await open(
      "/errors.html",
      html(
        `<section id="a">${widget("thrower", { message: "Thrower exploded" })}</section>` +
          `<section id="b">${widget("nope")}</section>` +
          `<section id="c">${widget("clicker")}</section>` +
          `<section id="d"><div data-svc-component="hello" data-svc-props='{"name": oops}'></div></section>` +
          `<section id="e">${widget("hello", { name: "still here" })}</section>`,
      ),
    );
    await poll(() => page.locator("#a [role=alert]").textContent()).toContain("Thrower exploded");
    await poll(() => page.locator("#b [role=alert]").textContent()).toMatch(
      /No component named "[a-z_]*" was found/,
    );
    await poll(() => page.locator("#d [role=alert]").textContent()).toMatch(
      /Invalid data-svc-props for component "hello"/,
    );
    await poll(() => page.locator("#e .hello").textContent()).toBe("Hello, still here!");
    await page.locator("#c .clicker").click();
    await poll(() => page.locator("#c .clicker").textContent()).toBe("clicked 1");
    expect(await page.locator("[role=alert]").count()).toBe(3);
  });

  it("renders under a Content-Security-Policy of script-src 'self' blob: (no unsafe-eval)", async () => {
    const { page, errors, violations } = await open(
      "/csp.html",
      html(widget("hello", { name: "csp" }) + widget("styled_box") + widget("clicker")),
      { "content-security-policy": "script-src 'self' blob:" },
    );
    await poll(() => page.locator(".hello").textContent()).toBe("Hello, csp!");
    await page.locator(".clicker").click();
    await poll(() => page.locator(".clicker").textContent()).toBe("clicked 1");
    expect(violations).toEqual([]);
    expect(errors).toEqual([]);
  });

  it("fetches each bundle exactly once for 20 widgets of 4 components", async () => {
    const names = ["hello", "clicker", "styled_box", "portal"];
    const widgets = Array.from({ length: 20 }, (_, i) =>
      widget(names[i % 4] as string, i % 4 === 0 ? { name: `n${i}` } : {}),
    ).join("");
    const { page, requestsSince } = await open("/twenty.html", html(widgets));
    await poll(() => page.locator(".hello").count()).toBe(5);
    await poll(() => page.locator(".clicker").count()).toBe(5);
    await poll(() => page.locator(".styled-box").count()).toBe(5);
    await poll(() => page.locator("body > .portal").count()).toBe(5);
    const bundleRequests = requestsSince().filter((r) => r.startsWith("/api/bundles/"));
    expect(bundleRequests.sort()).toEqual(names.map((n) => `/api/bundles/${n}.js`).sort());
  });

  it("renders renderWidget's output, with hostile props shown as inert text", async () => {
    const hostile = `</script><script>window.pwned = 1</script>"' onmouseover="window.pwned = 2`;
    const { page, errors } = await open(
      "/widget.html",
      html(renderWidget("hello", { name: hostile }, { hash: "0123456789ab" })),
    );
    await poll(() => page.locator(".hello").textContent()).toBe(`Hello, ${hostile}!`);
    expect(await page.evaluate(() => (window as { pwned?: number }).pwned)).toBeUndefined();
    expect(await page.locator("script").count()).toBe(1);
    expect(errors).toEqual([]);
  });

  it("sends data-svc-hash as the cache-busting query", async () => {
    const { page, requestsSince } = await open(
      "/hash.html",
      html(widget("hello", {}, ' data-svc-hash="abc123def456"')),
    );
    await poll(() => page.locator(".hello").count()).toBe(1);
    expect(requestsSince()).toContain("/api/bundles/hello.js?abc123def456");
  });

  it("window.svc.update re-renders with new props and keeps data-svc-props in step", async () => {
    const { page } = await open(
      "/update.html",
      html(`<div id="w">${widget("hello", { name: "first" })}</div><div id="later"></div>`),
    );
    await poll(() => page.locator("#w .hello").textContent()).toBe("Hello, first!");
    await page.evaluate(() => {
      const container = document.querySelector("#w [data-svc-component]") as Element;
      window.svc?.update(container, { name: "second" });
    });
    await poll(() => page.locator("#w .hello").textContent()).toBe("Hello, second!");
    expect(await page.locator("#w [data-svc-component]").getAttribute("data-svc-props")).toBe(
      '{"name":"second"}',
    );
    // update() also fixes a container whose props were invalid.
    // render() picks up containers added after load, and skips rendered ones.
    const found = await page.evaluate(() => {
      const later = document.querySelector("#later") as Element;
      later.innerHTML = '<div data-svc-component="clicker" data-svc-props="{}"></div>';
      return window.svc?.render().length;
    });
    expect(found).toBe(2);
    await poll(() => page.locator("#later .clicker").textContent()).toBe("clicked 0");
    expect(await page.locator("#w .hello").textContent()).toBe("Hello, second!");
  });

  it("window.svc.reload fetches a changed component again; the others keep their state", async () => {
    const { page } = await open("/reload.html", html(widget("editable") + widget("clicker")));
    await poll(() => page.locator(".editable").textContent()).toBe("version one");
    await page.locator(".clicker").click();
    await poll(() => page.locator(".clicker").textContent()).toBe("clicked 1");
    await writeFiles(dir, {
      "editable/index.tsx": `export default function Editable() {
  return <p className="editable">version two, edited</p>;
}
`,
    });
    await page.evaluate(() => window.svc?.reload("editable"));
    await poll(() => page.locator(".editable").textContent()).toBe("version two, edited");
    expect(await page.locator(".clicker").textContent()).toBe("clicked 1");
  });

  it("loader.dev.js validates props against schema.json; loader.js does not", async () => {
    const { development } = await buildLoaderOnce();
    server.setPage("/svc/loader.dev.js", { body: await readFile(development, "utf8") });
    const body = widget("typed", { count: "three" }) + widget("typed", { count: 3 });
    const dev = await open("/dev-loader.html", html(body, { loaderSrc: "/svc/loader.dev.js" }));
    await poll(() => dev.page.locator("[role=alert]").textContent()).toMatch(
      /Invalid props for component "typed": count: .*integer/,
    );
    await poll(() => dev.page.locator(".typed").textContent()).toBe("3");
    const prod = await open("/prod-loader.html", html(body));
    await poll(() => prod.page.locator(".typed").count()).toBe(2);
    expect(await prod.page.locator("[role=alert]").count()).toBe(0);
  });

  it("changes nothing when the script runs twice: one React, hooks still work", async () => {
    const { page, errors } = await open(
      "/twice.html",
      `<!doctype html><html><body>${widget("clicker")}
<script src="/svc/loader.js"></script>
<script>window.first = { svc: window.svc, react: window.__MODULES__.react, dom: window.__MODULES__["react-dom/client"] };</script>
<script src="/svc/loader.js?again"></script>
</body></html>`,
    );
    await page.locator(".clicker").click();
    await page.locator(".clicker").click();
    await poll(() => page.locator(".clicker").textContent()).toBe("clicked 2");
    const same = await page.evaluate(() => {
      const w = window as unknown as {
        first: { svc: unknown; react: unknown; dom: unknown };
        __MODULES__: Record<string, unknown>;
      };
      return {
        svc: w.first.svc === window.svc,
        react: w.first.react === w.__MODULES__.react,
        dom: w.first.dom === w.__MODULES__["react-dom/client"],
        loaderRuns: performance
          .getEntriesByType("resource")
          .filter((entry) => entry.name.includes("/svc/loader.js")).length,
        roots: document.querySelectorAll(".clicker").length,
      };
    });
    expect(same).toEqual({ svc: true, react: true, dom: true, loaderRuns: 2, roots: 1 });
    expect(errors).toEqual([]);
  });

  it("keeps source maps working: a component's error points at component://<name>/<file>", async () => {
    const { page } = await open("/stack.html", html(""));
    const cdp = await page.context().newCDPSession(page);
    const scripts: { url: string; sourceMapURL?: string }[] = [];
    cdp.on("Debugger.scriptParsed", (event) => scripts.push(event));
    await cdp.send("Debugger.enable");

    const stack = await page.evaluate(async () => {
      const module = (await window.svc?.load("thrower")) as { default: (props: object) => void };
      try {
        module.default({});
        return "did not throw";
      } catch (error) {
        return (error as Error).stack ?? "";
      }
    });
    // The stack names the component, not an anonymous blob: URL.
    const frame = /component:\/\/thrower\/bundle\.js:(\d+):(\d+)/.exec(stack);
    expect(frame, stack).not.toBeNull();

    // Chromium parsed the module under that URL, with the inline source map attached.
    await expect
      .poll(() => scripts.find((s) => s.url === "component://thrower/bundle.js")?.sourceMapURL, {
        timeout: 10_000,
      })
      .toMatch(/^data:application\/json;/);

    // And the map still fits the rewritten code: the frame maps to the throw in Thrower.tsx.
    const bundle = await (await fetch(`${server.url}/api/bundles/thrower.js`)).text();
    const registry = Object.fromEntries(
      ["react", "react/jsx-runtime", "react-dom", "react-dom/client", "@svc/react", "goober"].map(
        (name) => [name, {}],
      ),
    );
    const rewritten = rewriteImports(bundle, { component: "thrower", modules: registry });
    const payload = JSON.parse(
      Buffer.from(
        (/sourceMappingURL=data:application\/json;base64,(\S+)/.exec(rewritten) ?? [])[1] ?? "",
        "base64",
      ).toString("utf8"),
    );
    const entry = new SourceMap(payload).findEntry(Number(frame?.[1]) - 1, Number(frame?.[2]) - 1);
    expect(entry).toMatchObject({
      originalSource: "component://thrower/Thrower.tsx",
      originalLine: 5, // 0-based: line 6
    });
  });
});

describe("loader served by svc serve, with the built-in examples", () => {
  let dev: DevServer;

  beforeAll(async () => {
    await buildLoaderOnce();
    dev = await startDevServer({
      ...QUIET_DEV_SERVER,
      componentsDir: fileURLToPath(
        new URL("../../packages/server/examples/components", import.meta.url),
      ),
    });
    suite.after(() => dev.close());
  });

  it("renders greeting, counter and carousel (slides by image via useComponent); crasher stays in its box", async () => {
    const { page } = await suite.newPage();
    const requests: string[] = [];
    page.on("request", (request) => requests.push(new URL(request.url()).pathname));
    // A plain HTML page at svc serve's own origin; everything else comes from svc serve.
    await page.route(`${dev.url}/page.html`, (route) =>
      route.fulfill({
        contentType: "text/html",
        body: html(
          `<div id="greeting">${widget("greeting", { name: "Ada" })}</div>` +
            `<div id="counter">${widget("counter", { initialValue: 3 })}</div>` +
            `<div id="carousel">${widget("carousel", { images: ["data:image/gif;base64,R0lGODlhAQABAAAAACw=", "data:image/gif;base64,R0lGODlhAQABAAAAACwA"] })}</div>` +
            `<div id="crasher">${widget("crasher")}</div>` +
            `<div id="missing">${widget("does_not_exist")}</div>`,
        ),
      }),
    );
    await page.goto(`${dev.url}/page.html`);
    await poll(() => page.locator("#greeting").textContent()).toContain("Hello, Ada!");
    await poll(() => page.locator("#counter [data-testid=count]").textContent()).toBe("3");
    await page.locator("#counter [aria-label=increment]").click();
    await poll(() => page.locator("#counter [data-testid=count]").textContent()).toBe("4");
    await poll(() => page.locator("#carousel img.svc-image").count()).toBe(1);
    await page.locator("#carousel [aria-label=next]").click();
    await poll(() => page.locator("#carousel [data-testid=slide]").textContent()).toBe("2 / 2");
    expect(requests).toContain("/api/bundles/image.js");
    await poll(() => page.locator("#crasher [role=alert]").textContent()).toContain(
      "Crasher exploded on purpose",
    );
    await poll(() => page.locator("#missing [role=alert]").textContent()).toMatch(
      /No component named "[a-z_]*" was found/,
    );
    // The crash is contained: the counter still counts.
    await page.locator("#counter [aria-label=increment]").click();
    await poll(() => page.locator("#counter [data-testid=count]").textContent()).toBe("5");
  });
});
