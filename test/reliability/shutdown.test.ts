/**
 * `svc serve` shuts down gracefully: on SIGTERM (or SIGINT) it stops listening, lets the
 * requests in flight finish — renders included, over keep-alive connections — ends event
 * streams with a last `closing` event, and exits 0. No answer is cut off.
 */
import { Agent, request } from "node:http";
import { describe, expect, it } from "vitest";
import { startSvc, writeTree } from "../../packages/server/src/test/fixtures.ts";

const COMPONENTS = {
  // Each render waits 400 ms on its own promise: in flight when the signal comes.
  "slow/index.tsx": `import { use } from "react";
const waits = new Map<number, Promise<string>>();
function wait(n: number) {
  let promise = waits.get(n);
  if (promise === undefined) {
    promise = new Promise((resolve) => setTimeout(() => resolve("done " + n), 400));
    waits.set(n, promise);
  }
  return promise;
}
export default function Slow({ n = 0 }: { n?: number }) {
  return <p>{use(wait(n))}</p>;
}
`,
};

/** POSTs a render over `agent`'s connections: the whole answer, or how the connection failed. */
function render(base: string, agent: Agent, n: number) {
  return new Promise<{ status?: number; body?: string; error?: string }>((resolve) => {
    const body = JSON.stringify({ n });
    const req = request(
      `${base}/api/bundles/slow/html`,
      {
        method: "POST",
        agent,
        headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body) },
      },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          text += chunk;
        });
        res.on("end", () => resolve({ status: res.statusCode, body: text }));
        res.on("error", (error) => resolve({ error: (error as NodeJS.ErrnoException).code }));
      },
    );
    req.on("error", (error) => resolve({ error: (error as NodeJS.ErrnoException).code }));
    req.end(body);
  });
}

describe("svc serve on SIGTERM", () => {
  it("while a component loops: the loop is stopped at its time limit, answered, and svc exits 0", async () => {
    const dir = writeTree({
      ...COMPONENTS,
      "looper/index.tsx":
        "export default function Looper({ n = 1 }: { n?: number }) {\n  let i = 0;\n  while (n > 0) i++;\n  return <p>{i}</p>;\n}\n",
      "svc.config.json": JSON.stringify({ sources: ["."], serve: { renderTimeoutMs: 1000 } }),
    });
    const svc = startSvc(["serve", "--host", "127.0.0.1", "--port", "0"], { cwd: dir });
    const [, port] = (await svc.waitFor(/api:\s+http:\/\/[^:]+:(\d+)\//)) as RegExpMatchArray;
    const base = `http://127.0.0.1:${port}`;
    const agent = new Agent({ keepAlive: true });
    expect((await render(base, agent, -1)).status).toBe(200); // warm: the workers are up
    const looping = new Promise<{ status?: number; body?: string }>((resolve) => {
      const req = request(
        `${base}/api/bundles/looper/html`,
        { method: "POST", agent, headers: { "content-type": "application/json" } },
        (res) => {
          let text = "";
          res.on("data", (chunk: Buffer) => {
            text += chunk;
          });
          res.on("end", () => resolve({ status: res.statusCode, body: text }));
        },
      );
      req.end("{}");
    });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const signalled = performance.now();
    svc.child.kill("SIGTERM");
    const answer = await looping;
    const { code } = await svc.exited;
    agent.destroy();
    expect(code).toBe(0);
    expect(performance.now() - signalled).toBeLessThan(1000 + 2000);
    expect(answer.status).toBe(500);
    expect(JSON.parse(answer.body ?? "")).toMatchObject({ error: "RenderTimeout", name: "looper" });
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "%s with 50 renders in flight: each finishes or gets a complete error; exit code 0",
    async (signal) => {
      const dir = writeTree(COMPONENTS);
      const svc = startSvc([
        "serve",
        "--components-dir",
        dir,
        "--host",
        "127.0.0.1",
        "--port",
        "0",
      ]);
      const [, port] = (await svc.waitFor(/api:\s+http:\/\/[^:]+:(\d+)\//)) as RegExpMatchArray;
      const base = `http://127.0.0.1:${port}`;
      // Keep-alive, a connection each: all 50 are in flight when the signal comes.
      const agent = new Agent({ keepAlive: true, maxSockets: 50 });
      // Warm: the bundle is built and the workers are up.
      expect((await render(base, agent, -1)).status).toBe(200);
      // An event stream, open across the shutdown.
      const events = fetch(`${base}/api/events`).then((response) => response.text());
      const answers = Array.from({ length: 50 }, (_, n) => render(base, agent, n));
      await new Promise((resolve) => setTimeout(resolve, 150));
      svc.child.kill(signal);
      const results = await Promise.all(answers);
      const { code } = await svc.exited;
      agent.destroy();
      expect(code).toBe(0);
      // Every render in flight when the signal came finished, whole.
      for (const [n, result] of results.entries()) {
        expect(result.error).toBeUndefined();
        expect(result.status).toBe(200);
        expect(result.body).toMatch(new RegExp(`<p>done ${n}</p><!--/\\$--></div>$`));
      }
      const stream = await events;
      expect(stream).toContain('"type":"hello"');
      expect(stream.trimEnd().endsWith('data: {"type":"closing"}')).toBe(true);
      expect(svc.output().stdout).toContain(`svc: ${signal}, shutting down`);
    },
  );
});
