/**
 * svc keeps no state between requests, so it runs as several instances behind a load balancer
 * and is deployed one instance at a time (docs/DEPLOY.md). This test does that with the command
 * line of docs/deploy/Dockerfile: two `svc serve --build-dir … --static` processes behind a
 * round-robin proxy with health checks, restarted one after the other from release v1 to v2
 * (SIGTERM, then a new process), while two Chromium tabs load pages through the proxy without
 * a pause. A page's two islands are rendered by whichever instances the proxy picks, so during
 * the switch a page may hold islands of both releases. Every island must hydrate with the code
 * of the release that rendered it: no failed request, nothing in the console.
 *
 * What makes that hold (DEPLOY.md, "Rolling deploys"): each release's build directory is served
 * under a URL of its own that stays while pages may use it (a CDN keeps every release), and each
 * release's svc is told it (`staticUrl` in its svc.config), so every island names its own
 * release's manifest and links its own release's stylesheets. With the default — each instance
 * serving its build at `/api/static/` — a page rendered by v1 may read v2's manifest from the
 * other instance and hydrate v1's HTML with v2's code.
 */
import type { ChildProcess } from "node:child_process";
import { readFile } from "node:fs/promises";
import {
  Agent,
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  request,
  type Server,
  type ServerResponse,
} from "node:http";
import type { AddressInfo } from "node:net";
import { extname, join, normalize, sep } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startSvc } from "../../packages/server/src/test/fixtures.ts";
import { launchBrowser, makeTempDir, removeDir, svcBuild, writeFiles } from "./helpers.ts";

type Release = "v1" | "v2";

/** What tells the releases apart on the page: the text, the step of a click, the colour. */
const RELEASES: Record<Release, { step: number; color: string }> = {
  v1: { step: 1, color: "rgb(1, 2, 3)" },
  v2: { step: 2, color: "rgb(4, 5, 6)" },
};

/** The islands of a page, and the first count of each. */
const ISLANDS = [0, 1];
const startOf = (n: number, island: number) => n * 10 + island;

/**
 * The component of each release. Its text names the release, so HTML of one release hydrated
 * with the other's code is a mismatch React reports (and the loader logs); `data-hydrated`
 * appears once its effects ran in the browser.
 */
function components(release: Release): Record<string, string> {
  const { step, color } = RELEASES[release];
  return {
    "counter/index.tsx": `import { useEffect, useState } from "react";
import styles from "./counter.module.css";
export default function Counter({ start = 0 }: { start?: number }) {
  const [n, setN] = useState(start);
  const [hydrated, setHydrated] = useState(false);
  useEffect(() => setHydrated(true), []);
  return (
    <button type="button" className={styles.count} data-hydrated={hydrated ? "" : undefined} onClick={() => setN(n + ${step})}>
      ${release}: {n}
    </button>
  );
}
`,
    "counter/counter.module.css": `.count { color: ${color}; }\n`,
    "counter/schema.json": JSON.stringify({
      type: "object",
      properties: { start: { type: "integer" } },
    }),
  };
}

/** One `svc serve` process: the Dockerfile's command line, on a loopback port. */
class Instance {
  readonly name: string;
  process: ChildProcess | undefined;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
  port = 0;
  release: Release | undefined;

  constructor(name: string) {
    this.name = name;
  }

  /**
   * Starts it on `release` (on its old port when it had one) and resolves once it listens. Its
   * `svc.config.json` lists the sources (island props are checked against their
   * `schema.json`) and the release's `staticUrl`.
   */
  async start(release: Release, work: string): Promise<void> {
    const svc = startSvc(
      [
        "serve",
        ...["--config", join(work, "src", release, "svc.config.json")],
        ...["--build-dir", join(work, "releases", release)],
        "--static",
        ...["--host", "127.0.0.1", "--port", String(this.port)],
        ...["--render-workers", "1", "--log", "json"],
      ],
      { env: { NODE_ENV: "production" } },
    );
    const [, port] = await svc.waitFor(/api:\s+http:\/\/[^:]+:(\d+)\//);
    this.port = Number(port);
    this.process = svc.child;
    this.exited = svc.exited;
    this.release = release;
  }

  /** SIGTERM, as an orchestrator stops it; resolves with its exit once it has shut down. */
  async stop() {
    this.process?.kill("SIGTERM");
    return this.exited;
  }
}

/** An upstream as the proxy sees it. */
interface Upstream {
  instance: Instance;
  /** Its last health check answered 200. */
  healthy: boolean;
}

/** What the proxy did, for the report and the assertions. */
interface ProxyLog {
  /** Requests sent again to the other upstream (connection refused or reset, 503). */
  retries: { path: string; from: string; why: string }[];
  /** Answers, by upstream. */
  answers: { at: number; upstream: string; method: string; path: string; status: number }[];
}

/** Headers that belong to one connection, never forwarded (RFC 9110, 7.6.1). */
const HOP_BY_HOP = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
]);

