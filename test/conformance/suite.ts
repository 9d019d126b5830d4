/**
 * The conformance suite: the table of `cases.ts`, run unchanged against one transport (a
 * driver), at two mount prefixes, each answer compared with the table and, byte for byte,
 * with what the transport-free core answers for the same request.
 */
import { writeFileSync } from "node:fs";
import { request } from "node:http";
import { join } from "node:path";
import { ERROR_BODY_KEYS } from "@svc/protocol";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { writeTree } from "../../packages/server/src/test/fixtures.ts";
import {
  ALLOWED_HOST,
  BODY_LIMIT,
  type Case,
  CORS_ORIGIN,
  type Config,
  conformanceCases,
  type Expected,
  hasDotSegment,
  JSON_TYPE,
  propsOfSize,
} from "./cases.ts";
import type { Driver, Running } from "./drivers/driver.ts";
import { createFixture, type Fixture } from "./fixture.ts";
import {
  type BridgeOptions,
  type Bundler,
  ComponentRegistry,
  createBridgeHandler,
  createHandlers,
  createLiveReload,
  esbuildBundler,
  type LiveEvent,
  type LiveReload,
  type SvcResponse,
  silentLogger,
} from "./svc.ts";

export const PREFIXES = ["/api", "/ui/components"] as const;

/** The headers every transport must give identically. */
const COMPARED_HEADERS = [
  "content-type",
  "cache-control",
  "etag",
  "allow",
  "vary",
  "access-control-allow-origin",
  "access-control-allow-methods",
  "access-control-allow-headers",
  "access-control-expose-headers",
  "link",
  "x-content-type-options",
  "content-security-policy",
] as const;

export interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

function configOptions(fx: Fixture, config: Config): BridgeOptions {
  const base: BridgeOptions = {
    logger: silentLogger,
    loaderScript: fx.loaderScript,
    devLoaderScript: fx.devLoaderScript,
    loaderExtras: fx.loaderExtras,
    loaderLive: fx.loaderLive,
    islandsScript: fx.islandsScript,
    cors: { origins: [CORS_ORIGIN] },
  };
  if (config === "prebuilt") return { ...base, buildDir: fx.buildDir };
  if (config === "static") return { ...base, buildDir: fx.buildDir, staticMode: true };
  if (config === "guarded") return { ...base, allowedHosts: [ALLOWED_HOST] };
  if (config === "dev") return { ...base, renderTimeoutMs: 1000 };
  return base;
}

/**
 * Sends `path` byte for byte (no URL normalisation), like a hostile client would. A body goes
 * with its `Content-Length` and the `Content-Type` of `headers` (none if they give none).
 */
export function send(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  const headers =
    options.body === undefined
      ? options.headers
      : { "content-length": String(Buffer.byteLength(options.body)), ...options.headers };
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        method: options.method ?? "GET",
        headers,
        agent: false,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => {
          const headers: Record<string, string | undefined> = {};
          for (const [key, value] of Object.entries(res.headers)) {
            headers[key] = Array.isArray(value) ? value.join(", ") : value;
          }
          resolve({ status: res.statusCode ?? 0, headers, body: Buffer.concat(chunks) });
        });
      },
    );
    // A server may answer (413) before it has read a large body, and close: not an error here.
    req.on("error", (error) => {
      if ((error as NodeJS.ErrnoException).code !== "EPIPE") reject(error);
    });
    req.end(options.body);
  });
}

/** POSTs `body` to `path` as `type` (`null`: no `Content-Type`), as a backend asks for an island. */
export function post(
  base: string,
  path: string,
  body: string,
  type: string | null = "application/json",
): Promise<Answer> {
  return send(base, path, {
    method: "POST",
    headers: type === null ? {} : { "content-type": type },
    body,
  });
}

/** The kind of svc's JSON error `answer` is, or undefined when it is none of svc's errors. */
export function svcErrorKind(answer: Answer): string | undefined {
  if (answer.headers["content-type"] !== JSON_TYPE) return undefined;
  const body = JSON.parse(answer.body.toString()) as { error?: unknown };
  return typeof body.error === "string" ? body.error : undefined;
}

/**
 * svc's body rule at `island` (an island endpoint of the app at `base`): JSON props up to the
 * limit render, one byte over is svc's 413, malformed JSON svc's InvalidProps; and the app's
 * own `/echo` route still parses JSON.
 */
