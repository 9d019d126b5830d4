/** `svc serve`'s live-reload endpoint and dev loader over plain HTTP (no browser). */
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
// From source: a bare "@svc/server" resolves to the package's dist/ build under vitest.
import {
  type DevServer,
  type DevServerOptions,
  startDevServer,
} from "../../packages/server/src/index.ts";
import { buildLoaderOnce, QUIET_DEV_SERVER } from "../browser/helpers.ts";

const EXAMPLES = fileURLToPath(
  new URL("../../packages/server/examples/components", import.meta.url),
);

let dir: string;
const servers: DevServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "svc-events-"));
  cpSync(EXAMPLES, dir, { recursive: true });
  await buildLoaderOnce(); // svc serve serves packages/loader/dist
});

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
  rmSync(dir, { recursive: true, force: true });
});

async function serve(options: DevServerOptions = {}) {
  const server = await startDevServer({ ...QUIET_DEV_SERVER, componentsDir: dir, ...options });
  servers.push(server);
  return server;
}

/** Reads the stream until `count` data messages arrived. */
async function readEvents(response: Response, count: number): Promise<unknown[]> {
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  let buffer = "";
  const events: unknown[] = [];
  while (events.length < count) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end = buffer.indexOf("\n\n");
    while (end !== -1) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      for (const line of block.split("\n")) {
        if (line.startsWith("data: ")) events.push(JSON.parse(line.slice(6)));
      }
      end = buffer.indexOf("\n\n");
    }
  }
  await reader.cancel();
  return events;
}

describe("GET /api/events", () => {
  it("streams server-sent events, starting with hello, with the API's CORS answer", async () => {
    const server = await serve();
    const response = await fetch(`${server.url}/api/events`, {
      headers: { origin: "http://localhost:5173" },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/event-stream; charset=utf-8");
    expect(response.headers.get("cache-control")).toBe("no-cache, no-transform");
    expect(response.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    const [hello] = await readEvents(response, 1);
    expect(hello).toEqual({ type: "hello", server: expect.stringMatching(/^[0-9a-f-]{36}$/) });

    const other = await fetch(`${server.url}/api/events`, {
      headers: { origin: "https://evil.example" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();
    await other.body?.cancel();
  });

  it("tells a new connection about a component that does not build, with esbuild's locations", async () => {
    const server = await serve();
    const broken = `${dir}/broken_one`;
    cpSync(join(dir, "counter"), broken, { recursive: true });
    writeFileSync(
      join(broken, "Counter.tsx"),
      "export default function X() {\n  const x = ;\n  return x;\n}\n",
    );
    expect((await fetch(`${server.url}/api/bundles/broken_one.js`)).status).toBe(500);
    const response = await fetch(`${server.url}/api/events`);
    const [, error] = await readEvents(response, 2);
    expect(error).toMatchObject({
      type: "error",
      name: "broken_one",
      error: "BundleError",
      locations: [{ file: "Counter.tsx", line: 2, column: 12, lineText: "  const x = ;" }],
    });
    rmSync(broken, { recursive: true, force: true });
  });

  it("is absent with live: false: 204 No Content, which tells an EventSource to stop", async () => {
    const server = await serve({ live: false });
    expect(server.live).toBeUndefined();
    const response = await fetch(`${server.url}/api/events`);
    expect(response.status).toBe(204);
    expect(await response.text()).toBe("");
  });
});

describe("GET /svc/loader.dev.js", () => {
  it("serves the readable development loader beside loader.js", async () => {
    const server = await serve();
    const [dev, prod] = await Promise.all([
      fetch(`${server.url}/svc/loader.dev.js`),
      fetch(`${server.url}/svc/loader.js`),
    ]);
    expect(dev.status).toBe(200);
    expect(dev.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    const [devCode, prodCode] = await Promise.all([dev.text(), prod.text()]);
    // Readable, not minified: many more lines than the production build.
    expect(devCode.split("\n").length).toBeGreaterThan(prodCode.split("\n").length * 100);
  });
});

describe("GET /svc/islands.js", () => {
  it("serves the islands start beside loader.js, which it fetches from beside itself", async () => {
    const server = await serve();
    const [own, api] = await Promise.all([
      fetch(`${server.url}/svc/islands.js`),
      fetch(`${server.url}/api/islands.js`),
    ]);
    expect(own.status).toBe(200);
    expect(own.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    const [code, apiCode] = await Promise.all([own.text(), api.text()]);
    expect(code).toBe(apiCode);
    expect(code).toContain('"loader.js"');
  });
});