function endToEnd(headers: IncomingHttpHeaders): IncomingHttpHeaders {
  return Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_BY_HOP.has(name)));
}

/** Errors after which a request certainly went unanswered, so it may be sent elsewhere. */
const RETRYABLE = new Set(["ECONNREFUSED", "ECONNRESET", "EPIPE", "ECONNABORTED"]);

/**
 * A round-robin reverse proxy, as a load balancer in front of svc works: it alternates between
 * the upstreams its health checks (`GET /api/health` every 100 ms) find ready, forwards method,
 * path, headers and body, and sends a request again to the next upstream when its connection is
 * refused or reset before any answer, or the upstream answers 503 (shutting down) — the
 * island endpoint has no side effects, so a render may be sent twice.
 */
class RoundRobinProxy {
  readonly log: ProxyLog = { retries: [], answers: [] };
  readonly #upstreams: Upstream[];
  readonly #agent = new Agent({ keepAlive: true });
  #next = 0;
  #timer: NodeJS.Timeout | undefined;

  constructor(instances: Instance[]) {
    this.#upstreams = instances.map((instance) => ({ instance, healthy: false }));
  }

  /** Whether the upstream of `instance` passed its last health check. */
  isHealthy(instance: Instance): boolean {
    return this.#upstreams.some((u) => u.instance === instance && u.healthy);
  }

  startHealthChecks(): void {
    const check = (upstream: Upstream) => {
      const req = request(
        { host: "127.0.0.1", port: upstream.instance.port, path: "/api/health", agent: false },
        (res) => {
          upstream.healthy = res.statusCode === 200;
          res.resume();
        },
      );
      req.setTimeout(1000, () => req.destroy());
      req.on("error", () => {
        upstream.healthy = false;
      });
      req.end();
    };
    this.#timer = setInterval(() => {
      for (const upstream of this.#upstreams) check(upstream);
    }, 100);
    for (const upstream of this.#upstreams) check(upstream);
  }

  /** The next upstream in turn among those not tried yet: a healthy one if there is. */
  #pick(tried: ReadonlySet<Upstream>): Upstream | undefined {
    const count = this.#upstreams.length;
    const order = Array.from(
      { length: count },
      (_, i) => this.#upstreams[(this.#next + i) % count],
    );
    const candidates = order.filter((u): u is Upstream => u !== undefined && !tried.has(u));
    const chosen = candidates.find((u) => u.healthy) ?? candidates[0];
    if (chosen !== undefined) this.#next = (this.#upstreams.indexOf(chosen) + 1) % count;
    return chosen;
  }

  async forward(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const headers: IncomingHttpHeaders = {
      ...endToEnd(req.headers),
      "x-forwarded-for": req.socket.remoteAddress,
    };
    if (body.length > 0 || req.headers["content-length"] !== undefined) {
      headers["content-length"] = String(body.length);
    }
    const path = req.url ?? "/";
    const tried = new Set<Upstream>();
    for (;;) {
      const upstream = this.#pick(tried);
      if (upstream === undefined) break;
      tried.add(upstream);
      const { instance } = upstream;
      const answer = await this.#send(upstream, req.method ?? "GET", path, headers, body);
      const last = tried.size === this.#upstreams.length;
      if ("error" in answer) {
        if (upstream.healthy && answer.error === "ECONNREFUSED") upstream.healthy = false;
        if (last || !RETRYABLE.has(answer.error)) break;
        this.log.retries.push({ path, from: instance.name, why: answer.error });
        continue;
      }
      if (answer.statusCode === 503 && !last) {
        answer.resume();
        this.log.retries.push({ path, from: instance.name, why: "503" });
        continue;
      }
      this.log.answers.push({
        at: Date.now(),
        upstream: `${instance.name} ${instance.release}`,
        method: req.method ?? "",
        path,
        status: answer.statusCode ?? 0,
      });
      res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
      answer.pipe(res);
      answer.on("error", () => res.destroy());
      return;
    }
    res.writeHead(502, { "content-type": "text/plain" }).end("no upstream answered");
  }

  #send(
    upstream: Upstream,
    method: string,
    path: string,
    headers: IncomingHttpHeaders,
    body: Buffer,
  ): Promise<IncomingMessage | { error: string }> {
    return new Promise((resolve) => {
      const req = request(
        {
          host: "127.0.0.1",
          port: upstream.instance.port,
          method,
          path,
          headers,
          agent: this.#agent,
        },
        resolve,
      );
      req.on("error", (error: NodeJS.ErrnoException) => resolve({ error: error.code ?? "" }));
      req.end(body);
    });
  }

  close(): void {
    clearInterval(this.#timer);
    this.#agent.destroy();
  }
}

