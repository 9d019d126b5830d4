import express from "express";
import { afterAll, describe, expect, it } from "vitest";
import { svcExpress } from "../../packages/server/src/transports/express.ts";
import { BODY_LIMIT, propsOfSize } from "./cases.ts";
import { listenNode, type Running } from "./drivers/driver.ts";
import { expressDriver } from "./drivers/express.ts";
import { createFixture } from "./fixture.ts";
import { conformance, expectSvcBodyRule, post, svcErrorKind } from "./suite.ts";
import { silentLogger } from "./svc.ts";

// Latest (express 5) and lowest supported (express4 = express@4.21.0).
conformance(expressDriver("express"));
conformance(expressDriver("express4"));

/**
 * svc reads the island endpoint's body itself; a body parser of the app's that runs first
 * reads it instead (docs/frameworks/express.md, "Request bodies"): what each order gives.
 */
describe("express: the app's body parser and svc's body rule", () => {
  const fx = createFixture();
  const running: Running[] = [];
  afterAll(() => Promise.all(running.map((server) => server.close())));
  const island = "/api/bundles/greeting/html";

  /** An app with `express.json(options)` before or after svc, and a JSON route of its own. */
  async function app(order: "parser first" | "svc first", limit?: string) {
    const app = express();
    const svc = svcExpress(fx.registry(), { logger: silentLogger });
    const parser = express.json(limit === undefined ? {} : { limit });
    if (order === "parser first") app.use(parser).use("/api", svc);
    else app.use("/api", svc).use(parser);
    app.post("/echo", (req, res) => {
      res.json(req.body);
    });
    const server = await listenNode(app);
    running.push(server);
    return server.url;
  }

  it("svc mounted before express.json(): svc's rule (200 KB renders, over 1 MiB is svc's 413)", async () => {
    const base = await app("svc first");
    expect((await post(base, island, propsOfSize(200 * 1024))).status).toBe(200);
    await expectSvcBodyRule(base, island); // and the app's own routes still have their parser
  });

  it("express.json() before svc: what it takes reaches svc parsed; it refuses over its 100 kb default itself", async () => {
    const base = await app("parser first");
    const small = await post(base, island, '{"who":"parsed"}');
    expect(small.status).toBe(200);
    expect(small.body.toString()).toContain("parsed");
    expect((await post(base, island, propsOfSize(100 * 1024))).status).toBe(200);
    // Not JSON: the parser leaves it, svc refuses it.
    const text = await post(base, island, '{"who":"x"}', "text/plain");
    expect(text.status).toBe(415);
    expect(svcErrorKind(text)).toBe("UnsupportedMediaType");
    // Over the parser's limit, and malformed JSON: Express's error handling answers.
    const big = await post(base, island, propsOfSize(200 * 1024));
    expect(big.status).toBe(413);
    expect(big.headers["content-type"]).not.toBe("application/json; charset=utf-8");
    const malformed = await post(base, island, "{oops");
    expect(malformed.status).toBe(400);
    expect(malformed.headers["content-type"]).not.toBe("application/json; charset=utf-8");
  });

  it('express.json({ limit: "1mb" }) before svc: props up to 1 MiB render', async () => {
    const base = await app("parser first", "1mb");
    expect((await post(base, island, propsOfSize(200 * 1024))).status).toBe(200);
    expect((await post(base, island, propsOfSize(BODY_LIMIT))).status).toBe(200);
    expect((await post(base, island, propsOfSize(BODY_LIMIT + 1))).status).toBe(413);
  });
});
