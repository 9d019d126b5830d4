/**
 * svc as a user gets it: packed tarballs installed into fresh apps outside the repository,
 * next to real frameworks from the registry. Not part of `npm test` (it installs from the
 * registry); run with `npm run test:consumer`, as CI does.
 *
 * - packages: every tarball has its README, types for every export, source maps whose
 *   sources it ships, no tests, and ranges (not exact versions) for its svc siblings;
 * - express/ (ES modules): `npx svc init`, then the lines it printed pasted into server.js,
 *   serve the example component, rendered by the loader in Chromium; `npx svc serve` and
 *   `npx svc build` run from the app's directory, and the build renders from a plain static
 *   server through `data-svc-manifest`;
 * - nest/ (CommonJS, `tsc` with `module: commonjs`, run with `node`): SvcModule serves;
 * - vite/: a Vite + React app with @svc/react builds, renders two components (one through
 *   `useComponent`) with exactly one React on the page, and its types check with
 *   moduleResolution NodeNext and Bundler.
 *
 * One temporary directory, one `npm install` per app (the three run in parallel).
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { readFile } from "node:fs/promises";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { extname, join, normalize, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { type Browser, chromium } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const apps = fileURLToPath(new URL("./apps/", import.meta.url));
const PACKAGES = ["protocol", "runtime", "react", "loader", "server"] as const;
const CHROMIUM = process.env.SVC_CHROMIUM ?? "/usr/bin/chromium";

/** Which tarballs each app installs: the package it uses and its svc dependencies. */
const APP_PACKAGES: Record<string, readonly (typeof PACKAGES)[number][]> = {
  // React and @svc/react too: the Express app renders islands on the server.
  express: ["server", "protocol", "loader", "react", "runtime"],
  nest: ["server", "protocol", "loader"],
  vite: PACKAGES,
};

let work: string;
let browser: Browser | undefined;
const tarballs = new Map<string, string>();
const installs = new Map<string, { stdout: string; stderr: string }>();
const children = new Set<ChildProcess>();
const servers = new Set<Server>();

/**
 * The environment of a user's shell: without what the test runner sets (NODE_ENV=test would
 * make Vite build React's development files, for one).
 */
function userEnv(extra: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (key === "NODE_ENV" || key.startsWith("VITEST") || key === "TEST") continue;
    env[key] = value;
  }
  return { ...env, ...extra };
}

/**
 * Signals a child's whole process group, as a terminal does on Ctrl-C: `npx` does not pass
 * signals on to the command it runs. (Children start `detached`, each in a group of its own.)
 */
function signal(child: ChildProcess, name: NodeJS.Signals): void {
  try {
    if (child.pid !== undefined) process.kill(-child.pid, name);
  } catch {
    // already gone
  }
}

function dir(app: string): string {
  return join(work, app);
}

/** Runs a command to completion; rejects with its output when it fails. */
function run(
  command: string,
  args: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv = {},
): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, env: userEnv(env), detached: true });
    children.add(child);
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.stderr.on("data", (d: Buffer) => {
      stderr += d;
    });
    child.on("close", (code) => {
      children.delete(child);
      if (code === 0) resolve({ stdout, stderr });
      else
        reject(
          new Error(`${command} ${args.join(" ")} (in ${cwd}) exited ${code}:\n${stdout}${stderr}`),
        );
    });
  });
}

/** Starts a long-running command and resolves once stdout matches `ready`. */
function start(
  command: string,
  args: readonly string[],
  cwd: string,
  ready: RegExp,
  env: NodeJS.ProcessEnv = {},
): Promise<{ match: RegExpMatchArray; child: ChildProcess; output: () => string }> {
  const child = spawn(command, args, { cwd, env: userEnv(env), detached: true });
  children.add(child);
  let out = "";
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = out.match(ready);
      if (match) resolve({ match, child, output: () => out });
    };
    child.stdout?.on("data", (d: Buffer) => {
      out += d;
      check();
    });
    child.stderr?.on("data", (d: Buffer) => {
      out += d;
    });
    child.on("exit", (code) =>
      reject(new Error(`${command} ${args.join(" ")} exited ${code}:\n${out}`)),
    );
  });
}

/** A plain static server for `root` (no svc inside), plus extra files by URL path. */
async function staticServer(root: string, extra: Record<string, string> = {}) {
  const requests: string[] = [];
  const types: Record<string, string> = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".json": "application/json",
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url ?? "/", "http://x").pathname;
    requests.push(path);
    const file = extra[path] ?? join(root, normalize(path));
    readFile(file).then(
      (body) => {
        res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
        res.end(body);
      },
      () => res.writeHead(404).end(),
    );
  });
  servers.add(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
}

