/**
 * The framework how-to pages (docs/frameworks/*.md) are tested by running them: every ```ts
 * block preceded by `<!-- run: <mount> [build=<dir>] [static] -->` is a complete program. It
 * is transpiled as written (decorators included), started in its own Node process in a fresh
 * project directory holding `./components` (and a build directory when the marker names
 * one), and asked for the endpoints under `<mount>`. See run-snippet.mjs for how ports, the
 * Next.js handler and the Bun/Deno stand-ins work.
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";
import { afterAll, describe, expect, it, onTestFinished } from "vitest";
import { JS_TYPE } from "./cases.ts";
import { createFixture } from "./fixture.ts";
import { openEvents, post, send, svcErrorKind } from "./suite.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const docsDir = join(repo, "docs", "frameworks");
const runner = fileURLToPath(new URL("./run-snippet.mjs", import.meta.url));

interface Snippet {
  page: string;
  line: number;
  code: string;
  mount: string;
  build?: string;
  staticMode: boolean;
}

/** Every runnable snippet of every page. */
function snippets(): Snippet[] {
  const found: Snippet[] = [];
  for (const page of readdirSync(docsDir).filter((f) => f.endsWith(".md"))) {
    const text = readFileSync(join(docsDir, page), "utf8");
    const pattern = /<!-- run: (\S+)((?: [^>]*?)?) -->\s*\n```ts\n([\s\S]*?)\n```/g;
    for (const match of text.matchAll(pattern)) {
      const flags = (match[2] ?? "").trim().split(/\s+/);
      found.push({
        page,
        line: text.slice(0, match.index).split("\n").length,
        mount: match[1] as string,
        code: match[3] as string,
        build: flags.find((f) => f.startsWith("build="))?.slice("build=".length),
        staticMode: flags.includes("static"),
      });
    }
  }
  return found;
}

const fx = createFixture();
const children = new Set<ChildProcess>();
const dirs: string[] = [];
afterAll(() => {
  for (const child of children) child.kill();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** Starts the snippet in a fresh project directory; resolves with its base URL. */
async function start(snippet: Snippet): Promise<{ base: string; dir: string; stop(): void }> {
  const dir = mkdtempSync(join(tmpdir(), "svc-doc-"));
  dirs.push(dir);
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"), "dir");
  cpSync(fx.appDir, join(dir, "components"), { recursive: true });
  if (snippet.build !== undefined)
    cpSync(fx.buildDir, join(dir, snippet.build), { recursive: true });
  const { code } = await esbuild.transform(snippet.code, {
    loader: "ts",
    format: "esm",
    target: "es2022",
    tsconfigRaw: { compilerOptions: { experimentalDecorators: true } },
  });
  const file = join(dir, "main.mjs");
  writeFileSync(file, code);
  const env = { ...process.env };
  delete env.SVC_BUILD_DIR;
  const child = spawn(process.execPath, ["--conditions=source", runner, file], {
    cwd: dir,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.add(child);
  const stop = () => {
    child.kill();
    children.delete(child);
  };
  return new Promise((resolve, reject) => {
    let out = "";
    let err = "";
    child.stdout?.on("data", (chunk: Buffer) => {
      out += chunk;
      const port = /SNIPPET_PORT=(\d+)/.exec(out)?.[1];
      if (port !== undefined) resolve({ base: `http://127.0.0.1:${port}`, dir, stop });
    });
    child.stderr?.on("data", (chunk: Buffer) => {
      err += chunk;
    });
    child.on("exit", (status) => reject(new Error(`snippet exited (${status}):\n${err}`)));
  });
}

describe("docs/frameworks: every snippet runs", () => {
  const all = snippets();

  it("finds the pages' snippets", () => {
    const pages = new Set(all.map((s) => s.page));
    for (const page of ["express.md", "fastify.md", "hono.md", "koa.md", "nest.md", "fetch.md"]) {
      expect(pages).toContain(page);
    }
  });

  for (const snippet of all) {
    const mode = snippet.staticMode ? "static mode" : snippet.build ? "build directory" : "live";
    it(`${snippet.page}:${snippet.line} serves svc under ${snippet.mount} (${mode})`, async () => {
      const { base, dir, stop } = await start(snippet);
      onTestFinished(stop);
      const listing = await send(base, `${snippet.mount}/bundles`);
      expect(listing.status).toBe(200);
      expect(JSON.parse(listing.body.toString())).toContainEqual({ name: "greeting" });
      const bundle = await send(base, `${snippet.mount}/bundles/greeting.js`);
      const metadata = await send(base, `${snippet.mount}/bundles/greeting/metadata`);
      expect(metadata.status).toBe(200);
      if (snippet.build === undefined) {
        expect(bundle.status).toBe(200);
        expect(bundle.headers["content-type"]).toBe(JS_TYPE);
        expect(bundle.body.toString()).toContain("Hello, ");
        // The island endpoint as mounted: JSON props render; props of another type are svc's 415.
        const island = `${snippet.mount}/bundles/greeting/html`;
        const rendered = await post(base, island, '{"who":"docs"}');
        expect(rendered.status).toBe(200);
        expect(rendered.body.toString()).toContain("docs");
        const text = await post(base, island, '{"who":"docs"}', "text/plain");
        expect(text.status).toBe(415);
        expect(svcErrorKind(text)).toBe("UnsupportedMediaType");
        // Live reload through nothing but the bridge: a save is announced on the stream.
        const events = await openEvents(base, `${snippet.mount}/events`);
        onTestFinished(() => events.close());
        expect(events.status).toBe(200);
        expect(await events.next()).toMatchObject({ type: "hello" });
        const greeting = join(dir, "components", "greeting", "Greeting.tsx");
        writeFileSync(greeting, readFileSync(greeting, "utf8").replace("Hello, ", "Hi, "));
        const change = await events.next((event) => event.type === "change");
        const after = await send(base, `${snippet.mount}/bundles/greeting.js`);
        expect(after.body.toString()).toContain("Hi, ");
        expect(change).toEqual({
          type: "change",
          name: "greeting",
          hash: (after.headers.etag ?? "").replaceAll('"', ""),
        });
        return;
      }
      const { file, code } = fx.prebuilt.greeting;
      const staticFile = await send(base, `${snippet.mount}/static/${file}`);
      expect(staticFile.status).toBe(200);
      expect(staticFile.body.equals(code)).toBe(true);
      if (snippet.staticMode) {
        expect(bundle.status).toBe(404);
        expect(JSON.parse(bundle.body.toString())).toMatchObject({ error: "StaticMode" });
      } else {
        expect(bundle.status).toBe(200);
        expect(bundle.body.equals(code)).toBe(true);
      }
    });
  }
});
