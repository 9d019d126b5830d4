import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { SourceMap } from "node:module";
import { fileURLToPath } from "node:url";
import { rewriteImports } from "@svc/runtime";
import { type DevServer, startDevServer } from "@svc/server";
import type { Browser, Page } from "playwright-core";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// For its `window.svc` declaration.
import type {} from "../../packages/loader/src/loader.tsx";
import { renderWidget } from "../../packages/server/src/http/widget.ts";
import {
  buildLoaderOnce,
  fixtureRegistry,
  html,
  launchBrowser,
  openPage,
  removeDir,
  startTestServer,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";

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
  "styled_box/index.tsx": `import { styled } from "goober";
const Box = styled("div")\`
  color: rgb(255, 0, 0);
\`;
export default function StyledBox() {
  return <Box className="styled-box">styled</Box>;
}
`,
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

/** Cold bundling on a busy machine takes a while: poll generously. */
function poll<T>(fn: () => T | Promise<T>) {
  return expect.poll(fn, { timeout: 20_000 });
}

describe("loader (API mode)", () => {
  let browser: Browser;
  let server: TestServer;
  let dir: string | undefined;
  const closers: (() => Promise<void>)[] = [];

  beforeAll(async () => {
    const [launched, fixtures] = await Promise.all([
      launchBrowser(),
      fixtureRegistry(COMPONENTS),
      buildLoaderOnce(),
    ]);
    browser = launched;
    dir = fixtures.dir;
    server = await startTestServer({ registry: fixtures.registry });
  });

  afterEach(async () => {
    for (const close of closers.splice(0)) await close();
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await removeDir(dir);
  });

  async function open(path: string, body: string, headers?: Record<string, string>) {
    server.setPage(path, { body, headers });
    const { context, page, errors } = await openPage(browser);
    closers.push(() => context.close());
    const before = server.requests.length;
    await page.goto(server.url + path);
    return { page, errors, requestsSince: () => server.requests.slice(before) };
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
    server.setPage("/csp-spy.js", {
      body: `window.violations = []; document.addEventListener("securitypolicyviolation", (e) => window.violations.push(e.violatedDirective + " " + e.blockedURI));`,
    });
    const { page, errors } = await open(
      "/csp.html",
      html(widget("hello", { name: "csp" }) + widget("styled_box") + widget("clicker"), {
        head: `<script src="/csp-spy.js"></script>`,
      }),
      { "content-security-policy": "script-src 'self' blob:" },
    );
    await poll(() => page.locator(".hello").textContent()).toBe("Hello, csp!");
    await page.locator(".clicker").click();
    await poll(() => page.locator(".clicker").textContent()).toBe("clicked 1");
    expect(
      await page.evaluate(() => (window as unknown as { violations: string[] }).violations),
    ).toEqual([]);
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
    await writeFiles(dir as string, {
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
  let browser: Browser;
  let dev: DevServer;
  let page: Page;

  beforeAll(async () => {
    await buildLoaderOnce();
    [browser, dev] = await Promise.all([
      launchBrowser(),
      startDevServer({
        componentsDir: fileURLToPath(
          new URL("../../packages/server/examples/components", import.meta.url),
        ),
        host: "127.0.0.1",
        port: 0,
        logRequests: false,
      }),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await dev?.close();
  });

  it("renders greeting, counter and carousel (slides by image via useComponent); crasher stays in its box", async () => {
    const context = await browser.newContext();
    page = await context.newPage();
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
    await context.close();
  });
});
