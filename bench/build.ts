/**
 * Benchmarks of `svc build` (issue 3): a build of 500 generated components against one bare
 * `esbuild.build()` pass over the same entry points with the same settings, and the peak
 * memory of each (measured in a child process, so the numbers are the build's alone).
 */
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build, ComponentRegistry, EXTERNALS, fileSafeName, silentLogger } from "@svc/server";
import * as esbuild from "esbuild";
import { median, type Row, timeMs } from "./lib.ts";

const COMPONENTS = 500;
const RUNS = 5;

/**
 * `count` components shaped like real ones: a barrel `index.tsx`, an implementation with
 * state and props, and a helper; every tenth also imports a helper shared by all.
 */
export function writeComponents(root: string, count = COMPONENTS): void {
  mkdirSync(join(root, "shared"), { recursive: true });
  writeFileSync(
    join(root, "shared", "format.ts"),
    'const money = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });\nexport const formatPrice = (value: number): string => money.format(value);\n',
  );
  for (let i = 0; i < count; i++) {
    const dir = join(root, `widget_${i}`);
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, "index.tsx"), `export { default } from "./Widget${i}";\n`);
    const shared = i % 10 === 0;
    writeFileSync(
      join(dir, `Widget${i}.tsx`),
      `import { useState } from "react";
import { label } from "./label";
${shared ? 'import { formatPrice } from "../shared/format";\n' : ""}export interface Widget${i}Props { title?: string; items?: string[]; price?: number }
export default function Widget${i}({ title = "Widget ${i}", items = [], price = ${i} }: Widget${i}Props) {
  const [open, setOpen] = useState(false);
  const [count, setCount] = useState(${i % 7});
  return (
    <section className="widget widget-${i}">
      <h2 onClick={() => setOpen(!open)}>{label(title)}</h2>
      <button type="button" onClick={() => setCount(count + 1)}>clicked {count} times</button>
      <p>{${shared ? "formatPrice(price)" : "price.toFixed(2)"}}</p>
      {open && <ul>{items.map((item) => <li key={item}>{label(item)}</li>)}</ul>}
    </section>
  );
}
`,
    );
    writeFileSync(
      join(dir, "label.ts"),
      `export function label(text: string): string {\n  return text.trim().replace(/\\s+/g, " ") + " #${i}";\n}\n`,
    );
  }
}

/** The same settings `svc build` uses, handed to esbuild directly and written to disk. */
function barePass(root: string, outdir: string): Promise<unknown> {
  const entryPoints = Object.fromEntries(
    Array.from({ length: COMPONENTS }, (_, i) => [
      fileSafeName(`widget_${i}`),
      join(root, `widget_${i}`, "index.tsx"),
    ]),
  );
  return esbuild.build({
    absWorkingDir: root,
    entryPoints,
    outdir,
    bundle: true,
    write: true,
    format: "esm",
    platform: "browser",
    target: "es2020",
    jsx: "automatic",
    external: [...EXTERNALS],
    minify: true,
    charset: "utf8",
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    logLevel: "silent",
  });
}

function svcPass(root: string, outDir: string, compress = false): Promise<unknown> {
  const registry = new ComponentRegistry(root, { logger: silentLogger });
  return build({ registry, outDir, compress });
}

/** Peak resident memory of this process and of esbuild's service process, in bytes. */
function peakMemory(): { node: number; esbuild: number | undefined } {
  const node = process.resourceUsage().maxRSS * 1024;
  let esbuildPeak: number | undefined;
  try {
    // esbuild runs as a child process of Node; Linux reports its high-water mark.
    const children = readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8")
      .trim()
      .split(/\s+/)
      .filter(Boolean);
    for (const pid of children) {
      const status = readFileSync(`/proc/${pid}/status`, "utf8");
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, "utf8");
      const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
      if (cmdline.includes("esbuild") && hwm?.[1]) esbuildPeak = Number(hwm[1]) * 1024;
    }
  } catch {
    // not Linux: only Node's own peak is known
  }
  return { node, esbuild: esbuildPeak };
}

