/** Shared helpers for `npm run bench`: rows, medians, the printed table. */
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { availableParallelism, cpus, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

export interface Row {
  name: string;
  value: number;
  unit: string;
  /** The same quantity for the baseline measured in the same run. */
  baseline?: number;
  /** value / baseline (or baseline / value for throughput), as the target states it. */
  ratio?: number;
  /** e.g. "≤ 1.3×" */
  target?: string;
  /** Whether the ratio meets the target. */
  ok?: boolean;
  /** A missed target fails `npm run bench` (exit 1), not only the row. */
  gate?: boolean;
}

/**
 * Whether processes can be pinned to CPUs (`taskset`, two or more CPUs): benchmarks that load
 * a server from this machine put the server on CPU 0 and the load on the others, so the two
 * never take turns on one core.
 */
export const pinning = availableParallelism() >= 2 && spawnSync("taskset", ["-V"]).status === 0;

/** Pins this process (all its threads) to `cpus` (`"1-3"`). */
export function pinSelf(cpus: string): void {
  spawnSync("taskset", ["-a", "-p", "-c", cpus, String(process.pid)], { stdio: "ignore" });
}

export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

export async function timeMs(fn: () => Promise<unknown>): Promise<number> {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

export function machine(): string {
  const cpu = cpus();
  return `${cpu[0]?.model ?? "unknown CPU"} × ${cpu.length}, ${(totalmem() / 2 ** 30).toFixed(0)} GiB, Node ${process.version}, ${process.platform}`;
}

function fmt(n: number | undefined, digits = 2): string {
  if (n === undefined) return "";
  return Math.abs(n) >= 1000 ? Math.round(n).toLocaleString("en-US") : n.toFixed(digits);
}

/** A Markdown table, so the output can be pasted into docs/PERFORMANCE.md as is. */
export function table(rows: readonly Row[]): string {
  const lines = [
    "| benchmark | median | unit | baseline | ratio | target | met |",
    "|---|---:|---|---:|---:|---|---|",
  ];
  for (const r of rows) {
    lines.push(
      `| ${r.name} | ${fmt(r.value)} | ${r.unit} | ${fmt(r.baseline)} | ${r.ratio === undefined ? "" : `${r.ratio.toFixed(2)}×`} | ${r.target ?? ""} | ${r.ok === undefined ? "" : r.ok ? "yes" : "NO"} |`,
    );
  }
  return lines.join("\n");
}

/** A benchmark server running in a process of its own. */
export interface ServerProcess {
  port: number;
  stop(): Promise<void>;
}

/**
 * Starts `bench/servers/<script>` with `args` (Node, sources of the workspace packages) and
 * resolves once it prints `PORT=<n>`.
 */
export async function startServerProcess(
  script: string,
  args: readonly string[],
  options: { cpu0?: boolean } = {},
): Promise<ServerProcess> {
  const path = fileURLToPath(new URL(`./servers/${script}`, import.meta.url));
  const command = [process.execPath, "--conditions=source", path, ...args];
  // `cpu0`: on CPU 0 alone, when processes can be pinned.
  if (options.cpu0 === true && pinning) command.unshift("taskset", "-c", "0");
  const child = spawn(command[0] as string, command.slice(1), {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d: Buffer) => {
      out += d;
      const match = /PORT=(\d+)/.exec(out);
      if (match) resolve(Number(match[1]));
    });
    child.on("exit", (code) =>
      reject(new Error(`${script} ${args.join(" ")} exited with ${code}`)),
    );
  });
  return {
    port,
    stop: () =>
      new Promise<void>((resolve) => {
        child.removeAllListeners("exit");
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** A typical three-file component: barrel index, implementation, helper. */
export function writeTypicalComponent(root: string, name = "card"): string {
  const dir = join(root, name);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "index.tsx"), 'export { default } from "./Card";\n');
  writeFileSync(
    join(dir, "Card.tsx"),
    `import { useState } from "react";
import { formatPrice } from "./format";
export interface CardProps { title: string; price: number; tags?: string[] }
export default function Card({ title, price, tags = [] }: CardProps) {
  const [open, setOpen] = useState(false);
  return (
    <article className="card">
      <h3 onClick={() => setOpen(!open)}>{title}</h3>
      <p>{formatPrice(price)}</p>
      {open && <ul>{tags.map((t) => <li key={t}>{t}</li>)}</ul>}
    </article>
  );
}
`,
  );
  writeFileSync(
    join(dir, "format.ts"),
    `const formatter = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });
export function formatPrice(value: number): string {
  return formatter.format(value);
}
`,
  );
  return dir;
}