export async function expectSvcBodyRule(base: string, island: string): Promise<void> {
  expect((await post(base, island, propsOfSize(BODY_LIMIT))).status).toBe(200);
  const over = await post(base, island, propsOfSize(BODY_LIMIT + 1));
  expect(over.status).toBe(413);
  expect(svcErrorKind(over)).toBe("PayloadTooLarge");
  expect(svcErrorKind(await post(base, island, "{oops"))).toBe("InvalidProps");
  const echo = await post(base, "/echo", '{"a":1}');
  expect(JSON.parse(echo.body.toString())).toEqual({ a: 1 });
}

/** The transport-free core's answer to the same request: what every transport must send. */
async function reference(
  handle: ReturnType<typeof createBridgeHandler>,
  method: string,
  path: string,
  headers: Record<string, string>,
  requestBody?: string,
): Promise<Answer> {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const bytes = Buffer.from(requestBody ?? "");
  const response: SvcResponse = await handle({
    method,
    url: path,
    header: (name) => lower[name],
    body: async (limit) => (bytes.byteLength > limit ? { tooLarge: true } : { bytes }),
  });
  if (response.body instanceof ReadableStream) throw new Error("a stream is no table case");
  const body = response.body === null ? Buffer.alloc(0) : Buffer.from(response.body);
  return { status: response.status, headers: response.headers, body };
}

