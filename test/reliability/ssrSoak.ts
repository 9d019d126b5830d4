/**
 * The islands soak: a rendered component edited over and over (1,000 times by default), with
 * render, bundle and metadata requests in between, against the node handler in a server
 * process of its own (`soakServer.ts`).
 *
 * Every version carries a block of text of its own (64 KiB), so a server that kept old
 * versions would grow by far more than the bounds (an `import()` of a new URL per version
 * leaks so, and so does V8's compilation cache unless it is bypassed: see `serverModule.ts`).
 * Islands render in the server's thread (the default), so the heap sampled holds them.
 * After each edit the island must be the new version (its nested component's too, edited
 * every fifth time), and name the hash of the bundle the endpoint serves.
 *
 * Memory is sampled along the way: the server thread's heap after a full GC (it must stay
 * within the dev caches' bound plus an allowance after a warm-up), and the process's RSS,
 * which would hold a render worker too (`renderIsolation: "worker"`): it must not creep from
 * the first half of the run to the second.
 *
 * Short form: `ssrSoak.test.ts` (part of `npm test`). Long form: `npm run soak:ssr [-- edits]`.
 */
import { randomBytes } from "node:crypto";
import { mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { contentHash } from "../conformance/svc.ts";
import { mb, startServer } from "./soak.ts";
import type { MemoryReport } from "./soakServer.ts";

export interface SsrSoakOptions {
  /** Edits of the rendered component. Default 1000. */
  edits?: number;
  /** The server's dev-cache bound (each of the browser and server caches). Default 4 MiB. */
  cacheMaxBytes?: number;
  log?: (line: string) => void;
}

export interface SsrSoakReport {
  edits: number;
  seconds: number;
  requests: number;
  /** Answers that contradict the files (stale HTML, a wrong hash); must be empty. */
  failures: string[];
  serverErrors: string[];
  /**
   * After the warm-up, then every twentieth of the run: the server thread's heapUsed +
   * external after a full GC, and the process's RSS (the render worker's memory included).
   */
  retained: { afterEdits: number; bytes: number; rss: number }[];
  rssPeak: number;
  /** The growth allowed after the warm-up: both caches' bound plus the allowance. */
  bound: number;
  /** What every version's server bundle takes: what keeping them all would cost at least. */
  allVersionsBytes: number;
}

/** On top of the caches' bound: V8's own caches, the HTTP agent, fragmentation. */
const ALLOWANCE = 16 * 1024 * 1024;
const WARM_UP = 20;
const BLOCK_BYTES = 64 * 1024;

export async function runSsrSoak(options: SsrSoakOptions = {}): Promise<SsrSoakReport> {
  const edits = options.edits ?? 1000;
  const cacheMaxBytes = options.cacheMaxBytes ?? 4 * 1024 * 1024;
  const log = options.log ?? (() => {});
  const root = mkdtempSync(join(tmpdir(), "svc-ssr-soak-"));
  const dir = join(root, "components");
  const failures: string[] = [];
  let requests = 0;
  let allVersionsBytes = 0;

  /** Writes `file` whole, in one rename: a request never sees half of it. */
  const atomic = (file: string, text: string) => {
    const temporary = join(root, `.${randomBytes(4).toString("hex")}`);
    writeFileSync(temporary, text);
    renameSync(temporary, file);
  };
  const writeCard = (version: number) => {
    const block = randomBytes(BLOCK_BYTES / 2).toString("hex");
    atomic(
      join(dir, "card/index.tsx"),
      `import { useState } from "react";
import { useComponent } from "@svc/react";
const BLOCK = "${block}";
export default function Card({ n = 0 }: { n?: number }) {
  const [count] = useState(n);
  const Price = useComponent<{ amount: number }>("price");
  return <article data-block={BLOCK.length}>card v${version}: {count} <Price amount={count} /></article>;
}
`,
    );
  };
  const writePrice = (version: number) =>
    atomic(
      join(dir, "price/index.tsx"),
      `export default function Price({ amount }: { amount: number }) {\n  return <b>price w${version}: {amount}</b>;\n}\n`,
    );

  for (const name of ["card", "price"]) mkdirSync(join(dir, name), { recursive: true });
  writeCard(0);
  writePrice(0);

  const server = await startServer(dir, cacheMaxBytes);
  const agent = new Agent({ keepAlive: true, maxSockets: 4 });
  const call = (method: string, path: string, body?: string) => {
    requests++;
    return send(agent, server.port, method, path, body);
  };
  const retained: SsrSoakReport["retained"] = [];
  const sample = async (afterEdits: number) => {
    const m: MemoryReport = await server.memory();
    retained.push({ afterEdits, bytes: m.heapUsed + m.external, rss: m.rss });
    log(`after ${afterEdits} edits: retained ${mb(m.heapUsed + m.external)}, RSS ${mb(m.rss)}`);
    return m;
  };
  const started = Date.now();
  try {
    let price = 0;
    for (let edit = 1; edit <= edits; edit++) {
      writeCard(edit);
      if (edit % 5 === 0) writePrice(++price);
      const island = await call("POST", "/api/bundles/card/html?hydrate=visible", `{"n":${edit}}`);
      // React separates adjacent text with `<!-- -->`: read the text without them.
      const html = island.body.toString().replaceAll("<!-- -->", "");
      const where = `edit ${edit}`;
      if (island.status !== 200) {
        failures.push(`${where}: render answered ${island.status}: ${html.slice(0, 200)}`);
        continue;
      }
      if (!html.includes(`card v${edit}: ${edit}`)) failures.push(`${where}: stale card`);
      if (!html.includes(`price w${price}: ${edit}`)) failures.push(`${where}: stale price`);
      // The bundle the island names is the one the endpoint serves, metadata agreeing.
      const [bundle, metadata] = await Promise.all([
        call("GET", "/api/bundles/card.js"),
        call("GET", "/api/bundles/card/metadata"),
      ]);
      const hash = /data-svc-hash="([0-9a-f]+)"/.exec(html)?.[1];
      if (hash !== contentHash(bundle.body)) failures.push(`${where}: island hash ${hash} stale`);
      if ((JSON.parse(metadata.body.toString()) as { hash?: string }).hash !== hash) {
        failures.push(`${where}: metadata hash disagrees with the island`);
      }
      allVersionsBytes += bundle.body.length;
      if (edit === WARM_UP || (edit > WARM_UP && edit % Math.ceil(edits / 20) === 0)) {
        await sample(edit);
      }
    }
    const end = await sample(edits);
    return {
      edits,
      seconds: (Date.now() - started) / 1000,
      requests,
      failures,
      serverErrors: end.logged,
      retained,
      rssPeak: end.peakRss,
      bound: 2 * cacheMaxBytes + ALLOWANCE,
      allVersionsBytes,
    };
  } finally {
    agent.destroy();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** How much RSS may rise from the run's first half to its second. */
export const RSS_CREEP_ALLOWANCE = 64 * 1024 * 1024;

/** The highest RSS of the second half of the run over the highest of the first. */
export function rssCreep(report: SsrSoakReport): number {
  const half = report.edits / 2;
  const samples = report.retained.slice(1); // not the warm-up's
  const first = samples.filter((s) => s.afterEdits <= half).map((s) => s.rss);
  const second = samples.filter((s) => s.afterEdits > half).map((s) => s.rss);
  if (first.length === 0 || second.length === 0) return 0;
  return Math.max(...second) - Math.max(...first);
}

/** The growth after the warm-up, at its largest. */
export function ssrGrowth(report: SsrSoakReport): number {
  const [first, ...rest] = report.retained;
  if (first === undefined) return 0;
  return Math.max(0, ...rest.map((r) => r.bytes - first.bytes));
}

export function formatSsrSoakReport(report: SsrSoakReport): string {
  return [
    `ssr soak: ${report.edits} edits, ${report.requests} requests in ${report.seconds.toFixed(1)} s`,
    `retained after GC: ${report.retained.map((r) => `${r.afterEdits}: ${mb(r.bytes)}`).join(", ")}`,
    `RSS: ${report.retained.map((r) => `${r.afterEdits}: ${mb(r.rss)}`).join(", ")} (second half over first: ${mb(rssCreep(report))}, allowed ${mb(RSS_CREEP_ALLOWANCE)})`,
    `growth after warm-up ${mb(ssrGrowth(report))} (bound ${mb(report.bound)}; every version's bundle ${mb(report.allVersionsBytes)}); RSS peak ${mb(report.rssPeak)}`,
    `failures: ${report.failures.length}, server errors: ${report.serverErrors.length}`,
    ...report.failures.slice(0, 10).map((f) => `  ${f}`),
    ...report.serverErrors.slice(0, 5).map((e) => `  server: ${e}`),
  ].join("\n");
}

interface Answer {
  status: number;
  body: Buffer;
}

function send(
  agent: Agent,
  port: number,
  method: string,
  path: string,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(
      {
        host: "127.0.0.1",
        port,
        path,
        method,
        agent,
        headers: body === undefined ? {} : { "content-type": "application/json" },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (chunk: Buffer) => chunks.push(chunk));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

// `npm run soak:ssr [-- edits]`: the long form.
if (import.meta.main) {
  const report = await runSsrSoak({
    edits: Number(process.argv[2] ?? 1000),
    log: (line) => console.error(line),
  });
  console.log(formatSsrSoakReport(report));
  const ok =
    report.failures.length === 0 &&
    report.serverErrors.length === 0 &&
    ssrGrowth(report) <= report.bound &&
    rssCreep(report) <= RSS_CREEP_ALLOWANCE;
  console.log(ok ? "ssr soak: passed" : "ssr soak: FAILED");
  process.exit(ok ? 0 : 1);
}
