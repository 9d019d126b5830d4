/**
 * No component can take the server down: islands render in the default render pool while a
 * component loops for ever, allocates without bound, or waits on a promise that never settles
 * — an innocent component keeps rendering beside it, and the server keeps answering. Past its
 * queue, the pool answers 503 instead of letting latency grow.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it, onTestFinished } from "vitest";
import { ComponentRegistry } from "../../packages/server/src/components/componentRegistry.ts";
import {
  type DevServer,
  startDevServer,
} from "../../packages/server/src/devServer/startDevServer.ts";
import { silentLogger } from "../../packages/server/src/logger.ts";
import { writeTree } from "../../packages/server/src/test/fixtures.ts";
import { createNodeHandler } from "../../packages/server/src/transports/node.ts";

const COMPONENTS = {
  "innocent/index.tsx": `export default function Innocent({ n = 0 }: { n?: number }) {
  return <p className="innocent">innocent {n}</p>;
}
`,
  "looper/index.tsx": `export default function Looper({ n = 1 }: { n?: number }) {
  let i = 0;
  while (n > 0) i++;
  return <p>{i}</p>;
}
`,
  "hog/index.tsx": `export default function Hog() {
  const kept: number[][] = [];
  for (;;) kept.push(new Array(100_000).fill(kept.length));
}
`,
  "waiter/index.tsx": `import { use } from "react";
const never = new Promise<string>(() => {});
export default function Waiter() {
  return <p>{use(never)}</p>;
}
`,
  // About 20 ms of work a render.
  "heavy/index.tsx": `export default function Heavy({ seed = 1 }: { seed?: number }) {
  let x = seed;
  const end = performance.now() + 20;
  while (performance.now() < end) x = (x * 48271) % 2147483647;
  return <p>heavy {x > 0 ? "ok" : "?"}</p>;
}
`,
};

const LIMIT_MS = 1000;

let server: DevServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

async function start(options: Parameters<typeof startDevServer>[0] = {}): Promise<DevServer> {
  server = await startDevServer({
    componentsDir: writeTree(COMPONENTS),
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger,
    logRequests: false,
    live: false,
    renderTimeoutMs: LIMIT_MS,
    ...options,
  });
  return server;
}

async function render(base: string, name: string, props: unknown = {}) {
  const started = performance.now();
  const response = await fetch(`${base}/api/bundles/${name}/html`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(props),
  });
  const text = await response.text();
  return {
    status: response.status,
    text,
    ms: performance.now() - started,
    headers: response.headers,
  };
}

/**
 * Renders "innocent" every 200 ms and asks for the listing every 25 ms while `work` runs;
 * returns what `work` gave, the innocent renders' statuses and the slowest listing.
 */
async function beside<T>(base: string, work: () => Promise<T>) {
  let done = false;
  const innocents: Promise<{ status: number; text: string }>[] = [];
  const listings: number[] = [];
  const innocentLoop = (async () => {
    for (let n = 0; !done; n++) {
      innocents.push(render(base, "innocent", { n }));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  })();
  const listingLoop = (async () => {
    while (!done) {
      const started = performance.now();
      const response = await fetch(`${base}/api/bundles`);
      await response.arrayBuffer();
      expect(response.status).toBe(200);
      listings.push(performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
  })();
  try {
    return { result: await work(), innocents: await Promise.all(innocents), listings };
  } finally {
    done = true;
    await Promise.all([innocentLoop, listingLoop]);
  }
}

describe("the render pool (the default) against a component that", () => {
  it.each([
    ["loops for ever", "looper", "RenderTimeout", /did not finish rendering on the server/],
    ["allocates without bound", "hog", "RenderError", /out of memory/],
    ["waits on a promise that never settles", "waiter", "RenderTimeout", /did not finish/],
  ])(
    "%s: fails alone, in time; the server and an innocent component carry on",
    async (_what, name, kind, message) => {
      const { url } = await start({ renderMemoryMb: 64 });
      // Warm: the workers are up and the innocent component is built.
      expect((await render(url, "innocent")).status).toBe(200);
      const { result, innocents, listings } = await beside(url, async () => {
        const started = performance.now();
        await new Promise((resolve) => setTimeout(resolve, 100));
        const answers = [await render(url, name)];
        // Long enough for a few innocent renders after it, too.
        await new Promise((resolve) => setTimeout(resolve, 1500 - (performance.now() - started)));
        return answers;
      });
      for (const answer of result) {
        expect(answer.status).toBe(500);
        const body = JSON.parse(answer.text) as { error: string; message: string; name: string };
        expect(body).toMatchObject({ error: kind, name });
        expect(body.message).toMatch(message);
        // Within the limit plus one second (an allocation fails as soon as the heap is full).
        expect(answer.ms).toBeLessThan(LIMIT_MS + 1000);
      }
      expect(innocents.length).toBeGreaterThanOrEqual(4);
      for (const innocent of innocents) {
        expect(innocent.status).toBe(200);
        expect(innocent.text).toMatch(/innocent (<!-- -->)?\d+/);
      }
      expect(Math.max(...listings)).toBeLessThan(100);
      // The pool is whole again: both workers render.
      const after = await Promise.all(
        Array.from({ length: 4 }, (_, n) => render(url, "innocent", { n })),
      );
      expect(after.map((a) => a.status)).toEqual([200, 200, 200, 200]);
    },
  );

  it("past its queue, answers 503 Overloaded with Retry-After, and is whole again after", async () => {
    // Through a bridge: `svc serve` would refuse this many connections from one address first.
    const handler = createNodeHandler(new ComponentRegistry(writeTree(COMPONENTS)), {
      prefix: "/api",
      logger: silentLogger,
      live: false,
      renderQueue: 20,
    });
    const http = createServer(handler);
    await new Promise<void>((resolve) => http.listen(0, "127.0.0.1", resolve));
    onTestFinished(async () => {
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    });
    const url = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
    expect((await render(url, "heavy")).status).toBe(200);
    const before = process.memoryUsage().rss;
    const answers = await Promise.all(
      Array.from({ length: 200 }, (_, seed) => render(url, "heavy", { seed: seed + 1 })),
    );
    const statuses = answers.map((a) => a.status);
    const refused = answers.filter((a) => a.status === 503);
    // The workers hold some each, 20 may wait, the rest are refused at once (how many of each
    // depends on how fast the requests arrive).
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThan(20);
    expect(refused.length).toBeGreaterThan(0);
    expect(statuses.every((s) => s === 200 || s === 503)).toBe(true);
    for (const answer of refused) {
      expect(answer.headers.get("retry-after")).toBe("1");
      expect(JSON.parse(answer.text)).toMatchObject({ error: "Overloaded" });
    }
    // Nothing kept: memory back near where it was.
    expect(process.memoryUsage().rss - before).toBeLessThan(150 * 1024 * 1024);
    expect((await render(url, "heavy", { seed: 7 })).status).toBe(200);
  });
});