function checkExpected(answer: Answer, expected: Expected): void {
  expect(answer.status).toBe(expected.status);
  if (expected.contentType !== undefined) {
    expect(answer.headers["content-type"]).toBe(expected.contentType ?? undefined);
  }
  if (expected.cacheControl !== undefined) {
    expect(answer.headers["cache-control"]).toBe(expected.cacheControl ?? undefined);
  }
  if (expected.etag === "present") expect(answer.headers.etag).toMatch(/^"[^"]+"$/);
  else if (expected.etag !== undefined)
    expect(answer.headers.etag).toBe(expected.etag ?? undefined);
  if (expected.error !== undefined) {
    const body = JSON.parse(answer.body.toString()) as Record<string, unknown>;
    expect(body.error).toBe(expected.error);
    expect(typeof body.message).toBe("string");
    expect(body.name).toBe(expected.name);
    expect(
      Object.keys(body).every((key) => (ERROR_BODY_KEYS as readonly string[]).includes(key)),
    ).toBe(true);
    // Development's BundleError only: where each error is, with its code frame, relative paths.
    if (body.locations !== undefined) {
      expect(body.error).toBe("BundleError");
      for (const at of body.locations as { file: string; line: number; frame?: string }[]) {
        expect(at.file).not.toMatch(/^\//);
        expect(typeof at.line).toBe("number");
      }
    }
  }
  if (expected.json !== undefined)
    expect(JSON.parse(answer.body.toString())).toEqual(expected.json);
  if (expected.jsonSubset !== undefined) {
    expect(JSON.parse(answer.body.toString())).toMatchObject(expected.jsonSubset);
  }
  if (expected.body !== undefined) expect(answer.body.equals(expected.body)).toBe(true);
  if (expected.bodyIncludes !== undefined)
    expect(answer.body.toString()).toContain(expected.bodyIncludes);
  if (expected.bodyExcludes !== undefined) {
    expect(answer.body.toString()).not.toContain(expected.bodyExcludes);
  }
  for (const [name, value] of Object.entries(expected.headers ?? {})) {
    if (value instanceof RegExp) expect(answer.headers[name]).toMatch(value);
    else expect(answer.headers[name]).toBe(value ?? undefined);
  }
}

function checkSameAsCore(answer: Answer, core: Answer): void {
  expect(answer.status).toBe(core.status);
  for (const name of COMPARED_HEADERS)
    expect([name, answer.headers[name]]).toEqual([name, core.headers[name]]);
  expect(answer.body.toString()).toBe(core.body.toString());
}

/**
 * A path a URL parser has shortened (dot segments removed) is no longer the path the case is
 * about; svc must still answer with one of its JSON errors, never with a component file.
 */
function checkNormalisedAway(answer: Answer): void {
  expect(answer.status).toBeGreaterThanOrEqual(400);
  expect(answer.status).toBeLessThan(500);
  expect(answer.headers["content-type"]).toBe(JSON_TYPE);
  const body = JSON.parse(answer.body.toString()) as { error?: unknown };
  expect(["NotFound", "InvalidComponentName", "ComponentNotFound"]).toContain(body.error);
}

async function run(
  driver: Driver,
  server: Running,
  handle: ReturnType<typeof createBridgeHandler>,
  prefix: string,
  c: Case,
): Promise<void> {
  const method = c.method ?? "GET";
  const headers: Record<string, string> = { ...c.headers };
  const bodyType = c.bodyType === undefined ? "application/json" : c.bodyType;
  if (c.body !== undefined && bodyType !== null) headers["content-type"] = bodyType;
  let path = c.path;
  if (c.revalidate || c.ownHash) {
    const first = await send(server.url, prefix + c.path, { headers });
    expect(first.status).toBe(200);
    if (c.revalidate) headers["if-none-match"] = first.headers.etag ?? "";
    if (c.ownHash) path = `${c.path}?${(first.headers.etag ?? "").replaceAll('"', "")}`;
  }
  const answer = await send(server.url, prefix + path, { method, headers, body: c.body });
  if (c.frameworkAnswers !== undefined && driver.parsesBodiesFirst) {
    // The framework's own body parser answered (its status, its body, its headers).
    expect(answer.status).toBe(c.frameworkAnswers);
    return;
  }
  if (driver.normalisesDotSegments && hasDotSegment(c.path)) {
    if (c.whenNormalised === undefined) return checkNormalisedAway(answer);
    checkExpected(answer, c.whenNormalised.expect);
    checkSameAsCore(answer, await reference(handle, method, c.whenNormalised.path, headers));
    return;
  }
  checkExpected(answer, c.expect);
  checkSameAsCore(answer, await reference(handle, method, path, headers, c.body));
}

/** Registers the whole suite for `driver`. */
export function conformance(driver: Driver): void {
  describe(`conformance: ${driver.name}`, () => {
    const fx = createFixture();
    const cases = conformanceCases(fx);

    for (const prefix of PREFIXES) {
      describe(`mounted under ${prefix}`, () => {
        const servers = new Map<Config, Running>();
        const cores = new Map<Config, ReturnType<typeof createBridgeHandler>>();
        beforeAll(async () => {
          for (const config of ["dev", "prebuilt", "static", "guarded"] as const) {
            const options = configOptions(fx, config);
            servers.set(config, await driver.start({ source: fx.registry(), options, prefix }));
            cores.set(config, createBridgeHandler(fx.registry(), options));
          }
        });
        afterAll(async () => {
          await Promise.all([...servers.values()].map((s) => s.close()));
        });

        for (const c of cases) {
          const config = c.config ?? "dev";
          const normalised = driver.normalisesDotSegments && hasDotSegment(c.path);
          const title = !normalised
            ? c.title
            : c.whenNormalised === undefined
              ? `${c.title} — ${c.path} has a dot segment this transport's URL parser removes: answered with a 4xx JSON error of svc's, never a file`
              : `${c.title} — this transport's URL parser turns ${c.path} into ${c.whenNormalised.path}: answered as that path`;
          it(`[${config}] ${title}`, async () => {
            await run(
              driver,
              servers.get(config) as Running,
              cores.get(config) as ReturnType<typeof createBridgeHandler>,
              prefix,
              c,
            );
          });
        }
      });
    }

    describe("the live-reload event stream", () => {
      let events: { server: Running; live: LiveReload; dir: string } | undefined;
      beforeAll(async () => {
        const dir = writeTree({
          "live/index.tsx": 'export { default } from "./View";\n',
          "live/View.tsx": 'export default function View() {\n  return "one";\n}\n',
        });
        const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
          logger: silentLogger,
        });
        const live = createLiveReload(handlers, { pollMs: 0 });
        const server = await driver.start({
          source: handlers,
          options: { live, cors: { origins: [CORS_ORIGIN] } },
          prefix: "/api",
        });
        events = { server, live, dir };
      });
      afterAll(async () => {
        events?.live.close();
        await events?.server.close();
      });

      it("streams hello, then a change after a real edit, with the headers of an event stream", async () => {
        const { server, live, dir } = events as NonNullable<typeof events>;
        const stream = await openEvents(server.url, "/api/events", { origin: CORS_ORIGIN });
        try {
          expect(stream.status).toBe(200);
          expect(stream.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
          expect(stream.headers["cache-control"]).toBe("no-cache, no-transform");
          expect(stream.headers["x-content-type-options"]).toBe("nosniff");
          expect(stream.headers["access-control-allow-origin"]).toBe(CORS_ORIGIN);
          expect(stream.headers["content-length"]).toBeUndefined();
          expect(await stream.next()).toEqual({ type: "hello", server: live.serverId });
          const before = await send(server.url, "/api/bundles/live.js");
          writeFileSync(
            join(dir, "live/View.tsx"),
            'export default function View() {\n  return "two";\n}\n',
          );
          const change = await stream.next((e) => e.type === "change");
          const after = await send(server.url, "/api/bundles/live.js");
          expect(after.body.toString()).toContain('"two"');
          expect(change).toEqual({
            type: "change",
            name: "live",
            hash: (after.headers.etag ?? "").replaceAll('"', ""),
          });
          expect(change).not.toMatchObject({
            hash: (before.headers.etag ?? "").replaceAll('"', ""),
          });
        } finally {
          stream.close();
        }
      });

      it("lets go of a client that goes away, also after 1,000 connects and disconnects", async () => {
        const { server, live } = events as NonNullable<typeof events>;
        const one = await openEvents(server.url, "/api/events");
        await one.next();
        expect(live.listeners).toBe(1);
        one.close();
        await until(() => live.listeners === 0);
        for (let i = 0; i < 1000; i++) {
          const stream = await openEvents(server.url, "/api/events");
          await stream.next();
          stream.close();
        }
        await until(() => live.listeners === 0);
        expect(live.listeners).toBe(0);
      });
    });

    it("answers other requests while a slow (cold) bundle is in progress", async () => {
      let release = () => {};
      const gate = new Promise<void>((resolve) => {
        release = resolve;
      });
      let entered = () => {};
      const bundling = new Promise<void>((resolve) => {
        entered = resolve;
      });
      const slow: Bundler = {
        async bundle(component, options) {
          entered();
          await gate;
          return esbuildBundler.bundle(component, options);
        },
      };
      const handlers = createHandlers(fx.registry(), { bundler: slow, logger: silentLogger });
      const server = await driver.start({
        source: handlers,
        options: { loaderScript: fx.loaderScript },
        prefix: "/api",
      });
      try {
        let settled = false;
        const cold = send(server.url, "/api/bundles/greeting.js").finally(() => {
          settled = true;
        });
        await bundling;
        const listing = await send(server.url, "/api/bundles");
        expect(listing.status).toBe(200);
        const loader = await send(server.url, "/api/loader.js");
        expect(loader.status).toBe(200);
        expect(settled).toBe(false);
        release();
        const bundle = await cold;
        expect(bundle.status).toBe(200);
        expect(bundle.body.toString()).toContain("Hello, ");
      } finally {
        release();
        await server.close();
      }
    });
  });

  describe("the batch endpoint and fallbacks", () => {
    let server: Running | undefined;
    beforeAll(async () => {
      const dir = writeTree({
        "card/index.tsx":
          "export default function Card({ n = 0 }: { n?: number }) {\n  return <p>card {n}</p>;\n}\n",
        "card/schema.json": JSON.stringify({ properties: { n: { type: "integer" } } }),
        "thrower/index.tsx":
          "export default function Thrower(): never {\n  throw new Error('no');\n}\n",
      });
      const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
        logger: silentLogger,
        renderIsolation: "none",
      });
      server = await driver.start({ source: handlers, options: { live: false }, prefix: "/api" });
    });
    afterAll(() => server?.close());

    it("renders a page's islands in one request: each its HTML or its usual error, in order, one failing never failing the others", async () => {
      const { url } = server as Running;
      const answer = await post(
        url,
        "/api/islands",
        JSON.stringify({
          islands: [
            { id: "a", name: "card", props: { n: 1 }, hydrate: "visible" },
            { id: "b", name: "card", props: { n: "x" } },
            { id: "c", name: "nope" },
            { id: "d", name: "thrower" },
            { id: "e", name: "thrower", fallback: "client" },
            { id: "f", name: "card", hydrate: "bogus" },
            { id: "g", name: "bad..name" },
            { id: "h", name: "card", props: { n: 2 } },
          ],
        }),
      );
      expect(answer.status).toBe(200);
      expect(answer.headers["content-type"]).toBe(JSON_TYPE);
      expect(answer.headers["cache-control"]).toBe("no-store");
      expect(answer.headers["server-timing"]).toMatch(/^render;dur=/);
      const { islands } = JSON.parse(answer.body.toString()) as {
        islands: { id: string; status: number; html?: string; error?: { error: string } }[];
      };
      expect(islands.map((i) => [i.id, i.status, i.error?.error])).toEqual([
        ["a", 200, undefined],
        ["b", 422, "InvalidProps"],
        ["c", 404, "ComponentNotFound"],
        ["d", 500, "RenderError"],
        ["e", 200, undefined],
        ["f", 400, "InvalidProps"],
        ["g", 422, "InvalidComponentName"],
        ["h", 200, undefined],
      ]);
      expect(islands[0]?.html).toMatch(/data-svc-hydrate="visible">.*card <!-- -->1/);
      expect(islands[7]?.html).toContain("card <!-- -->2");
      // The fallback: a container the browser renders itself, same props, and why (with the
      // bundle's hash when it is at hand without a look at the files, as on a quiet machine).
      expect(islands[4]?.html).toMatch(
        /^<div data-svc-component="thrower" data-svc-props='\{\}'( data-svc-hash="[0-9a-f]{12}")? data-svc-hydrate="load" data-svc-fallback="RenderError"><\/div>$/,
      );
    });

    it("answers a single island's failure with a client-rendered container when asked (?fallback=client)", async () => {
      const { url } = server as Running;
      const plain = await post(url, "/api/bundles/thrower/html", "{}");
      expect(plain.status).toBe(500);
      const fallback = await post(
        url,
        "/api/bundles/thrower/html?fallback=client&hydrate=idle",
        "{}",
      );
      expect(fallback.status).toBe(200);
      expect(fallback.body.toString()).toContain(
        'data-svc-hydrate="idle" data-svc-fallback="RenderError"',
      );
      expect(fallback.body.toString()).not.toContain("data-svc-ssr");
      const wrong = await post(url, "/api/bundles/thrower/html?fallback=server", "{}");
      expect(wrong.status).toBe(400);
    });

    it("keeps its bounds: 256 islands, 1 MiB, JSON only, one id each — with the usual bodies", async () => {
      const { url } = server as Running;
      const many = Array.from({ length: 257 }, (_, i) => ({ id: `i${i}`, name: "card" }));
      const tooMany = await post(url, "/api/islands", JSON.stringify({ islands: many }));
      expect(tooMany.status).toBe(400);
      expect(svcErrorKind(tooMany)).toBe("InvalidProps");
      expect(JSON.parse(tooMany.body.toString()).message).toContain("at most 256");
      const ok = await post(url, "/api/islands", JSON.stringify({ islands: many.slice(0, 256) }));
      expect(ok.status).toBe(200);
      const large = await post(
        url,
        "/api/islands",
        JSON.stringify({
          islands: [{ id: "a", name: "card", props: { s: "x".repeat(1024 * 1024) } }],
        }),
      );
      expect(large.status).toBe(413);
      // A framework that parses bodies first (NestJS on Fastify) answers with its own body.
      if (!driver.parsesBodiesFirst) expect(svcErrorKind(large)).toBe("PayloadTooLarge");
      const text = await post(url, "/api/islands", '{"islands":[]}', "text/plain");
      expect(text.status).toBe(415);
      for (const body of [
        '{"islands":[{"id":"a","name":"card"},{"id":"a","name":"card"}]}',
        "[]",
        '{"x":1}',
        "no",
      ]) {
        const refused = await post(url, "/api/islands", body);
        expect([body, refused.status]).toEqual([body, 400]);
        if (!driver.parsesBodiesFirst || body.startsWith("{")) {
          expect(svcErrorKind(refused)).toBe("InvalidProps");
        }
      }
      const get = await send(url, "/api/islands");
      expect(get.status).toBe(405);
      expect(get.headers.allow).toBe("POST");
    });
  });

  describe("health, Server-Timing and shutdown", () => {
    it("answers /health 503 while the render workers start, 200 once up; Server-Timing on bundles and islands; 503 once closed", async () => {
      const dir = writeTree({
        "card/index.tsx":
          "export default function Card({ n = 0 }: { n?: number }) {\n  return <p>card {n}</p>;\n}\n",
      });
      const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
        logger: silentLogger,
      });
      const server = await driver.start({
        source: handlers,
        options: { live: false },
        prefix: "/api",
      });
      try {
        const starting = await send(server.url, "/api/health");
        expect(starting.status).toBe(503);
        expect(starting.headers["retry-after"]).toBe("1");
        expect(starting.headers["cache-control"]).toBe("no-store");
        expect(JSON.parse(starting.body.toString())).toMatchObject({
          status: "unavailable",
          reason: expect.stringMatching(/^render workers starting/),
        });
        await handlers.warm?.();
        const ready = await send(server.url, "/api/health");
        expect(ready.status).toBe(200);
        expect(JSON.parse(ready.body.toString())).toMatchObject({
          status: "ready",
          render: { queued: 0, running: 0 },
        });

        const bundle = await send(server.url, "/api/bundles/card.js");
        expect(bundle.status).toBe(200);
        expect(bundle.headers["server-timing"]).toMatch(
          /^cache;desc=(hit|miss), bundle;dur=\d+\.\d$/,
        );
        const island = await post(server.url, "/api/bundles/card/html", '{"n":1}');
        expect(island.status).toBe(200);
        expect(island.headers["server-timing"]).toMatch(/^render;dur=\d+\.\d$/);

        // Shutting down: a load balancer is told, and a render asked for now gets a whole 503.
        await handlers.close?.();
        const closing = await send(server.url, "/api/health");
        expect(closing.status).toBe(503);
        expect(JSON.parse(closing.body.toString())).toEqual({
          status: "unavailable",
          reason: "shutting down",
        });
        const late = await post(server.url, "/api/bundles/card/html", "{}");
        expect(late.status).toBe(503);
        expect(late.headers["retry-after"]).toBe("1");
        expect(svcErrorKind(late)).toBe("Overloaded");
        expect((await send(server.url, "/api/bundles/card.js")).status).toBe(200);
      } finally {
        await server.close();
      }
    });
  });
}

