/** The transport-free request handler: which answers come synchronously, and that they agree. */
import { describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { countingBundler, settleWrites, typicalComponent, writeTree } from "../test/fixtures.ts";
import { createRequestHandler, type SvcRequest, type SvcResponse } from "./requestHandler.ts";

function get(url: string, headers: Record<string, string> = {}): SvcRequest {
  return { method: "GET", url, header: (name) => headers[name] };
}

function setup() {
  const dir = writeTree({ ...typicalComponent("card"), ...typicalComponent("ui/button") });
  settleWrites();
  const bundler = countingBundler();
  const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
    bundler,
    logger: silentLogger,
  });
  return { handle: createRequestHandler(handlers), bundler };
}

/** A cold bundle is cached once its record is taken, just after its answer went out. */
const afterRecord = () => new Promise((resolve) => setImmediate(resolve));

/** `response` without its `Server-Timing`, which says what each answer cost. */
function untimed(response: SvcResponse): SvcResponse {
  const { "server-timing": _timing, ...headers } = response.headers;
  return { ...response, headers };
}

describe("createRequestHandler", () => {
  it("answers a warm bundle synchronously, with what the cold request answered", async () => {
    const { handle, bundler } = setup();
    const cold = handle(get("/bundles/card.js"));
    expect(cold).toBeInstanceOf(Promise);
    const first = await cold;
    await afterRecord();
    const warm = handle(get("/bundles/card.js"));
    expect(warm).not.toBeInstanceOf(Promise);
    expect(untimed(warm as SvcResponse)).toEqual(untimed(first));
    expect((warm as SvcResponse).headers["x-content-type-options"]).toBe("nosniff");
    // What each cost, as browsers show it: built for the first, from the cache for the second.
    expect(first.headers["server-timing"]).toMatch(/^cache;desc=miss, bundle;dur=\d+\.\d$/);
    expect((warm as SvcResponse).headers["server-timing"]).toMatch(/^cache;desc=hit, /);
    expect(bundler.builds).toBe(1);
  });

  it("answers warm bundles read from a socket together, at the end of the turn that read them", async () => {
    const { handle } = setup();
    const first = await handle(get("/bundles/card.js"));
    await afterRecord();
    const order: string[] = [];
    // Asked in one turn, as a poll phase reads them; an immediate queued before them runs first.
    setImmediate(() => order.push("earlier immediate"));
    const fromSocket = { ...get("/bundles/card.js"), readFromSocket: true };
    const answers = [handle(fromSocket), handle(fromSocket)];
    for (const answer of answers) {
      expect(answer).toBeInstanceOf(Promise);
      void Promise.resolve(answer).then(() => order.push("answer"));
    }
    await Promise.resolve();
    await Promise.resolve();
    expect(order).toEqual([]); // not after a microtask: after the poll phase
    expect((await Promise.all(answers)).map(untimed)).toEqual([untimed(first), untimed(first)]);
    expect(order).toEqual(["earlier immediate", "answer", "answer"]);
  });

  it("answers a warm bundle's 304 and a percent-encoded name synchronously too", async () => {
    const { handle } = setup();
    const { headers } = await handle(get("/bundles/ui.button.js"));
    await afterRecord();
    const notModified = handle(
      get("/bundles/ui%2Ebutton.js", { "if-none-match": `${headers.etag}` }),
    );
    expect(notModified).toMatchObject({ status: 304, body: null });
  });

  it("answers other requests as a promise that never rejects, a malformed name at once", async () => {
    const { handle } = setup();
    for (const url of ["/bundles", "/bundles/card/metadata", "/bundles/nope.js"]) {
      const answer = handle(get(url));
      expect(answer).toBeInstanceOf(Promise);
      await expect(answer).resolves.toHaveProperty("status");
    }
    expect((await handle(get("/bundles/nope.js"))).status).toBe(404);
    expect(handle(get("/bundles/%ZZ.js"))).toMatchObject({ status: 422 });
  });

  it("the live-reload stream: a HEAD subscribes to nothing; without a source, 204 for any method", async () => {
    const dir = writeTree(typicalComponent("card"));
    const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
      logger: silentLogger,
    });
    let subscribed = 0;
    const events = {
      serverId: "s",
      current: () => [],
      subscribe: () => {
        subscribed++;
        return () => {};
      },
    };
    const handle = createRequestHandler(handlers, { events });
    const head = await handle({ ...get("/events"), method: "HEAD" });
    expect(head).toMatchObject({ status: 200, body: null });
    expect(head.headers["content-type"]).toBe("text/event-stream; charset=utf-8");
    expect(subscribed).toBe(0);
    const stream = (await handle(get("/events"))).body as ReadableStream<Uint8Array>;
    expect(subscribed).toBe(1);
    await stream.cancel();
    const off = createRequestHandler(handlers);
    for (const method of ["GET", "HEAD"]) {
      expect(await off({ ...get("/events"), method })).toMatchObject({
        status: 204,
        headers: { "cache-control": "no-store" },
        body: null,
      });
    }
  });
});