async function newPage() {
  browser ??= await chromium.launch({
    executablePath: CHROMIUM,
    args: ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"],
  });
  const page = await browser.newPage();
  const errors: string[] = [];
  page.on("pageerror", (error) => errors.push(error.message));
  page.on("console", (message) => {
    if (message.type() === "error") errors.push(message.text());
  });
  return { page, errors };
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), "svc-consumer-"));
  expect(relative(repo, work).startsWith("..")).toBe(true);

  // The tarballs, exactly as `npm run pack` writes them.
  const packed = await run(process.execPath, [join(repo, "scripts/pack.ts")], repo);
  for (const line of packed.stdout.trim().split("\n")) {
    const file = join(repo, line);
    const base = file.split("/").pop() as string;
    const copy = join(work, "packs", base);
    cpSync(file, copy);
    // The file's own name: the work directory (svc-consumer-XXXXXX) can match too.
    const name = /^svc-(\w+)-\d/.exec(base)?.[1] as string;
    tarballs.set(name, copy);
  }
  expect([...tarballs.keys()].sort()).toEqual([...PACKAGES].sort());

  await Promise.all(
    Object.entries(APP_PACKAGES).map(async ([app, packages]) => {
      cpSync(join(apps, app), dir(app), { recursive: true });
      const files = packages.map((name) => tarballs.get(name) as string);
      installs.set(
        app,
        await run("npm", ["install", "--no-audit", "--no-fund", ...files], dir(app)),
      );
    }),
  );
}, 600_000);

afterAll(async () => {
  for (const child of children) signal(child, "SIGKILL");
  for (const server of servers) server.close();
  await browser?.close();
  if (work !== undefined && process.env.SVC_CONSUMER_KEEP === undefined) {
    rmSync(work, { recursive: true, force: true });
  }
});

