/**
 * `npm run bench`: every benchmark, each against a baseline measured in the same run.
 * Prints a Markdown table (paste it into docs/PERFORMANCE.md). Not a test: only a row marked
 * `gate` (the loader's size) fails the run, with exit code 1, when it misses its target.
 * `npm run bench -- core` runs one group (`fastRefresh`, part of `live`, runs only so).
 */
import { existsSync } from "node:fs";
import * as esbuild from "esbuild";
import { benchCore } from "./core.ts";
import { machine, type Row, table } from "./lib.ts";

type Group = () => Promise<Row[]>;

async function optional(module: string, exportName: string): Promise<Group | undefined> {
  const url = new URL(module, import.meta.url);
  if (!existsSync(url)) return undefined;
  const loaded = (await import(url.href)) as Record<string, Group>;
  return loaded[exportName];
}

const groups: Record<string, Group | undefined> = {
  core: () => benchCore(),
  build: await optional("./build.ts", "benchBuild"),
  bridges: await optional("./bridges.ts", "benchBridges"),
  load: await optional("./load.ts", "benchLoad"),
  unknown: await optional("./unknown.ts", "benchUnknownNames"),
  live: await optional("./live.ts", "benchLive"),
  // Part of `live`: run only when named (`npm run bench -- fastRefresh`).
  fastRefresh: await optional("./fastRefresh.ts", "benchFastRefreshAlone"),
  size: await optional("./size.ts", "benchLoaderSize"),
  ssr: await optional("./ssr.ts", "benchSsr"),
  preload: await optional("./preload.ts", "benchPreload"),
};

/** Groups that are part of another, run only when named. */
const partOfAnother = new Set(["fastRefresh"]);

const only = process.argv.slice(2);
const rows: Row[] = [];
console.log(`machine: ${machine()}\n`);
for (const [name, group] of Object.entries(groups)) {
  const wanted = only.length > 0 ? only.includes(name) : !partOfAnother.has(name);
  if (group === undefined || !wanted) continue;
  process.stderr.write(`running ${name}…\n`);
  rows.push(...(await group()));
}
console.log(table(rows));
await esbuild.stop();
const missed = rows.filter((row) => row.gate === true && row.ok === false);
for (const row of missed) console.error(`bench: ${row.name} missed its target (${row.target})`);
if (missed.length > 0) process.exitCode = 1;
