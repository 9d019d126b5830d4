/**
 * The same island HTML works wherever the page comes from, in every mode: a page on svc's own
 * origin, a page on another origin (svc's `publicUrl` an absolute URL, CORS from its
 * allow-list), a page behind a reverse proxy that mounts svc under a sub-path (`/svc/` → svc's
 * `/api/`), and a build served from a CDN of its own — in development, from a build directory
 * (prebuilt) and in static mode. The page holds only the island HTML and the loader's script
 * tag. In real Chromium: styled before any script runs (JavaScript off), its image loaded,
 * hydrated with no hydration warning, each stylesheet and asset fetched exactly once.
 */
import { readFile } from "node:fs/promises";
import { createServer, type IncomingMessage, request, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../packages/server/src/build/build.ts";
import {
  ComponentRegistry,
  createNodeHandler,
  type NodeHandlerOptions,
  silentLogger,
} from "../conformance/svc.ts";
import { browserTestBase, noisePng, removeDir, writeFiles } from "./helpers.ts";

const COMPONENTS = {
  "photo/index.tsx": `import "./photo.css";
import styles from "./photo.module.css";
import picture from "./picture.png";
import { useState } from "react";
export default function Photo({ title = "Photo" }: { title?: string }) {
  const [clicks, setClicks] = useState(0);
  return (
    <figure className={"photo " + styles.frame}>
      <img className={styles.image} src={picture} alt="" />
      <figcaption className={styles.title}>{title}</figcaption>
      <button type="button" className="clicks" onClick={() => setClicks(clicks + 1)}>{clicks}</button>
    </figure>
  );
}
`,
  "photo/photo.css": ".photo { padding: 7px; }\n",
  "photo/photo.module.css":
    ".frame { border: 3px solid rgb(1, 2, 3); }\n.image { width: 12px; height: 12px; }\n.title { color: rgb(4, 5, 6); }\n",
};

type Setup = "same origin" | "another origin" | "a reverse proxy under /svc" | "a CDN";
type Mode = "development" | "prebuilt" | "static";

const CASES: [Setup, Mode][] = [
  ...(["same origin", "another origin", "a reverse proxy under /svc"] as const).flatMap((setup) =>
    (["development", "prebuilt", "static"] as const).map((mode): [Setup, Mode] => [setup, mode]),
  ),
  // A CDN holds a build: static mode (the API's bundle endpoint is off).
  ["a CDN", "static"],
];

interface Listening {
  url: string;
  close(): Promise<void>;
}

/** Every URL the servers of a deployment received, in order: what a browser really fetched. */
let received: string[] = [];

/** A `node:http` server on an ephemeral loopback port. */
async function listen(
  handle: (req: IncomingMessage, res: ServerResponse) => void,
): Promise<Listening> {
  const server = createServer((req, res) => {
    received.push(`http://${req.headers.host}${req.url}`);
    handle(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

/** Forwards `req` to `target` + `path`, as a reverse proxy does. */
function forward(req: IncomingMessage, res: ServerResponse, target: string, path: string): void {
  const upstream = request(
    `${target}${path}`,
    { method: req.method, headers: { ...req.headers, host: new URL(target).host } },
    (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(res);
    },
  );
  upstream.on("error", () => res.writeHead(502).end());
  req.pipe(upstream);
}

const TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".json": "application/json; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".png": "image/png",
};

let browser: Browser;
let dir: string;
let out: string;
let registry: ComponentRegistry;
const loader = { production: "", development: "", extras: "", islands: "" };

beforeAll(async () => {
  const base = await browserTestBase("svc-origins-");
  browser = base.browser;
  dir = base.dir;
  out = join(base.buildDir, "build");
  Object.assign(loader, base.loader);
  await writeFiles(dir, { ...COMPONENTS, "photo/picture.png": noisePng(12) as unknown as string });
  registry = new ComponentRegistry(dir, { logger: silentLogger });
  await build({ registry, outDir: out });
});

afterAll(async () => {
  await browser?.close();
  await removeDir(dir);
});

/**
 * Serves svc as `setup` and `mode` say; returns the island's HTML (rendered by svc as a
 * backend asks for it) and the page's origin, loader URL and servers.
 */
async function deploy(setup: Setup, mode: Mode) {
  const servers: Listening[] = [];
  const pages = new Map<string, string>();
  const page = (req: IncomingMessage, res: ServerResponse): boolean => {
    const body = pages.get(req.url ?? "");
    if (body === undefined) return false;
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" }).end(body);
    return true;
  };
  // The page's origin is decided first: svc's CORS allow-list names it.
  let pageOrigin = "";
  const pageServer = await listen((req, res) => {
    if (page(req, res)) return;
    if (setup === "a reverse proxy under /svc" && req.url?.startsWith("/svc/")) {
      forward(req, res, svcUrl, `/api/${req.url.slice("/svc/".length)}`);
      return;
    }
    if (setup === "same origin") {
      api(req, res, () => res.writeHead(404).end());
      return;
    }
    res.writeHead(404).end();
  });
  servers.push(pageServer);
  pageOrigin = pageServer.url;

  // A CDN: the build directory as static files, any origin allowed (as a CDN bucket is set up).
  let cdnUrl: string | undefined;
  if (setup === "a CDN") {
    const cdn = await listen(async (req, res) => {
      const root = normalize(out);
      const file = normalize(join(root, decodeURIComponent((req.url ?? "/").split("?")[0] ?? "/")));
      if (!file.startsWith(root + sep)) return res.writeHead(403).end();
      try {
        const body = await readFile(file);
        res
          .writeHead(200, {
            "content-type": TYPES[extname(file)] ?? "application/octet-stream",
            "access-control-allow-origin": "*",
            // As docs/PRODUCTION.md sets a CDN up: hashed files for good, the manifest revalidated.
            "cache-control": file.endsWith("manifest.json")
              ? "no-cache"
              : "public, max-age=31536000, immutable",
          })
          .end(body);
      } catch {
        res.writeHead(404).end();
      }
    });
    servers.push(cdn);
    cdnUrl = cdn.url;
  }

  let svcUrl = pageOrigin;
  let api: ReturnType<typeof createNodeHandler> = (() => {}) as never;
  const options = (publicUrl: string | undefined): NodeHandlerOptions => ({
    prefix: "/api",
    logger: silentLogger,
    live: false,
    loaderScript: loader.production,
    devLoaderScript: loader.development,
    loaderExtras: loader.extras,
    islandsScript: loader.islands,
    renderIsolation: "none",
    ...(publicUrl === undefined ? {} : { publicUrl }),
    ...(mode === "development" ? {} : { buildDir: out }),
    ...(mode === "static" ? { staticMode: true } : {}),
    ...(cdnUrl === undefined ? {} : { staticUrl: cdnUrl }),
    cors: { origins: [pageOrigin] },
  });
  if (setup === "same origin") {
    api = createNodeHandler(registry, options(undefined));
  } else {
    let publicUrl = "";
    const svc = await listen((req, res) => api(req, res, () => res.writeHead(404).end()));
    servers.push(svc);
    svcUrl = svc.url;
    publicUrl = setup === "a reverse proxy under /svc" ? "/svc" : `${svc.url}/api`;
    api = createNodeHandler(registry, options(publicUrl));
  }
  // The backend asks svc for the island, as any backend does.
  const renderAt = setup === "a reverse proxy under /svc" ? `${pageOrigin}/svc` : `${svcUrl}/api`;
  const answer = await fetch(`${renderAt}/bundles/photo/html`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ title: "Hello" }),
  });
  expect(answer.status).toBe(200);
  const island = await answer.text();
  const loaderSrc =
    setup === "same origin"
      ? "/api/loader.js"
      : setup === "a reverse proxy under /svc"
        ? "/svc/loader.js"
        : `${svcUrl}/api/loader.js`;
  pages.set(
    "/page",
    `<!doctype html><html><head><meta charset="utf-8"></head><body>${island}<script src="${loaderSrc}" defer></script></body></html>`,
  );
  return {
    island,
    page: `${pageOrigin}/page`,
    close: () => Promise.all(servers.map((s) => s.close())),
  };
}

describe.each(CASES)("the same island HTML, from %s, in %s", (setup, mode) => {
  it("is styled with its image before any script runs, hydrates with no warning, and fetches each file once", async () => {
    const deployed = await deploy(setup, mode);
    try {
      // JavaScript off: what the HTML alone shows.
      const still = await browser.newContext({ javaScriptEnabled: false });
      try {
        const page = await still.newPage();
        await page.goto(deployed.page);
        await page.waitForFunction(() => document.querySelector("img")?.complete === true);
        const shown = await page.evaluate(() => {
          const img = document.querySelector("img") as HTMLImageElement;
          const caption = document.querySelector("figcaption") as HTMLElement;
          const figure = document.querySelector("figure") as HTMLElement;
          return {
            width: img.naturalWidth,
            color: getComputedStyle(caption).color,
            border: getComputedStyle(figure).borderTopColor,
            padding: getComputedStyle(figure).paddingTop,
          };
        });
        expect(shown).toEqual({
          width: 12,
          color: "rgb(4, 5, 6)",
          border: "rgb(1, 2, 3)",
          padding: "7px",
        });
      } finally {
        await still.close();
      }

      // JavaScript on, the HTTP cache on: hydrated, each file fetched once.
      const context = await browser.newContext();
      try {
        const page = await context.newPage();
        const messages: string[] = [];
        page.on("console", (message) => messages.push(message.text()));
        page.on("pageerror", (error) => messages.push(error.message));
        const fetched: string[] = [];
        page.on("request", (req) => fetched.push(req.url()));
        received = [];
        await page.goto(deployed.page);
        const button = page.locator("button.clicks");
        await expect
          .poll(async () => {
            await button.click();
            return Number(await button.textContent());
          })
          .toBeGreaterThan(0);
        // What reached a server (the proxy's forwards counted once, at the proxy).
        const files = received.filter((url) => /\.(css|png)$/.test(new URL(url).pathname));
        expect(files.length).toBeGreaterThanOrEqual(3); // two stylesheets, the image
        expect([...files].sort().join("\n")).toEqual([...new Set(files)].sort().join("\n"));
        // The island's URLs are the only ones: nothing fetched from the page's origin but the
        // page itself where svc lives elsewhere.
        if (setup === "another origin" || setup === "a CDN") {
          const pageOrigin = new URL(deployed.page).origin;
          const fromPage = fetched.filter(
            (url) => !url.startsWith("blob:") && new URL(url).origin === pageOrigin,
          );
          expect(fromPage).toEqual([deployed.page]);
        }
        expect(messages.filter((m) => /hydrat|did not match|error/i.test(m))).toEqual([]);
      } finally {
        await context.close();
      }
    } finally {
      await deployed.close();
    }
  });
});
