/**
 * Load (issue 8): warm bundle requests at high concurrency for 30 s, through svc's node
 * handler and through the Fastify bridge, each against a bare node:http server sending the
 * same bytes, measured in the same run. Each server runs in a process of its own; autocannon
 * runs in this one, on the same machine. Any error, timeout or non-2xx answer fails the
 * benchmark. `npm run bench -- load` (`SVC_LOAD_SECONDS`, `SVC_LOAD_CONNECTIONS` to change).
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import autocannon from "autocannon";
import { type Row, type ServerProcess, startServerProcess, writeTypicalComponent } from "./lib.ts";

type Mode = "bare" | "node" | "fastify";

interface Measured {
  p50: number;
  p99: number;
  max: number;
  requestsPerSecond: number;
  requests: number;
}

function startServer(mode: Mode, root: string): Promise<ServerProcess> {
  return startServerProcess("load.ts", [mode, root, "card"]);
}

async function measure(url: string, connections: number, seconds: number): Promise<Measured> {
  const result = await autocannon({ url, connections, duration: seconds, pipelining: 1 });
  const problems = result.errors + result.timeouts + result.non2xx;
  if (problems > 0) {
    throw new Error(
      `load: ${url} saw ${result.errors} errors, ${result.timeouts} timeouts, ${result.non2xx} non-2xx answers`,
    );
  }
  return {
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    requestsPerSecond: result.requests.average,
    requests: result.requests.total,
  };
}

async function run(mode: Mode, root: string, connections: number, seconds: number) {
  const server = await startServer(mode, root);
  try {
    const url = `http://127.0.0.1:${server.port}${mode === "bare" ? "/card.js" : "/api/bundles/card.js"}`;
    await measure(url, connections, 2); // warm-up: connections, JIT
    return await measure(url, connections, seconds);
  } finally {
    await server.stop();
  }
}

export async function benchLoad(
  options: { seconds?: number; connections?: number } = {},
): Promise<Row[]> {
  const seconds = options.seconds ?? Number(process.env.SVC_LOAD_SECONDS ?? 30);
  const connections = options.connections ?? Number(process.env.SVC_LOAD_CONNECTIONS ?? 256);
  const root = mkdtempSync(join(tmpdir(), "svc-load-"));
  try {
    writeTypicalComponent(root);
    const bare = await run("bare", root, connections, seconds);
    const rows: Row[] = [];
    for (const [mode, label] of [
      ["node", "node handler"],
      ["fastify", "Fastify bridge"],
    ] as const) {
      const svc = await run(mode, root, connections, seconds);
      const prefix = `load: ${label}, ${connections} connections, ${seconds} s, warm bundle`;
      rows.push(
        {
          name: `${prefix} — p99 latency (${svc.requests.toLocaleString("en-US")} requests, 0 errors)`,
          value: svc.p99,
          unit: "ms",
          baseline: bare.p99,
          ratio: svc.p99 / bare.p99,
        },
        { name: `${prefix} — p50 latency`, value: svc.p50, unit: "ms", baseline: bare.p50 },
        { name: `${prefix} — max latency`, value: svc.max, unit: "ms", baseline: bare.max },
        {
          name: `${prefix} — requests/s`,
          value: svc.requestsPerSecond,
          unit: "req/s",
          baseline: bare.requestsPerSecond,
          ratio: svc.requestsPerSecond / bare.requestsPerSecond,
        },
      );
    }
    return rows;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
