import Koa from "koa";
import { afterAll, describe, expect, it } from "vitest";
import { svcKoa } from "../../packages/server/src/transports/koa.ts";
import { BODY_LIMIT, propsOfSize } from "./cases.ts";
import { listenNode, type Running } from "./drivers/driver.ts";
import { koaDriver } from "./drivers/koa.ts";
import { createFixture } from "./fixture.ts";
import { conformance, post, svcErrorKind } from "./suite.ts";
import { silentLogger } from "./svc.ts";

// Latest (koa 3) and lowest supported (koa2 = koa@2.15.0).
conformance(koaDriver("koa"));
conformance(koaDriver("koa2"));

/**
 * svc reads the island endpoint's body itself; a body parser of the app's that runs first
 * reads it instead (docs/frameworks/koa.md, "Request bodies"). The parser here does what
 * `@koa/bodyparser` does with JSON: parses it into `ctx.request.body`, refuses it over its
 * limit (100 kb here) with a 413 through Koa's error handling, and leaves other types.
 */
describe("koa: the app's body parser and svc's body rule", () => {
  const fx = createFixture();
  const running: Running[] = [];
  afterAll(() => Promise.all(running.map((server) => server.close())));
  const island = "/api/bundles/greeting/html";

  const jsonParser: Koa.Middleware = async (ctx, next) => {
    if (ctx.is("application/json") !== false && ctx.request.length !== undefined) {
      const chunks: Buffer[] = [];
      for await (const chunk of ctx.req) chunks.push(chunk as Buffer);
      const text = Buffer.concat(chunks).toString();
      if (text.length > 100 * 1024) ctx.throw(413, "request entity too large");
      (ctx.request as { body?: unknown }).body = text === "" ? {} : JSON.parse(text);
    }
    await next();
  };

  async function app(order: "parser first" | "svc first"): Promise<string> {
    const app = new Koa();
    const svc = svcKoa(fx.registry(), { prefix: "/api", logger: silentLogger });
    if (order === "parser first") app.use(jsonParser).use(svc);
    else app.use(svc).use(jsonParser);
    app.use((ctx) => {
      ctx.body = (ctx.request as { body?: unknown }).body ?? null;
    });
    const server = await listenNode(app.callback());
    running.push(server);
    return server.url;
  }

  it("svcKoa mounted before the parser: svc's rule (200 KB renders, over 1 MiB is svc's 413)", async () => {
    const base = await app("svc first");
    expect((await post(base, island, propsOfSize(200 * 1024))).status).toBe(200);
    expect(svcErrorKind(await post(base, island, propsOfSize(BODY_LIMIT + 1)))).toBe(
      "PayloadTooLarge",
    );
    // The app's own routes still have their parser.
    expect(JSON.parse((await post(base, "/echo", '{"a":1}')).body.toString())).toEqual({ a: 1 });
  });

  it("the parser first: what it takes reaches svc parsed; what it refuses it answers itself", async () => {
    const base = await app("parser first");
    const parsed = await post(base, island, '{"who":"parsed"}');
    expect(parsed.status).toBe(200);
    expect(parsed.body.toString()).toContain("parsed");
    expect(svcErrorKind(await post(base, island, "{}", "text/plain"))).toBe("UnsupportedMediaType");
    const big = await post(base, island, propsOfSize(200 * 1024));
    expect(big.status).toBe(413);
    expect(svcErrorKind(big)).not.toBe("PayloadTooLarge");
  });
});