describe("the packed packages", () => {
  function unpack(name: string, as = name): string {
    const into = join(work, "unpacked", as);
    cpSync(tarballs.get(name) as string, `${into}.tgz`);
    execFileSync("mkdir", ["-p", into]);
    execFileSync("tar", ["xzf", `${into}.tgz`, "-C", into]);
    return join(into, "package");
  }

  for (const name of PACKAGES) {
    it(`@svc/${name}: README, types first, shipped map sources, no tests, sibling ranges`, () => {
      const root = unpack(name);
      const pkg = JSON.parse(readFileSync(join(root, "package.json"), "utf8"));
      expect(existsSync(join(root, "README.md"))).toBe(true);
      expect(pkg.engines).toEqual({ node: ">=22" });
      expect(pkg.repository?.directory).toBe(`packages/${name}`);

      // Siblings as ranges: an exact pin would put two copies of @svc/protocol into an app
      // as soon as one package gets a patch release without the other.
      for (const [dep, range] of Object.entries({ ...pkg.dependencies, ...pkg.peerDependencies })) {
        if (dep.startsWith("@svc/")) expect(range, `${dep} in @svc/${name}`).toMatch(/^\^\d/);
      }

      for (const [subpath, entry] of Object.entries(pkg.exports ?? {})) {
        if (typeof entry === "string") {
          expect(existsSync(join(root, entry)), `${subpath} → ${entry}`).toBe(true);
          continue;
        }
        const conditions = Object.keys(entry as object);
        expect(conditions[0], `exports["${subpath}"] lists types first`).toBe("types");
        for (const target of Object.values(entry as Record<string, string>)) {
          expect(existsSync(join(root, target)), `exports["${subpath}"] → ${target}`).toBe(true);
        }
      }
      for (const [subpath, [target]] of Object.entries(
        (pkg.typesVersions?.["*"] ?? {}) as Record<string, string[]>,
      )) {
        expect(existsSync(join(root, target as string)), `typesVersions ${subpath}`).toBe(true);
      }

      const files = readdirSync(root, { recursive: true }) as string[];
      expect(files.filter((file) => /\.test\.|[/\\]test[/\\]/.test(file))).toEqual([]);
      for (const map of files.filter((file) => file.endsWith(".map"))) {
        const { sources } = JSON.parse(readFileSync(join(root, map), "utf8")) as {
          sources: string[];
        };
        for (const source of sources) {
          const target = join(root, map, "..", source);
          expect(existsSync(target), `${map} → ${source}`).toBe(true);
        }
      }
    });
  }

  it("npm publish --dry-run has nothing to correct or warn about", async () => {
    for (const name of PACKAGES) {
      // From the unpacked package's directory: npm checks package.json there (a tarball
      // argument skips the check that rewrites, say, a "./bin/svc.js" bin path).
      const root = unpack(name, `publish-${name}`);
      const { stderr } = await run("npm", ["publish", "--dry-run"], root);
      // Left: this machine's npmrc ("nodedir"), and no registry login in a dry run.
      const warnings = stderr
        .split("\n")
        .filter((line) => /^npm (warn|error)/.test(line))
        .filter((line) => !line.includes('config "nodedir"'))
        .filter((line) => !line.includes("This command requires you to be logged in"));
      expect(warnings, `@svc/${name}`).toEqual([]);
    }
  });

  it("a patch release of @svc/protocol installs beside the other packages as their one copy", async () => {
    // What an exact sibling pin breaks: @svc/protocol 0.1.1 with the rest at 0.1.0.
    const root = unpack("protocol", "patched");
    const pkgFile = join(root, "package.json");
    const pkg = JSON.parse(readFileSync(pkgFile, "utf8"));
    writeFileSync(pkgFile, JSON.stringify({ ...pkg, version: "0.1.1" }));
    const out = join(work, "patched-packs");
    execFileSync("mkdir", ["-p", out]);
    await run("npm", ["pack", "--loglevel=error", "--pack-destination", out], root);
    const app = join(work, "patched");
    execFileSync("mkdir", ["-p", app]);
    writeFileSync(
      join(app, "package.json"),
      JSON.stringify({ private: true, allowScripts: { esbuild: true } }),
    );
    const others = (["server", "loader", "runtime", "react"] as const).map(
      (name) => tarballs.get(name) as string,
    );
    await run(
      "npm",
      [
        "install",
        "--no-audit",
        "--no-fund",
        "--prefer-offline",
        ...others,
        join(out, "svc-protocol-0.1.1.tgz"),
      ],
      app,
    );
    const copies = readdirSync(app, { recursive: true })
      .map(String)
      .filter((path) => path.endsWith(join("@svc", "protocol", "package.json")));
    expect(copies).toEqual([join("node_modules", "@svc", "protocol", "package.json")]);
    expect(JSON.parse(readFileSync(join(app, copies[0] as string), "utf8")).version).toBe("0.1.1");
  });

  it("install without warnings (esbuild's install script is allowed by allowScripts)", () => {
    for (const [app, { stderr }] of installs) {
      const warnings = stderr
        .split("\n")
        // This machine's npmrc sets "nodedir", which npm 11 warns about: not the app's doing.
        .filter((line) => line.startsWith("npm warn") && !line.includes('config "nodedir"'));
      expect(warnings, app).toEqual([]);
    }
  });
});

