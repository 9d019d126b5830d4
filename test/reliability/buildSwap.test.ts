/**
 * `svc build` over a build that is being served: readers of the real static route (a real
 * `svc serve --build-dir DIR --static` in a child process) read `manifest.json` and then every
 * file it lists, in a loop, while about a hundred builds of changing sources replace the
 * output. Each reader must always find a manifest, and every file that manifest lists, with
 * the bytes its hash names: the old build or the new one, never neither, never half a file.
 */
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync } from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { build } from "../../packages/server/src/build/build.ts";
import { ComponentRegistry } from "../../packages/server/src/components/componentRegistry.ts";
import { silentLogger } from "../../packages/server/src/logger.ts";
import { startSvc, writeTree } from "../../packages/server/src/test/fixtures.ts";

const COMPONENTS = 12;
const BUILDS = 100;
/** Readers of each kind (see {@link readLoop}). */
const READERS = 2;

const root = mkdtempSync(join(tmpdir(), "svc-build-swap-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Component `i` at version `v`: a few kilobytes, so writing a bundle is not instantaneous. */
function source(i: number, v: number): Record<string, string> {
  const filler = `${`c${i}v${v}`.repeat(600)}`;
  return {
    [`c${i}/index.tsx`]: `const text = ${JSON.stringify(filler)};\nexport default function C${i}() {\n  return <p title={text}>c${i} v${v}</p>;\n}\n`,
  };
}

interface Answer {
  status: number;
  body: Buffer;
}

const agent = new Agent({ keepAlive: true, maxSockets: 16 });
afterAll(() => agent.destroy());

function get(url: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    request(url, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks) }));
      res.on("error", reject);
    })
      .on("error", reject)
      .end();
  });
}

interface Tally {
  rounds: number;
  missingManifests: number;
  badManifests: number;
  /** Files a manifest listed that the static route answered with something other than 200. */
  missingFiles: string[];
  /** Files answered 200 whose bytes do not match the hash the manifest gives. */
  corruptFiles: string[];
  manifestsSeen: Set<string>;
  /** Rounds whose files were asked for after another build had replaced their manifest. */
  lateRounds: number;
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** Resolves when the build running now (or the next one) has replaced the output. */
type NextBuild = () => Promise<void>;

/**
 * Reads the manifest, then every file it lists, until `done()`, counting every failure.
 * `"at once"` asks for the files right away, all together, probing the moment a build is
 * swapped in; `"after a build"` first waits until another build has replaced the one it
 * read, as a page does that loads its components a while after the manifest.
 */
async function readLoop(
  staticBase: string,
  pace: "at once" | "after a build",
  nextBuild: NextBuild,
  done: () => boolean,
  tally: Tally,
): Promise<void> {
  while (!done()) {
    tally.rounds++;
    const manifest = await get(`${staticBase}manifest.json`);
    if (manifest.status !== 200) {
      tally.missingManifests++;
      continue;
    }
    let entries: [string, { file: string; hash: string }][];
    try {
      entries = Object.entries(JSON.parse(manifest.body.toString("utf8")));
    } catch {
      tally.badManifests++;
      continue;
    }
    tally.manifestsSeen.add(createHash("sha256").update(manifest.body).digest("hex"));
    if (pace === "after a build") {
      await nextBuild();
      tally.lateRounds++;
    }
    await Promise.all(
      entries.map(async ([, { file, hash }]) => {
        const answer = await get(`${staticBase}${file}`);
        if (answer.status !== 200) {
          tally.missingFiles.push(`${file} (${answer.status})`);
        } else if (!createHash("sha256").update(answer.body).digest("hex").startsWith(hash)) {
          tally.corruptFiles.push(file);
        }
      }),
    );
  }
}

describe("svc build swapped under a serving svc", () => {
  it("never lets a reader of the static route miss the manifest or a file it lists", async () => {
    const sources = join(root, "components");
    for (let i = 0; i < COMPONENTS; i++) writeTree(source(i, 0), sources);
    const outDir = join(root, "out");
    const registry = new ComponentRegistry(sources, { logger: silentLogger });
    await build({ registry, outDir });

    // Two servers of the same directory: one for each kind of reader, so that a late reader
    // never finds a file in memory because an eager one asked for it first.
    const serve = async () => {
      const svc = startSvc([
        "serve",
        ...["--components-dir", sources, "--build-dir", outDir, "--static", "--no-live"],
        ...["--host", "127.0.0.1", "--port", "0"],
      ]);
      const [, base] = await svc.waitFor(/api: +(http:\/\/\S+)\/api\/bundles/);
      return `${base}/static/svc/`;
    };
    const [eagerBase, lateBase] = await Promise.all([serve(), serve()]);

    const tally: Tally = {
      rounds: 0,
      missingManifests: 0,
      badManifests: 0,
      missingFiles: [],
      corruptFiles: [],
      manifestsSeen: new Set(),
      lateRounds: 0,
    };
    let building = true;
    let built = deferred();
    const nextBuild = () => built.promise;
    const done = () => !building;
    const readers = Array.from({ length: READERS }).flatMap(() => [
      readLoop(eagerBase, "at once", nextBuild, done, tally),
      readLoop(lateBase, "after a build", nextBuild, done, tally),
    ]);
    try {
      for (let b = 1; b <= BUILDS; b++) {
        // Every component changes: each file a manifest lists is new with it, so no server
        // can hold it in memory from an earlier round.
        for (let i = 0; i < COMPONENTS; i++) writeTree(source(i, b), sources);
        await build({ registry, outDir });
        built.resolve();
        built = deferred();
        // Let the readers in between builds too, not only while esbuild works.
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    } finally {
      building = false;
      built.resolve();
      await Promise.all(readers);
    }

    const summary = {
      rounds: tally.rounds,
      lateRounds: tally.lateRounds,
      manifests: tally.manifestsSeen.size,
      missingManifests: tally.missingManifests,
      badManifests: tally.badManifests,
      missingFiles: tally.missingFiles.length,
      corruptFiles: tally.corruptFiles.length,
    };
    console.info(`build swap readers: ${JSON.stringify(summary)}`);
    // The loop must have raced the builds: many rounds, many different manifests read.
    expect(tally.rounds).toBeGreaterThan(BUILDS);
    expect(tally.lateRounds).toBeGreaterThan(BUILDS / 2);
    expect(tally.manifestsSeen.size).toBeGreaterThan(BUILDS / 4);
    expect(summary, `first missing: ${tally.missingFiles.slice(0, 5).join(", ")}`).toMatchObject({
      missingManifests: 0,
      badManifests: 0,
      missingFiles: 0,
      corruptFiles: 0,
    });
  }, 60_000);
});
