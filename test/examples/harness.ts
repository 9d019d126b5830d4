/**
 * Shared parts of the example tests: a real `svc build` of the store's components, each
 * framework's app started in-process on an ephemeral port over a fresh data directory, and
 * direct reads of the SQLite file (to see what a request really wrote).
 */
import { execFile } from "node:child_process";
import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import type { Manifest } from "@svc/server";
import {
  COMPONENT_PREFIX,
  COMPONENTS_DIR,
  DATABASE_FILE,
  openStore,
  resolveStoreConfig,
  type Store,
} from "@svc-examples/store";
import { FRAMEWORKS, type Framework, loadApp } from "../../examples/run.ts";
import { encodePng } from "../png.ts";

export { FRAMEWORKS, type Framework };
export const MODES = ["development", "production"] as const;
export type Mode = (typeof MODES)[number];

const SVC = fileURLToPath(new URL("../../packages/server/src/cli/svc.ts", import.meta.url));

export async function tempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), prefix));
}

export async function removeDir(dir: string | undefined): Promise<void> {
  if (dir !== undefined) await rm(dir, { recursive: true, force: true });
}

/** `svc build` of the store's components, through the real command line, into `outDir`. */
export async function buildStore(outDir: string): Promise<Manifest> {
  await promisify(execFile)(process.execPath, [
    SVC,
    "build",
    "--output",
    outDir,
    "--components-dir",
    COMPONENTS_DIR,
    "--prefix",
    COMPONENT_PREFIX,
  ]);
  return JSON.parse(await readFile(join(outDir, "manifest.json"), "utf8")) as Manifest;
}

export interface ExampleApp {
  readonly framework: Framework;
  readonly mode: Mode;
  readonly url: string;
  readonly store: Store;
  readonly dataDir: string;
  readonly mediaDir: string;
  close(): Promise<void>;
}

/**
 * Starts `framework`'s app as `npm run example` would, on port 0 and over a fresh data
 * directory. Production reads the build directory through `SVC_BUILD_DIR`, as deployments do.
 */
export async function startExample(
  framework: Framework,
  mode: Mode,
  buildDir?: string,
): Promise<ExampleApp> {
  const dataDir = await tempDir(`svc-store-${framework}-`);
  const config = resolveStoreConfig({
    production: mode === "production",
    dataDir,
    env: mode === "production" ? { SVC_BUILD_DIR: buildDir } : {},
  });
  const store = openStore(config);
  const start = await loadApp(framework);
  const app = await start(store, { port: 0, quiet: true });
  return {
    framework,
    mode,
    url: app.url,
    store,
    dataDir,
    mediaDir: join(dataDir, "media", "products"),
    async close() {
      await app.close();
      store.close();
      await removeDir(dataDir);
    },
  };
}

export interface ProductRow {
  id: number;
  name: string;
  description: string;
  price_cents: number;
  image: string | null;
  created_at: string;
}

/** Reads the database file with a connection of its own, as an outside observer. */
export function readProducts(dataDir: string): ProductRow[] {
  const db = new DatabaseSync(join(dataDir, DATABASE_FILE), { readOnly: true });
  try {
    return db.prepare("SELECT * FROM products ORDER BY id").all() as unknown as ProductRow[];
  } finally {
    db.close();
  }
}

export function readProduct(dataDir: string, id: number): ProductRow | undefined {
  return readProducts(dataDir).find((row) => row.id === id);
}

/** File names in a directory, sorted. */
export async function listFiles(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** A valid PNG of one colour (8-bit RGB), small enough for any test. */
export function makePng(width: number, height: number, [r, g, b]: [number, number, number]) {
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array(width).fill([r, g, b]).flat())]);
  return encodePng(width, height, Array(height).fill(row));
}

/** A 40×30 orange PNG. */
export const PNG = makePng(40, 30, [240, 120, 20]);

export const FIXTURE_NAMES = [
  "Stoneware Mug",
  "Brass Desk Lamp",
  "Linen Notebook",
  "Canvas Backpack",
  "Potted Fern",
  "Wireless Headphones",
];

/** A multipart form, as a browser would post it. */
export function form(fields: Record<string, string | Blob>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) {
    if (value instanceof File) data.append(name, value, value.name);
    else data.append(name, value);
  }
  return data;
}