const TYPES: Record<string, string> = {
  ".json": "application/json; charset=utf-8",
  ".js": "application/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
};

/**
 * The front door the browser talks to — what nginx, or a cloud load balancer with a CDN, does:
 * - `/releases/<release>/…`: every release's build directory as static files (the CDN, which
 *   keeps each release under its own URL: each release's `staticUrl`);
 * - `/page/<n>`: the backend's page, whose islands it renders by
 *   `POST /api/bundles/counter/html` through this very proxy, and the loader;
 * - anything else (`/api/…`, `/svc/…`): the svc instances, round robin.
 */
async function startFrontDoor(proxy: RoundRobinProxy, releasesDir: string) {
  let url = "";
  const renders = new Agent({ keepAlive: true });

  const staticFile = async (path: string, res: ServerResponse) => {
    const file = normalize(join(releasesDir, decodeURIComponent(path.slice("/releases/".length))));
    const body = file.startsWith(releasesDir + sep)
      ? await readFile(file).catch(() => undefined)
      : undefined;
    if (body === undefined) return res.writeHead(404).end();
    // As PRODUCTION.md says: hashed files for a year, the manifest revalidated.
    const hashed = /\/(bundles|vendor)\//.test(path);
    res.writeHead(200, {
      "content-type": TYPES[extname(file)] ?? "application/octet-stream",
      "cache-control": hashed ? "public, max-age=31536000, immutable" : "no-cache",
    });
    res.end(body);
  };

  /** An island of the counter starting at `start`, from whichever instance answers. */
  const island = (start: number) =>
    new Promise<{ status: number; html: string }>((resolve, reject) => {
      const body = JSON.stringify({ start });
      const req = request(
        `${url}/api/bundles/counter/html`,
        {
          method: "POST",
          agent: renders,
          headers: { "content-type": "application/json", "content-length": body.length },
        },
        (answer) => {
          let html = "";
          answer.setEncoding("utf8");
          answer.on("data", (chunk: string) => {
            html += chunk;
          });
          answer.on("end", () => resolve({ status: answer.statusCode ?? 0, html }));
        },
      );
      req.on("error", reject);
      req.end(body);
    });

  /**
   * The backend's page `n`: two islands, asked for at once, so mostly from two instances (and,
   * during the switch, often of two releases), and the loader.
   */
  const page = async (n: number, res: ServerResponse) => {
    const islands = await Promise.all(ISLANDS.map((i) => island(startOf(n, i))));
    const failed = islands.find((answer) => answer.status !== 200);
    if (failed !== undefined) {
      res.writeHead(502, { "content-type": "text/plain" }).end(`render: ${failed.status}`);
      return;
    }
    const sections = islands.map((answer, i) => `<section id="i${i}">${answer.html}</section>`);
    res.writeHead(200, { "content-type": "text/html; charset=utf-8", "cache-control": "no-store" });
    res.end(
      `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"></head>` +
        `<body><main>${sections.join("")}</main><script src="/api/loader.js"></script></body></html>`,
    );
  };

  const server: Server = createServer((req, res) => {
    const path = (req.url ?? "/").split("?")[0] ?? "/";
    const pageNumber = /^\/page\/(\d+)$/.exec(path)?.[1];
    const answered =
      pageNumber !== undefined
        ? page(Number(pageNumber), res)
        : path.startsWith("/releases/")
          ? staticFile(path, res)
          : proxy.forward(req, res);
    answered.catch((error: unknown) => {
      if (!res.headersSent) res.writeHead(500, { "content-type": "text/plain" });
      res.end(String(error));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    close: () => {
      renders.destroy();
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** One page load in the browser: the release of each island, and anything that went wrong. */
interface PageLoad {
  n: number;
  /** The release each island came from, as it names its manifest (`/releases/v1/…`). */
  releases: Release[];
  /** When the page was asked for, ms since the test began. */
  at: number;
  problems: string[];
}

/**
 * A browser tab that loads pages one after the other, its HTTP cache off (every page asks for
 * every file again, as a first visit does) — one tab, not a context per page: on a machine of
 * two cores, a renderer process per page is most of the test's time.
 */
class Reader {
  #page: Page | undefined;
  /** Where the events of the page go: the last one loaded. */
  #problems: string[] = [];

  async open(browser: Browser): Promise<void> {
    const context = await browser.newContext();
    const page = await context.newPage();
    const cdp = await context.newCDPSession(page);
    await cdp.send("Network.setCacheDisabled", { cacheDisabled: true });
    page.on("console", (message) => {
      if (message.type() === "error" || message.type() === "warning") {
        this.#problems.push(`console ${message.type()}: ${message.text()}`);
      }
    });
    page.on("pageerror", (error) => this.#problems.push(`page error: ${error.message}`));
    page.on("requestfailed", (r) =>
      this.#problems.push(`failed: ${r.url()} ${r.failure()?.errorText}`),
    );
    page.on("response", (r) => {
      if (r.status() >= 400) this.#problems.push(`${r.status()} ${r.url()}`);
    });
    this.#page = page;
  }

  /**
   * Loads page `n`, waits for its island to hydrate, clicks it, and checks that text, step and
   * colour are those of the release that rendered it.
   */
  async load(base: string, n: number, t0: number): Promise<PageLoad> {
    const page = this.#page as Page;
    const load: PageLoad = { n, releases: [], at: Date.now() - t0, problems: [] };
    this.#problems = load.problems;
    const problems = load.problems;
    try {
      const response = await page.goto(`${base}/page/${n}`);
      if (response?.status() !== 200) {
        problems.push(`page ${n}: ${response?.status()} ${await response?.text()}`);
        return load;
      }
      for (const i of ISLANDS) {
        const named = await page
          .locator(`#i${i} [data-svc-manifest]`)
          .getAttribute("data-svc-manifest");
        const release = /^\/releases\/(v1|v2)\/manifest\.json$/.exec(named ?? "")?.[1];
        if (release !== "v1" && release !== "v2") {
          problems.push(`page ${n}, island ${i}: names the manifest ${named}`);
          return load;
        }
        load.releases.push(release);
      }
      // Islands of two releases on one page: a CSS module's class names come from its path, so
      // both releases' rules for them apply to both islands (DEPLOY.md); either colour it is.
      const mixed = new Set(load.releases).size > 1;
      for (const [i, release] of load.releases.entries()) {
        const button = page.locator(`#i${i} button[data-hydrated]`);
        await button.waitFor({ timeout: 10_000 });
        await button.click();
        const expected = `${release}: ${startOf(n, i) + RELEASES[release].step}`;
        const shown = (await button.textContent())?.trim();
        if (shown !== expected) {
          problems.push(`page ${n}, island ${i}, after a click: "${shown}", not "${expected}"`);
        }
        const painted = await button.evaluate((element) => getComputedStyle(element).color);
        const colors = mixed
          ? load.releases.map((r) => RELEASES[r].color)
          : [RELEASES[release].color];
        if (!colors.includes(painted)) {
          problems.push(`page ${n}, island ${i}: ${painted}, not ${colors.join(" or ")}`);
        }
      }
    } catch (error) {
      problems.push(`page ${n}: ${(error as Error).message.split("\n")[0]}`);
    }
    // Anything the tab says until the next page belongs to this one (checked at the end too).
    return load;
  }
}

describe("several svc instances behind a load balancer", () => {
  let work: string | undefined;
  let browser: Browser;

  beforeAll(async () => {
    work = await makeTempDir("svc-instances-");
    browser = await launchBrowser();
  });

  afterAll(async () => {
    await browser?.close();
    await removeDir(work);
  });

  it("switch one by one to a new release while every page loaded through them hydrates", async () => {
    const dir = work as string;
    const releases = join(dir, "releases");
    const t0 = Date.now();
    const phases: Record<string, number> = {};
    const mark = (phase: string) => {
      phases[phase] = (Date.now() - t0) / 1000;
    };
    /**
     * A release: its sources and `svc.config.json` (what its image holds), built as the
     * Dockerfile builds it, into a directory of its own that the CDN serves at `staticUrl`.
     */
    const release = async (name: Release) => {
      await writeFiles(join(dir, "src", name), {
        ...prefixed("components/", components(name)),
        "svc.config.json": JSON.stringify({
          sources: ["components"],
          staticUrl: `/releases/${name}`,
        }),
      });
      await svcBuild(join(dir, "src", name, "components"), join(releases, name));
    };
    // v2 edits the component. Both are on the CDN before any instance serves v2 (and stay).
    await Promise.all([release("v1"), release("v2")]);
    mark("built");

    const a = new Instance("A");
    const b = new Instance("B");
    await Promise.all([a.start("v1", dir), b.start("v1", dir)]);
    const proxy = new RoundRobinProxy([a, b]);
    proxy.startHealthChecks();
    const front = await startFrontDoor(proxy, releases);
    const healthy = (instance: Instance) =>
      expect.poll(() => proxy.isHealthy(instance), { timeout: 10_000, interval: 50 }).toBe(true);
    await Promise.all([healthy(a), healthy(b)]);
    mark("A and B on v1");

    // Pages, two at a time, without a pause, until told to stop.
    const loads: PageLoad[] = [];
    let stopped = false;
    let n = 0;
    const tabs = [new Reader(), new Reader()];
    await Promise.all(tabs.map((tab) => tab.open(browser)));
    const readers = tabs.map(async (tab) => {
      while (!stopped) loads.push(await tab.load(front.url, n++, t0));
    });
    /** Pages since `at` with an island of release `name`. */
    const since = (at: number, name: Release) =>
      loads.filter((load) => load.at >= at && load.releases.includes(name)).length;
    const pagesOf = (name: Release, count: number, after: number) =>
      expect
        .poll(() => since(after, name), { timeout: 15_000, interval: 50 })
        .toBeGreaterThanOrEqual(count);
    /** Waits until `upstream` (`A v2`) has rendered islands since `after`. */
    const rendering = (upstream: string, after: number) =>
      expect
        .poll(
          () =>
            proxy.log.answers.filter(
              (answer) =>
                answer.upstream === upstream && answer.at >= after && answer.path.endsWith("/html"),
            ).length,
          { timeout: 15_000, interval: 50 },
        )
        .toBeGreaterThanOrEqual(2);
    const report = () =>
      JSON.stringify({
        pages: loads.length,
        withIslandsOf: { v1: since(0, "v1"), v2: since(0, "v2") },
        ofBoth: loads.filter((load) => new Set(load.releases).size === 2).length,
        retries: proxy.log.retries,
        phases,
        problems: loads.flatMap((load) => load.problems).slice(0, 10),
      });

    try {
      await Promise.all([pagesOf("v1", 3, 0), rendering("A v1", t0), rendering("B v1", t0)]);
      mark("pages of v1");

      // A: stopped as an orchestrator stops it (SIGTERM: it finishes what it is answering and
      // exits 0), started again on v2; the proxy sends it pages once its health check says so.
      expect(await a.stop()).toEqual({ code: 0, signal: null });
      await a.start("v2", dir);
      await healthy(a);
      mark("A on v2");
      // Both releases answer now: pages of each, every one hydrated with its own release.
      const mixed = Date.now();
      await Promise.all([
        pagesOf("v1", 3, mixed - t0),
        pagesOf("v2", 3, mixed - t0),
        rendering("A v2", mixed),
        rendering("B v1", mixed),
      ]);
      mark("pages of both");

      expect(await b.stop()).toEqual({ code: 0, signal: null });
      await b.start("v2", dir);
      await healthy(b);
      mark("B on v2");
      const done = Date.now();
      await Promise.all([
        pagesOf("v2", 3, done - t0),
        rendering("A v2", done),
        rendering("B v2", done),
      ]);
      mark("pages of v2");
    } catch (error) {
      // A phase that never came: say how far the deploy got, and what the pages saw.
      throw new Error(`${(error as Error).message}\n${report()}`, { cause: error });
    } finally {
      stopped = true;
      await Promise.all(readers);
      proxy.close();
      await front.close();
      await Promise.all([a.stop(), b.stop()]);
    }

    expect(
      loads.flatMap((load) => load.problems),
      report(),
    ).toEqual([]);
  }, 60_000);
});

/** `files` with every path below `prefix`. */
function prefixed(prefix: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([path, text]) => [prefix + path, text]));
}