/** An open `GET` of an event stream: its status, headers and parsed `data:` events. */
export interface OpenEvents {
  status: number;
  headers: Record<string, string | undefined>;
  /** The next event (matching `predicate`), waiting for it if need be (5 s at most). */
  next(predicate?: (event: LiveEvent) => boolean): Promise<LiveEvent>;
  close(): void;
}

export function openEvents(
  base: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<OpenEvents> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request({ host: hostname, port, path, headers, agent: false }, (res) => {
      const queue: LiveEvent[] = [];
      const waiting: (() => void)[] = [];
      let buffer = "";
      res.setEncoding("utf8");
      res.on("data", (chunk: string) => {
        buffer += chunk;
        let end = buffer.indexOf("\n\n");
        while (end !== -1) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          for (const line of block.split("\n")) {
            if (line.startsWith("data: ")) queue.push(JSON.parse(line.slice(6)) as LiveEvent);
          }
          end = buffer.indexOf("\n\n");
        }
        for (const wake of waiting.splice(0)) wake();
      });
      res.on("error", () => {});
      const out: Record<string, string | undefined> = {};
      for (const [key, value] of Object.entries(res.headers)) {
        out[key] = Array.isArray(value) ? value.join(", ") : value;
      }
      resolve({
        status: res.statusCode ?? 0,
        headers: out,
        async next(predicate = () => true) {
          const deadline = Date.now() + 5_000;
          for (;;) {
            const index = queue.findIndex(predicate);
            if (index !== -1) return queue.splice(0, index + 1).at(-1) as LiveEvent;
            if (Date.now() > deadline)
              throw new Error(`no matching event; got ${JSON.stringify(queue)}`);
            await new Promise<void>((wake) => {
              waiting.push(wake);
              setTimeout(wake, 100);
            });
          }
        },
        close: () => req.destroy(),
      });
    });
    req.on("error", (error) => {
      if (!req.destroyed) reject(error);
    });
    req.end();
  });
}

async function until(condition: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!condition() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
}
