/**
 * The conformance suite: the table of `cases.ts`, run unchanged against one transport (a
 * driver), at two mount prefixes, each answer compared with the table and, byte for byte,
 * with what the transport-free core answers for the same request.
 */
import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type Case,
  CORS_ORIGIN,
  type Config,
  conformanceCases,
  type Expected,
  hasDotSegment,
  JSON_TYPE,
} from "./cases.ts";
import type { Driver, Running } from "./drivers/driver.ts";
import { createFixture, type Fixture } from "./fixture.ts";
import {
  type BridgeOptions,
  type Bundler,
  createBridgeHandler,
  createHandlers,
  esbuildBundler,
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
    cors: { origins: [CORS_ORIGIN] },
  };
  if (config === "prebuilt") return { ...base, buildDir: fx.buildDir };
  if (config === "static") return { ...base, buildDir: fx.buildDir, staticMode: true };
  return base;
}

/** Sends `path` byte for byte (no URL normalisation), like a hostile client would. */
export function send(
  base: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const { hostname, port } = new URL(base);
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: hostname,
        port,
        path,
        method: options.method ?? "GET",
        headers: options.headers,
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
    req.on("error", reject);
    req.end();
  });
}

/** The transport-free core's answer to the same request: what every transport must send. */
async function reference(
  handle: ReturnType<typeof createBridgeHandler>,
  method: string,
  path: string,
  headers: Record<string, string>,
): Promise<Answer> {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  const response: SvcResponse = await handle({ method, url: path, header: (name) => lower[name] });
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
    expect(Object.keys(body).every((key) => ["error", "message", "name"].includes(key))).toBe(true);
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
  const headers = { ...c.headers };
  if (c.revalidate) {
    const first = await send(server.url, prefix + c.path, { headers });
    expect(first.status).toBe(200);
    headers["if-none-match"] = first.headers.etag ?? "";
  }
  const answer = await send(server.url, prefix + c.path, { method, headers });
  if (driver.normalisesDotSegments && hasDotSegment(c.path)) {
    if (c.whenNormalised === undefined) return checkNormalisedAway(answer);
    checkExpected(answer, c.whenNormalised.expect);
    checkSameAsCore(answer, await reference(handle, method, c.whenNormalised.path, headers));
    return;
  }
  checkExpected(answer, c.expect);
  checkSameAsCore(answer, await reference(handle, method, c.path, headers));
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
          for (const config of ["dev", "prebuilt", "static"] as const) {
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
}
