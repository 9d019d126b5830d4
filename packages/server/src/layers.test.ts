/**
 * The tree shows the layers: each folder of `src/` imports only from its own layer and the
 * ones below it, never up. (Cycles between files are checked by `npm run check:imports`.)
 */
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const src = fileURLToPath(new URL(".", import.meta.url));

/** Bottom to top. The root's `errors.ts` and `logger.ts` sit with `util/` at the bottom. */
export const LAYERS = [
  ".",
  "util",
  "components",
  "types", // `svc types`: declarations from the components' schemas; needs nothing else
  "bundling",
  "served", // reads a finished build; service/ answers from it
  "build", // `svc build`: bundles and publishes what served/ reads
  "ssr",
  "service",
  "http",
  "dev",
  "transports",
  "config", // `svc.config`: its schema and the one resolver behind every command
  "devServer", // `svc serve`'s server: the node transport, the playground, connection bounds
  "scaffold", // `svc init`'s files: what it writes into a project, all or nothing
  "cli", // the command line: flags, printing, exit codes; one file per command
] as const;

function layerOf(file: string): number {
  const rel = relative(src, file);
  if (rel === "index.ts") return LAYERS.length; // the public surface re-exports every layer
  const top = rel.includes("/") ? (rel.split("/")[0] as string) : ".";
  const layer = (LAYERS as readonly string[]).indexOf(top);
  if (layer === -1) throw new Error(`${rel} is in no known layer; add its folder to LAYERS`);
  return layer;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "test" ? [] : sources(path);
    return /\.tsx?$/.test(entry.name) && !entry.name.includes(".test.") ? [path] : [];
  });
}

describe("packages/server/src layers", () => {
  it("imports only from its own layer and those below", () => {
    const upward: string[] = [];
    for (const file of sources(src)) {
      const text = readFileSync(file, "utf8");
      for (const [, specifier] of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        const target = resolve(dirname(file), specifier as string);
        if (layerOf(target) > layerOf(file)) {
          upward.push(`${relative(src, file)} → ${relative(src, target)}`);
        }
      }
    }
    expect(upward).toEqual([]);
  });

  it("puts every folder in a layer", () => {
    const folders = readdirSync(src, { withFileTypes: true })
      .filter((e) => e.isDirectory() && e.name !== "test")
      .map((e) => e.name);
    for (const folder of folders) expect(LAYERS).toContain(folder);
  });
});
