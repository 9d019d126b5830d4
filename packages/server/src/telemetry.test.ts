/**
 * svc's OpenTelemetry spans and metrics, through the SDK's in-memory exporters — as an app
 * that registers an SDK sees them — over real HTTP: a request span per request, with a bundle
 * build and an island render below it; `Server-Timing` on bundle and render answers.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { context, metrics, trace } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import {
  InMemorySpanExporter,
  type ReadableSpan,
  SimpleSpanProcessor,
  TracerProvider,
} from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ComponentRegistry } from "./components/componentRegistry.ts";
import { silentLogger } from "./logger.ts";
import { settleWrites, writeTree } from "./test/fixtures.ts";
import { createNodeHandler } from "./transports/node.ts";

class TestReader extends MetricReader {
  protected override async onForceFlush(): Promise<void> {}
  protected override async onShutdown(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const provider = new TracerProvider({
  spanProcessors: [new SimpleSpanProcessor({ exporter: spans })],
});
const reader = new TestReader();
const contextManager = new AsyncLocalStorageContextManager();
let base = "";
let close = async () => {};

beforeAll(async () => {
  context.setGlobalContextManager(contextManager.enable());
  trace.setGlobalTracerProvider(provider);
  metrics.setGlobalMeterProvider(new MeterProvider({ readers: [reader] }));
  const dir = writeTree({
    "card/index.tsx":
      "export default function Card({ n = 0 }: { n?: number }) {\n  return <p>card {n}</p>;\n}\n",
    "thrower/index.tsx":
      "export default function Thrower(): never {\n  throw new Error('no');\n}\n",
  });
  const handler = createNodeHandler(new ComponentRegistry(dir, { logger: silentLogger }), {
    logger: silentLogger,
    live: false,
  });
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  };
});

afterAll(async () => {
  await close();
  trace.disable();
  metrics.disable();
  context.disable();
});

/** The spans ended so far (the SDK exports them a moment after they end). */
async function named(name: string): Promise<ReadableSpan[]> {
  await provider.forceFlush();
  return spans.getFinishedSpans().filter((span) => span.name === name);
}
const parentOf = (span: ReadableSpan) => span.parentSpanContext?.spanId;

/** Every data point of `metric` collected now, with its attributes. */
async function points(metric: string) {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  return resourceMetrics.scopeMetrics
    .flatMap((scope) => scope.metrics)
    .filter((m) => m.descriptor.name === metric)
    .flatMap((m) => m.dataPoints as { attributes: Record<string, unknown>; value: unknown }[]);
}

describe("OpenTelemetry", () => {
  it("a bundle request: a server span named by its route, the build below it, Server-Timing", async () => {
    settleWrites(); // or the first build is racy, not kept, and the second a miss too
    spans.reset();
    const cold = await fetch(`${base}/bundles/card.js`);
    await cold.arrayBuffer();
    expect(cold.headers.get("server-timing")).toMatch(/^cache;desc=miss, bundle;dur=\d+\.\d$/);
    const warm = await fetch(`${base}/bundles/card.js`);
    await warm.arrayBuffer();
    expect(warm.headers.get("server-timing")).toMatch(/^cache;desc=hit, bundle;dur=\d+\.\d$/);

    const requests = await named("GET /bundles/{name}.js");
    expect(requests).toHaveLength(2);
    const [first] = requests as [ReadableSpan];
    expect(first.kind).toBe(1); // SERVER: nothing of the app's around it here
    expect(first.attributes).toMatchObject({
      "http.request.method": "GET",
      "http.route": "/bundles/{name}.js",
      "url.path": "/bundles/card.js",
      "svc.component": "card",
      "http.response.status_code": 200,
    });
    const builds = await named("svc.bundle");
    expect(builds).toHaveLength(1);
    expect(builds[0]?.attributes).toMatchObject({ "svc.component": "card" });
    expect(builds[0]?.attributes["svc.hash"]).toMatch(/^[0-9a-f]{12}$/);
    expect(parentOf(builds[0] as ReadableSpan)).toBe(first.spanContext().spanId);

    const cache = await points("svc.bundle.requests");
    expect(cache.find((p) => p.attributes["svc.cache"] === "miss")?.value).toBeGreaterThanOrEqual(
      1,
    );
    expect(cache.find((p) => p.attributes["svc.cache"] === "hit")?.value).toBeGreaterThanOrEqual(1);
    const built = await points("svc.bundle.builds");
    expect(built.some((p) => p.attributes["svc.component"] === "card")).toBe(true);
  });

  it("an island render: its span below the request's, with the hash; duration and errors as metrics", async () => {
    spans.reset();
    const answer = await fetch(`${base}/bundles/card/html`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"n":2}',
    });
    expect(answer.status).toBe(200);
    expect(answer.headers.get("server-timing")).toMatch(/^render;dur=\d+\.\d$/);
    const failed = await fetch(`${base}/bundles/thrower/html`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: "{}",
    });
    expect(failed.status).toBe(500);

    const [request] = await named("POST /bundles/{name}/html");
    const renders = await named("svc.render");
    expect(renders).toHaveLength(2);
    const ok = renders.find((span) => span.attributes["svc.component"] === "card") as ReadableSpan;
    expect(ok.attributes).toMatchObject({ "svc.isolation": "worker" });
    expect(ok.attributes["svc.hash"]).toMatch(/^[0-9a-f]{12}$/);
    expect(parentOf(ok)).toBe(request?.spanContext().spanId);
    const bad = renders.find((span) => span.attributes["svc.component"] === "thrower");
    expect(bad?.status.code).toBe(2); // ERROR
    expect(bad?.attributes["error.type"]).toBe("RenderError");
    const failedRequest = (await named("POST /bundles/{name}/html")).find(
      (span) => span.attributes["svc.component"] === "thrower",
    );
    expect(failedRequest?.attributes["http.response.status_code"]).toBe(500);
    expect(failedRequest?.status.code).toBe(2);

    const durations = await points("svc.render.duration");
    expect(
      durations.some(
        (p) => p.attributes["svc.component"] === "card" && p.attributes["svc.outcome"] === "ok",
      ),
    ).toBe(true);
    expect(
      durations.some(
        (p) =>
          p.attributes["svc.component"] === "thrower" &&
          p.attributes["svc.outcome"] === "RenderError",
      ),
    ).toBe(true);
    const errors = await points("svc.errors");
    expect(errors.find((p) => p.attributes["error.type"] === "RenderError")?.value).toBe(1);
    const queue = await points("svc.render.queue");
    expect(queue.length).toBeGreaterThan(0);
  });

  it("the health endpoint: 503 while the render workers start, 200 once they are up", async () => {
    const handler = createNodeHandler(
      new ComponentRegistry(writeTree({}), { logger: silentLogger }),
      { logger: silentLogger, live: false },
    );
    const server = createServer(handler);
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/health`;
    try {
      const starting = await fetch(url);
      expect(starting.status).toBe(503);
      expect(starting.headers.get("retry-after")).toBe("1");
      expect(await starting.json()).toMatchObject({
        status: "unavailable",
        reason: expect.stringMatching(/render workers starting/),
      });
      let ready: Response | undefined;
      for (let i = 0; i < 100 && ready?.status !== 200; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100));
        ready = await fetch(url);
      }
      expect(ready?.status).toBe(200);
      expect(await ready?.json()).toMatchObject({ status: "ready", render: { queued: 0 } });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
