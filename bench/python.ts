/**
 * The Python client's overhead per island (`clients/python`, `svc_islands`): `Client.render`
 * against a bare `urllib.request` POST of the same props to the same svc, one island at a time,
 * in turn, in one Python process. Needs a `python3` (Debian's /usr/bin/python3 first); skipped
 * with one line without one.
 */
import { execFile, execFileSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { ComponentRegistry, createHandlers, silentLogger } from "@svc/server";
import { median, type Row } from "./lib.ts";
import { serveOnLoopback } from "./ssr.ts";

const CLIENT = fileURLToPath(new URL("../clients/python", import.meta.url));
const ISLANDS = 2000;
const ROUNDS = 5;

const SCRIPT = `
import json, sys, time, urllib.request
from svc_islands import Client
base, n, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
client = Client(base, timeout=10)
def bare(i):
    body = json.dumps({"title": "Card %d" % i, "price": i}).encode()
    req = urllib.request.Request(base + "/bundles/card/html", data=body, headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=10) as answer:
        return answer.read().decode()
def ours(i):
    return client.render("card", {"title": "Card %d" % i, "price": i}, fallback=None)
for f in (bare, ours):
    for i in range(200): f(i)
result = {"bare": [], "client": []}
for r in range(rounds):
    for name, f in (("bare", bare), ("client", ours)) if r % 2 == 0 else (("client", ours), ("bare", bare)):
        start = time.perf_counter()
        for i in range(n): f(i)
        result[name].append((time.perf_counter() - start) / n * 1e6)
print(json.dumps(result))
`;

function python(): string | undefined {
  for (const candidate of ["/usr/bin/python3", "python3"]) {
    try {
      execFileSync(candidate, ["-c", "import json, urllib.request"], { stdio: "ignore" });
      return candidate;
    } catch {
      // the next one
    }
  }
  return undefined;
}

export async function benchPython(): Promise<Row[]> {
  const interpreter = python();
  if (interpreter === undefined || !existsSync(CLIENT)) {
    console.error("python bench skipped: no python3");
    return [];
  }
  const dir = mkdtempSync(join(tmpdir(), "svc-bench-python-"));
  mkdirSync(join(dir, "card"));
  writeFileSync(
    join(dir, "card", "index.tsx"),
    "export default function Card({ title, price }: { title: string; price: number }) {\n  return <article><h3>{title}</h3><p>{price}</p></article>;\n}\n",
  );
  const server = await serveOnLoopback(
    createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), { logger: silentLogger }),
  );
  try {
    // Not synchronously: this process serves the renders the script asks for.
    const { stdout: output } = await promisify(execFile)(
      interpreter,
      ["-c", SCRIPT, `http://127.0.0.1:${server.port}/api`, String(ISLANDS), String(ROUNDS)],
      { env: { ...process.env, PYTHONPATH: CLIENT }, encoding: "utf8" },
    );
    const { bare, client } = JSON.parse(output) as { bare: number[]; client: number[] };
    const ratios = client.map((value, i) => value / (bare[i] as number));
    const ratio = median(ratios);
    return [
      {
        name: `Python client (svc_islands Client.render, kept-alive connections) vs a bare urllib.request POST, one island at a time, ${ISLANDS} each per round, ${ROUNDS} rounds — wall time per island`,
        value: median(client),
        unit: "µs/island",
        baseline: median(bare),
        ratio,
        target: "≤ 1.1×",
        ok: ratio <= 1.1,
      },
    ];
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