describe("an Express app (ES modules) set up with svc init", () => {
  let init: { server: string[]; page: string[] };
  let url: string;

  beforeAll(async () => {
    const { stdout } = await run("npx", ["svc", "init"], dir("express"));
    expect(stdout).toContain("Express found in package.json");
    init = {
      server: block(stdout, "Add to your server:"),
      page: block(stdout, "and to a page:"),
    };
    const file = join(dir("express"), "server.js");
    const source = readFileSync(file, "utf8")
      .replace(
        "// svc-init: imports",
        init.server.filter((l) => l.startsWith("import ")).join("\n"),
      )
      .replace(
        "// svc-init: mount",
        init.server.filter((l) => !l.startsWith("import ")).join("\n"),
      );
    writeFileSync(file, source);
    const server = await start("node", ["server.js"], dir("express"), /LISTENING (\S+)/, {
      PAGE: init.page.join("\n"),
    });
    url = server.match[1] as string;
  }, 60_000);

  it("svc init printed three lines for the server and created the example", () => {
    expect(init.server).toHaveLength(3);
    expect(existsSync(join(dir("express"), "components/hello/index.tsx"))).toBe(true);
    expect(existsSync(join(dir("express"), "svc.config.ts"))).toBe(true);
    const pkg = JSON.parse(readFileSync(join(dir("express"), "package.json"), "utf8"));
    expect(pkg.scripts).toMatchObject({ "svc:serve": "svc serve", "svc:build": "svc build" });
  });

  it("svc init run again changes nothing and says so", async () => {
    const { stdout } = await run("npx", ["svc", "init"], dir("express"));
    expect(stdout).toContain("svc init changed nothing");
  });

  it("serves the component through svcExpress", async () => {
    expect(await (await fetch(`${url}/api/bundles`)).json()).toEqual([{ name: "hello" }]);
    const bundle = await fetch(`${url}/api/bundles/hello.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("content-type")).toMatch(/^application\/javascript/);
    expect(await bundle.text()).toContain("Hello, ");
    expect((await fetch(`${url}/api/loader.js`)).status).toBe(200);
    // The islands start ships in the packed @svc/loader: it fetches loader.js from beside itself.
    const islands = await fetch(`${url}/api/islands.js`);
    expect(islands.status).toBe(200);
    expect(await islands.text()).toContain("loader.js");
  });

  it("renders it in Chromium with the page lines svc init printed", async () => {
    const { page, errors } = await newPage();
    await page.goto(url);
    await explained(page.getByText("Hello, you!").waitFor({ timeout: 15_000 }), errors);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("renders an island on the server (the render worker from the package) and hydrates it", async () => {
    const html = await (await fetch(`${url}/island`)).text();
    expect(html).toMatch(
      /<div data-svc-component="hello"[^>]*data-svc-ssr[^>]*><!--\$--><p>Hello, /,
    );
    expect(html).toContain("island");
    const { page, errors } = await newPage();
    const bundles: string[] = [];
    page.on("request", (request) => {
      if (request.url().includes("/api/bundles/hello.js")) bundles.push(request.url());
    });
    await page.goto(`${url}/island`);
    await explained(page.getByText("Hello, island!").waitFor({ timeout: 15_000 }), errors);
    // Hydrated, not replaced: React's root sits on the container the server wrote.
    await explained(
      page.waitForFunction(() => {
        const island = document.querySelector("[data-svc-ssr]");
        return island !== null && Object.keys(island).some((k) => k.startsWith("__reactContainer"));
      }),
      errors,
    );
    expect(bundles).toHaveLength(1);
    expect(errors).toEqual([]);
    await page.close();
  });

  it("npx svc serve runs from the app's directory", async () => {
    const svc = await start(
      "npx",
      ["svc", "serve", "--host", "127.0.0.1", "--port", "0"],
      dir("express"),
      /api: +(http:\/\/\S+)\/api\/bundles/,
    );
    const base = svc.match[1] as string;
    expect(await (await fetch(`${base}/api/bundles`)).json()).toEqual([{ name: "hello" }]);
    expect((await fetch(`${base}/api/bundles/hello.js`)).status).toBe(200);
    expect((await fetch(`${base}/svc/loader.js`)).status).toBe(200);
    const playground = await fetch(`${base}/`);
    expect(playground.status).toBe(200);
    expect(await playground.text()).toContain("<script");
    // "close": once svc, which shares npx's output pipes, has exited too.
    const closed = new Promise((resolve) => svc.child.on("close", resolve));
    signal(svc.child, "SIGTERM");
    await closed;
    expect(svc.output()).toContain("svc: SIGTERM, shutting down");
    await expect(fetch(`${base}/api/bundles`)).rejects.toThrow();
  });

  it("npx svc build writes a build that renders from a plain static server", async () => {
    const { stdout } = await run("npx", ["svc", "build"], dir("express"));
    expect(stdout).toContain("hello");
    const build = join(dir("express"), "dist/svc");
    const manifest = JSON.parse(readFileSync(join(build, "manifest.json"), "utf8"));
    expect(Object.keys(manifest)).toEqual(["hello"]);

    const loader = join(dir("express"), "node_modules/@svc/loader/dist/loader.js");
    const html = join(work, "static.html");
    writeFileSync(
      html,
      `<!doctype html><html><head><link rel="icon" href="data:,"></head><body>
<div data-svc-component="hello" data-svc-props='{"name":"static"}'></div>
<script src="/loader.js" data-svc-manifest="/svc/manifest.json" defer></script>
</body></html>`,
    );
    // dist/ as it is, by a server that knows nothing of svc: /svc/manifest.json, /svc/bundles/…
    const server = await staticServer(join(dir("express"), "dist"), {
      "/": html,
      "/loader.js": loader,
    });
    const { page, errors } = await newPage();
    await page.goto(server.url);
    await explained(page.getByText("Hello, static!").waitFor({ timeout: 15_000 }), errors);
    expect(errors).toEqual([]);
    expect(server.requests.some((path) => path.startsWith("/svc/bundles/hello."))).toBe(true);
    expect(server.requests.filter((path) => path.startsWith("/api"))).toEqual([]);
    await page.close();
  });
});

describe("a NestJS app (CommonJS, compiled by tsc)", () => {
  let url: string;

  beforeAll(async () => {
    await run("npx", ["tsc", "-p", "tsconfig.json"], dir("nest"));
    const server = await start("node", ["dist/main.js"], dir("nest"), /LISTENING (\S+)/);
    url = server.match[1] as string;
  }, 120_000);

  it("is CommonJS: the compiled app require()s the bridge", () => {
    const main = readFileSync(join(dir("nest"), "dist/main.js"), "utf8");
    expect(main).toContain('require("@svc/server/nest")');
    expect(main).not.toMatch(/^import /m);
  });

  it("serves the component through SvcModule", async () => {
    expect(await (await fetch(`${url}/api/bundles`)).json()).toEqual([{ name: "hello" }]);
    const bundle = await fetch(`${url}/api/bundles/hello.js`);
    expect(bundle.status).toBe(200);
    expect(await bundle.text()).toContain("Hello from Nest, ");
    const metadata = await fetch(`${url}/api/bundles/hello/metadata`);
    expect(await metadata.json()).toMatchObject({ name: "hello" });
  });

  it("without React installed, an island fails with the one line that says what to install", async () => {
    const answer = await fetch(`${url}/api/bundles/hello/html`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(answer.status).toBe(500);
    const body = (await answer.json()) as { error: string; message: string };
    expect(body.error).toBe("RenderError");
    expect(body.message).toBe(
      "server-side rendering needs @svc/react, which is not installed: run `npm install react react-dom @tanstack/react-query @svc/react`",
    );
  });
});

describe("a Vite + React app with @svc/react", () => {
  let url: string;

  beforeAll(async () => {
    await run("npx", ["vite", "build"], dir("vite"));
    const server = await start("node", ["serve.js"], dir("vite"), /LISTENING (\S+)/);
    url = server.match[1] as string;
  }, 120_000);

  it("builds with exactly one copy of React", () => {
    const assets = join(dir("vite"), "dist/assets");
    const sources = readdirSync(assets)
      .filter((file) => file.endsWith(".js.map"))
      .flatMap((file) => JSON.parse(readFileSync(join(assets, file), "utf8")).sources as string[]);
    const reacts = sources.filter((source) =>
      /(^|\/)react\/cjs\/react\.(production|development)(\.min)?\.js$/.test(source),
    );
    expect(reacts).toHaveLength(1);
    expect(sources.some((source) => source.includes("@svc/react/"))).toBe(true);
  });

  it("renders served components with the app's React (ServerComponent and useComponent)", async () => {
    const { page, errors } = await newPage();
    await page.goto(url);
    const server = page.locator('button[data-label="server"]');
    const hook = page.locator('button[data-label="hook"]');
    await explained(server.waitFor({ timeout: 15_000 }), errors);
    await explained(hook.waitFor({ timeout: 15_000 }), errors);
    expect(await server.textContent()).toBe("server 1");
    await hook.click();
    await page.waitForFunction(
      () => document.querySelector('button[data-label="hook"]')?.textContent === "hook 11",
    );
    const same = await page.evaluate(() => {
      const w = window as unknown as { appReact: unknown; __MODULES__: Record<string, unknown> };
      return w.__MODULES__.react === w.appReact;
    });
    expect(same).toBe(true);
    expect(errors).toEqual([]);
    await page.close();
  });

  for (const resolution of ["nodenext", "bundler"]) {
    it(`type-checks with moduleResolution ${resolution}`, async () => {
      await run("npx", ["tsc", "-p", `tsconfig.${resolution}.json`], dir("vite"));
    });
  }
});

/** `wait`, failing with the page's errors in the message rather than a bare time-out. */
async function explained(wait: Promise<unknown>, errors: string[]): Promise<void> {
  try {
    await wait;
  } catch (error) {
    throw new Error(`${(error as Error).message}\npage errors:\n${errors.join("\n")}`);
  }
}

/** The indented lines after `heading` in svc init's output, up to the next blank line. */
function block(output: string, heading: string): string[] {
  const after = output.slice(output.indexOf(heading) + heading.length).replace(/^\n+/, "");
  const lines: string[] = [];
  for (const line of after.split("\n")) {
    if (!line.startsWith("  ")) break;
    lines.push(line.slice(2));
  }
  return lines;
}
