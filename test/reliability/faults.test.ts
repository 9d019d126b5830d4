/**
 * Faults while serving, over real HTTP (node handler; the disconnect test on every bridge):
 * files deleted or half-written while they are bundled, `schema.json` replaced mid-request,
 * esbuild's service killed, clients that go away mid-response. Each must give a clean error
 * or a correct answer, never a crash, and never a stale bundle once the files have settled.
 *
 * The file-system faults are real (real files, real esbuild). The only thing injected is
 * *when* they happen: the real esbuild bundler is wrapped so a test can act at an exact
 * moment (just before esbuild reads the files, or just after it has read them), which a
 * timing race could only hit by luck.
 */
import { execFileSync } from "node:child_process";
import {
  mkdirSync,
  mkdtempSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { afterAll, afterEach, describe, expect, it } from "vitest";
import type { Driver, Running } from "../conformance/drivers/driver.ts";
import { expressDriver } from "../conformance/drivers/express.ts";
import { fastifyDriver } from "../conformance/drivers/fastify.ts";
import { honoDriver } from "../conformance/drivers/hono.ts";
import { koaDriver } from "../conformance/drivers/koa.ts";
import { nodeDriver } from "../conformance/drivers/node.ts";
import {
  type Bundler,
  ComponentRegistry,
  contentHash,
  createHandlers,
  esbuildBundler,
  type Handlers,
  silentLogger,
} from "../conformance/svc.ts";
import { JSON_TYPE, type RawAnswer, recordingLogger, sendRaw } from "./helpers.ts";

const roots: string[] = [];
afterAll(() => {
  for (const root of roots) rmSync(root, { recursive: true, force: true });
});

const PAST = new Date(Date.now() - 3_600_000);

/** Writes files with modification times an hour ago (as files long saved are). */
function writeFiles(root: string, files: Record<string, string>): void {
  for (const [path, content] of Object.entries(files)) {
    const file = join(root, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, content);
    utimesSync(file, PAST, PAST);
  }
}

/** A component whose visible text lives in a sibling file, `label.ts`. */
function card(label: string): Record<string, string> {
  return {
    "card/index.tsx": 'export { default } from "./View";\n',
    "card/View.tsx": 'import { label } from "./label";\nexport default () => <p>{label}</p>;\n',
    "card/label.ts": `export const label = ${JSON.stringify(label)};\n`,
    "card/schema.json": JSON.stringify({ title: "Card v1", type: "object", properties: {} }),
    "other/index.tsx": 'export default () => "other";\n',
  };
}

interface Hooks {
  /** Runs once, just before esbuild reads the component's files. */
  before?: () => void | Promise<void>;
  /** Runs once, just after esbuild has read them (before the cache stamps them), or failed. */
  after?: () => void | Promise<void>;
}

interface Setup {
  root: string;
  server: Running;
  handlers: Handlers;
  hooks: Hooks;
  logger: ReturnType<typeof recordingLogger>;
  get(path: string): Promise<RawAnswer>;
  /** Resolves once the handler set has been asked for a bundle `count` more times. */
  bundleCalls(count: number): Promise<void>;
}

const servers: Running[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function setup(files: Record<string, string>): Promise<Setup> {
  const root = mkdtempSync(join(tmpdir(), "svc-faults-"));
  roots.push(root);
  writeFiles(root, files);
  const hooks: Hooks = {};
  const bundler: Bundler = {
    async bundle(component, options) {
      const before = hooks.before;
      hooks.before = undefined;
      await before?.();
      try {
        return await esbuildBundler.bundle(component, options);
      } finally {
        const after = hooks.after;
        hooks.after = undefined;
        await after?.();
      }
    },
  };
  const logger = recordingLogger();
  const handlers = createHandlers(new ComponentRegistry(root, { logger: silentLogger }), {
    bundler,
    logger,
  });
  // Counts calls into the handler set: a request has joined whatever build is under way by
  // the time getBundle returns its promise (the cache is consulted synchronously).
  let calls = 0;
  const waiting: { at: number; resolve: () => void }[] = [];
  const getBundle = handlers.getBundle;
  handlers.getBundle = (name) => {
    const result = getBundle(name);
    calls++;
    for (const w of waiting.filter((w) => w.at <= calls)) w.resolve();
    return result;
  };
  const server = await nodeDriver.start({ source: handlers, options: {}, prefix: "/api" });
  servers.push(server);
  return {
    root,
    server,
    handlers,
    hooks,
    logger,
    get: (path) => sendRaw(server.url, `/api${path}`),
    bundleCalls: (count) =>
      new Promise((resolve) => {
        waiting.push({ at: calls + count, resolve });
      }),
  };
}

const text = (answer: RawAnswer) => answer.body.toString("utf8");
const json = (answer: RawAnswer) => JSON.parse(text(answer)) as Record<string, unknown>;

/** A 200 bundle whose ETag is the hash of exactly the bytes sent. */
function expectBundle(answer: RawAnswer, containing: string): void {
  expect(answer.status, text(answer).slice(0, 300)).toBe(200);
  expect(text(answer)).toContain(containing);
  expect(answer.headers.etag).toBe(`"${contentHash(answer.body)}"`);
}

function expectError(answer: RawAnswer, status: number, kind: string): Record<string, unknown> {
  expect([answer.status, answer.headers["content-type"]]).toEqual([status, JSON_TYPE]);
  const body = json(answer);
  expect(body.error).toBe(kind);
  return body;
}

describe("files changing while a component is bundled", () => {
  it("a sibling deleted just before esbuild reads it: a clean BundleError, then the bundle once it is back", async () => {
    const t = await setup(card("first"));
    t.hooks.before = () => rmSync(join(t.root, "card/label.ts"));
    const body = expectError(await t.get("/bundles/card.js"), 500, "BundleError");
    expect(body.message).toMatch(/View\.tsx:1:\d+: Could not resolve "\.\/label"/);
    expect(body.message).not.toContain(t.root);
    writeFiles(t.root, { "card/label.ts": 'export const label = "restored";\n' });
    expectBundle(await t.get("/bundles/card.js"), "restored");
    expect(t.logger.errors).toEqual([]);
  });

  it("the whole component deleted while its bundle is built: 404, and the listing drops it", async () => {
    const t = await setup(card("first"));
    t.hooks.before = () => rmSync(join(t.root, "card"), { recursive: true });
    expectError(await t.get("/bundles/card.js"), 404, "ComponentNotFound");
    expect(json(await t.get("/bundles"))).toEqual([{ name: "other" }]);
    expectError(await t.get("/bundles/card/metadata"), 404, "ComponentNotFound");
  });

  it("a file deleted after esbuild read it: that bundle is served once but never cached", async () => {
    const t = await setup(card("first"));
    t.hooks.after = () => rmSync(join(t.root, "card/label.ts"));
    expectBundle(await t.get("/bundles/card.js"), "first"); // what the files were when read
    expectError(await t.get("/bundles/card.js"), 500, "BundleError");
    writeFiles(t.root, { "card/label.ts": 'export const label = "second";\n' });
    expectBundle(await t.get("/bundles/card.js"), "second");
  });

  it("a file half-written when esbuild reads it: a BundleError at file:line:column, then the finished file's bundle", async () => {
    const t = await setup(card("first"));
    const full = 'export const label = "finished writing";\n';
    const file = join(t.root, "card/label.ts");
    t.hooks.before = () => writeFileSync(file, full.slice(0, 25)); // `export const label = "fin`
    const body = expectError(await t.get("/bundles/card.js"), 500, "BundleError");
    expect(body.message).toMatch(/label\.ts:1:\d+: Unterminated string literal/);
    writeFileSync(file, full);
    expectBundle(await t.get("/bundles/card.js"), "finished writing");
  });

  it("a file finished while esbuild reads its first half: the next request has the whole file", async () => {
    const t = await setup(card("first"));
    const file = join(t.root, "card/label.ts");
    // The half esbuild reads parses (a complete statement); the writer then finishes the file.
    t.hooks.before = () => writeFileSync(file, 'export const label = "half";\n');
    t.hooks.after = () =>
      writeFileSync(file, 'export const label = "half";\nexport const more = "whole";\n');
    expectBundle(await t.get("/bundles/card.js"), "half");
    const after = await t.get("/bundles/card.js");
    expectBundle(after, "half");
    // The finished file's export is unused, so compare with a bundle built from scratch.
    const fresh = await setup({ ...card("x"), "card/label.ts": readFileSync(file, "utf8") });
    expect(text(after).replace(/\/\/# sourceMappingURL=.*$/s, "")).toBe(
      text(await fresh.get("/bundles/card.js")).replace(/\/\/# sourceMappingURL=.*$/s, ""),
    );
  });

  it("a file rewritten during the build by a tool that keeps modification times (cp -p, tar, rsync -t --inplace): the next request has the new content", async () => {
    const t = await setup(card("AAAA"));
    const file = join(t.root, "card/label.ts");
    const old = statSync(file);
    t.hooks.after = () => {
      // Same size, same modification time, same inode: only the change time tells.
      writeFileSync(file, 'export const label = "BBBB";\n');
      utimesSync(file, old.atime, old.mtime);
    };
    expectBundle(await t.get("/bundles/card.js"), "AAAA");
    expectBundle(await t.get("/bundles/card.js"), "BBBB");
    expectBundle(await t.get("/bundles/card.js"), "BBBB");
  });

  it("a request sent after an edit settled never gets the bundle of a build that read the files before it", async () => {
    const t = await setup(card("first"));
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const readFiles = new Promise<void>((resolve) => {
      entered = resolve;
    });
    t.hooks.after = () => {
      entered();
      return gate;
    };
    const early = t.get("/bundles/card.js"); // its build reads "first", then waits
    await readFiles;
    writeFileSync(join(t.root, "card/label.ts.new"), 'export const label = "second";\n');
    renameSync(join(t.root, "card/label.ts.new"), join(t.root, "card/label.ts")); // settled
    const joined = t.bundleCalls(1);
    const late = t.get("/bundles/card.js");
    await joined; // the late request is waiting on the build under way
    release();
    expectBundle(await early, "first"); // read before the edit: right for its request
    expectBundle(await late, "second");
  });

  it("a request sent after a fix settled never gets the error of a build that read the broken file", async () => {
    const t = await setup(card("first"));
    const file = join(t.root, "card/label.ts");
    let release = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    let entered = () => {};
    const failed = new Promise<void>((resolve) => {
      entered = resolve;
    });
    t.hooks.before = () => writeFileSync(file, "export const label = ;\n");
    t.hooks.after = () => {
      entered();
      return gate;
    };
    const early = t.get("/bundles/card.js");
    await failed;
    writeFileSync(`${file}.new`, 'export const label = "fixed";\n');
    renameSync(`${file}.new`, file);
    const joined = t.bundleCalls(1);
    const late = t.get("/bundles/card.js");
    await joined;
    release();
    // The early one's build failed while its folder changed (the fix renamed in), so it was
    // tried once more: it answers the fix too — newer than its request asked, never older.
    expectBundle(await early, "fixed");
    expectBundle(await late, "fixed");
  });

  it("files rewritten continuously while requests arrive: every answer is a whole version or a clean error, the last one wins", async () => {
    const t = await setup(card("v0"));
    const file = join(t.root, "card/label.ts");
    let writing = true;
    let version = 0;
    const writer = (async () => {
      while (writing) {
        version++;
        // In place, as most editors save: readers can see an empty or partial file.
        writeFileSync(file, `export const label = "v${version}";\n`);
        await new Promise((resolve) => setTimeout(resolve, 3));
      }
    })();
    const answers: RawAnswer[] = [];
    const started = Date.now();
    while (Date.now() - started < 1500) {
      answers.push(...(await Promise.all([1, 2, 3].map(() => t.get("/bundles/card.js")))));
    }
    writing = false;
    await writer;
    for (const answer of answers) {
      if (answer.status === 200) {
        // A version, or the empty file of the instant between truncating and writing.
        expect(text(answer)).toMatch(/"v\d+"|children: void 0/);
        expect(answer.headers.etag).toBe(`"${contentHash(answer.body)}"`);
      } else {
        // An empty or half-written file does not bundle: a BundleError, never anything else.
        expectError(answer, 500, "BundleError");
      }
    }
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThan(0);
    expectBundle(await t.get("/bundles/card.js"), `"v${version}"`);
    expect(t.logger.errors).toEqual([]);
  });
});

describe("schema.json replaced mid-request", () => {
  it("replaced (renamed over) while the metadata request waits for its bundle: that answer is one whole version, the next the new one", async () => {
    const t = await setup(card("x"));
    const schema = join(t.root, "card/schema.json");
    t.hooks.before = () => {
      writeFileSync(`${schema}.tmp`, JSON.stringify({ title: "Card v2", type: "object" }));
      renameSync(`${schema}.tmp`, schema);
    };
    const during = await t.get("/bundles/card/metadata");
    expect(during.status).toBe(200);
    expect(["Card v1", "Card v2"]).toContain(json(during).title);
    const after = await t.get("/bundles/card/metadata");
    expect(json(after)).toMatchObject({ name: "card", title: "Card v2" });
  });

  it("half-written in place: a clean InvalidSchema naming the file, then the finished schema", async () => {
    const t = await setup(card("x"));
    await t.get("/bundles/card/metadata"); // schema v1 read and cached
    const schema = join(t.root, "card/schema.json");
    const full = JSON.stringify({ title: "Card v3", description: "written", type: "object" });
    writeFileSync(schema, full.slice(0, 20));
    const body = expectError(await t.get("/bundles/card/metadata"), 500, "InvalidSchema");
    expect(body.message).toMatch(/^card\/schema\.json: is not valid JSON/);
    writeFileSync(schema, full);
    expect(json(await t.get("/bundles/card/metadata"))).toMatchObject({ title: "Card v3" });
  });

  it("deleted mid-request: minimal metadata, never an error", async () => {
    const t = await setup(card("x"));
    await t.get("/bundles/card/metadata");
    rmSync(join(t.root, "card/schema.json"));
    expect(json(await t.get("/bundles/card/metadata"))).toMatchObject({ title: "card" });
  });
});

describe("esbuild's service dying", () => {
  // runEsbuild's restart is unit-tested in packages/server/src/bundler.test.ts ("restarts
  // esbuild's service after it died"); this is the same fault seen over HTTP.
  it("a killed service answers the next request (a cold build) with a bundle, not a 500", async () => {
    const t = await setup(card("first"));
    expectBundle(await t.get("/bundles/card.js"), "first");
    const pids = execFileSync("pgrep", ["-f", "-P", String(process.pid), "--", "--service"])
      .toString()
      .trim()
      .split("\n")
      .filter(Boolean);
    expect(pids.length).toBeGreaterThan(0);
    for (const pid of pids) process.kill(Number(pid), "SIGKILL");
    await new Promise((resolve) => setTimeout(resolve, 100));
    const other = await t.get("/bundles/other.js");
    expect(other.status, text(other)).toBe(200);
  });
});

/** A component whose bundle is over 2 MiB, so a response cannot fit in socket buffers. */
function big(): Record<string, string> {
  const chunk = "0123456789abcdef".repeat(4096); // 64 KiB
  return {
    "big/index.tsx": `const data = [${Array.from({ length: 24 }, (_, i) => JSON.stringify(`${i}:${chunk}`)).join(",\n")}];\nexport default () => data.length;\n`,
    "small/index.tsx": 'export default () => "small";\n',
  };
}

/** Starts a GET and destroys the connection after `afterBytes` bytes of the answer. */
function disconnectAfter(base: string, path: string, afterBytes: number): Promise<number> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve) => {
    const req = request({ host: hostname, port, path, agent: false });
    let received = 0;
    req.on("response", (res) => {
      res.on("data", (chunk: Buffer) => {
        received += chunk.length;
        if (received >= afterBytes) req.destroy();
      });
    });
    req.on("error", () => {});
    req.on("close", () => resolve(received));
    if (afterBytes === 0) setTimeout(() => req.destroy(), 5);
    req.end();
  });
}

const DRIVERS: Driver[] = [
  nodeDriver,
  expressDriver("express"),
  fastifyDriver("fastify"),
  koaDriver("koa"),
  honoDriver,
];

describe.each(DRIVERS)("clients disconnecting mid-response: $name", (driver) => {
  it("keeps serving whole, correct answers to everyone else", async () => {
    const root = mkdtempSync(join(tmpdir(), "svc-disconnect-"));
    roots.push(root);
    writeFiles(root, big());
    const logger = recordingLogger();
    const server = await driver.start({
      source: new ComponentRegistry(root, { logger: silentLogger }),
      options: { logger },
      prefix: "/api",
    });
    servers.push(server);
    // Gone before the (cold) bundle is even built, then mid-body, many at once.
    await Promise.all(
      Array.from({ length: 5 }, () => disconnectAfter(server.url, "/api/bundles/big.js", 0)),
    );
    const whole = await sendRaw(server.url, "/api/bundles/big.js");
    expectBundle(whole, "0123456789abcdef");
    expect(whole.body.length).toBeGreaterThan(2 * 1024 * 1024);
    const received = await Promise.all(
      Array.from({ length: 20 }, (_, i) =>
        disconnectAfter(server.url, "/api/bundles/big.js", 1024 * (i + 1)),
      ),
    );
    expect(Math.max(...received)).toBeLessThan(whole.body.length);
    const [again, small, list] = await Promise.all([
      sendRaw(server.url, "/api/bundles/big.js"),
      sendRaw(server.url, "/api/bundles/small.js"),
      sendRaw(server.url, "/api/bundles"),
    ]);
    expect(again.body.equals(whole.body)).toBe(true);
    expectBundle(small, "small");
    expect(list.status).toBe(200);
    expect(logger.errors).toEqual([]);
  });
});