/** Runs one pass in a fresh child process and returns its peak memory. */
function measureInChild(kind: "svc" | "bare", root: string, out: string) {
  return new Promise<{ node: number; esbuild: number | undefined }>((resolve, reject) => {
    const child = spawn(
      process.execPath,
      ["--conditions=source", fileURLToPath(import.meta.url), "--measure", kind, root, out],
      { stdio: ["ignore", "pipe", "inherit"] },
    );
    let stdout = "";
    child.stdout.on("data", (d: Buffer) => {
      stdout += d;
    });
    child.on("error", reject);
    child.on("exit", (code) => {
      if (code !== 0) reject(new Error(`memory measurement (${kind}) exited with ${code}`));
      else resolve(JSON.parse(stdout));
    });
  });
}

const MiB = 2 ** 20;

export async function benchBuild(): Promise<Row[]> {
  const root = mkdtempSync(join(tmpdir(), "svc-bench-build-"));
  try {
    const sources = join(root, "components");
    writeComponents(sources);
    const svcOut = join(root, "svc");
    const compressedOut = join(root, "svc-compressed");
    // Each bare pass writes into a new, empty directory: svc build always creates its files
    // afresh (it builds beside the output and swaps it in), and overwriting files in place
    // costs a fraction of creating them, so that is the like-for-like baseline.
    let fresh = 0;
    const bareOut = () => join(root, `bare-${fresh++}`);
    await barePass(sources, bareOut());
    await svcPass(sources, svcOut);
    const bareTimes: number[] = [];
    const svcTimes: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const out = bareOut();
      bareTimes.push(await timeMs(() => barePass(sources, out)));
      svcTimes.push(await timeMs(() => svcPass(sources, svcOut)));
    }
    const compressTimes: number[] = [];
    for (let i = 0; i < 3; i++) {
      compressTimes.push(await timeMs(() => svcPass(sources, compressedOut, true)));
    }
    const value = median(svcTimes);
    const baseline = median(bareTimes);
    const ratio = value / baseline;

    const svcMemory = await measureInChild("svc", sources, join(root, "svc-memory"));
    const bareMemory = await measureInChild("bare", sources, join(root, "bare-memory"));
    const total = (m: { node: number; esbuild: number | undefined }) => m.node + (m.esbuild ?? 0);
    return [
      {
        name: `svc build, ${COMPONENTS} components, replacing its previous output (vs one bare esbuild.build pass writing the same files into an empty directory)`,
        value,
        unit: "ms",
        baseline,
        ratio,
        target: "≤ 1.5×",
        ok: ratio <= 1.5,
      },
      {
        name: `svc build --compress, ${COMPONENTS} components (.gz + .br; vs the same bare pass)`,
        value: median(compressTimes),
        unit: "ms",
        baseline,
        ratio: median(compressTimes) / baseline,
      },
      {
        name: `svc build peak memory, ${COMPONENTS} components (Node + esbuild service${svcMemory.esbuild === undefined ? " not measured" : ""})`,
        value: total(svcMemory) / MiB,
        unit: "MiB",
        baseline: total(bareMemory) / MiB,
        ratio: total(svcMemory) / total(bareMemory),
      },
      {
        name: "  of which Node (svc build / bare script)",
        value: svcMemory.node / MiB,
        unit: "MiB",
        baseline: bareMemory.node / MiB,
        ratio: svcMemory.node / bareMemory.node,
      },
    ];
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

// Child mode: one pass, then report the peak memory as JSON on stdout.
if (process.argv[2] === "--measure") {
  const [, , , kind, root, out] = process.argv as string[];
  if (kind === "svc") await svcPass(root as string, out as string);
  else await barePass(root as string, out as string);
  process.stdout.write(JSON.stringify(peakMemory()));
  await esbuild.stop();
}
