/**
 * The soak: thousands of requests across 200 components, interleaved with continuous file
 * edits, breakages and fixes, additions and removals, against the node handler in a server
 * process of its own on 127.0.0.1. Bounded in time; ends by itself.
 *
 * Every answer is checked against what the files were between the moment its request was
 * sent and the moment the answer arrived: a bundle must be one of those versions (so after
 * an edit has settled, the new one, with its new hash), a 404 only for a component absent
 * at some point of that window, a 500 only for one deliberately broken in it. After the
 * last change every component is checked once more. The server's memory after a full GC
 * must stay within the cache bound (plus a fixed allowance); RSS is reported at start, peak
 * and end.
 *
 * Short form: `soak.test.ts` (part of `npm test`). Long form: `npm run soak [-- seconds]`.
 */
import { type ChildProcess, fork } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { Agent, request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MemoryReport } from "./soakServer.ts";

export interface SoakOptions {
  /** How long requests and changes run at least. */
  seconds: number;
  /**
   * Keep going past `seconds` until this many requests were answered (on a busy machine),
   * but never past `maxSeconds`. Default: no minimum.
   */
  minRequests?: number;
  /** Hard end of the run. Default: `seconds`. */
  maxSeconds?: number;
  /** Components at the start. Default 200. */
  components?: number;
  /** The server's dev-cache bound (cacheMaxBytes). Default 2 MiB, a fraction of all bundles. */
  cacheMaxBytes?: number;
  /** Concurrent request loops. Default 12. */
  concurrency?: number;
  /** Pause between file changes. Default 15 ms. */
  changeEveryMs?: number;
  /** Progress lines (default: none). */
  log?: (line: string) => void;
}

export interface SoakReport {
  seconds: number;
  requests: number;
  byStatus: Record<string, number>;
  /**
   * Edits, breakages, fixes, additions and removals of ordinary components; and the changes
   * of how imports resolve: a `label.tsx` created over (or removed from over) `label.ts`, the
   * tsconfig `paths` flipped between two directories, a package's `exports` flipped, and
   * symbolic links re-pointed (a file's, and a whole component directory's).
   */
  changes: Record<ChangeKind, number>;
  /** Answers that contradict the files (with what was expected); must be empty. */
  failures: string[];
  /** 5xx answers for components that were never broken; must be 0. */
  unexpected5xx: number;
  /** Unexpected errors the server logged; must be empty. */
  serverErrors: string[];
  memory: {
    rssStart: number;
    rssPeak: number;
    rssEnd: number;
    /** heapUsed + external after a full GC, before the first request and after the last. */
    retainedStart: number;
    retainedEnd: number;
    cacheMaxBytes: number;
    /** The allowance on top of the cache bound the retained growth must stay within. */
    allowance: number;
  };
  /** Bundle bytes of all components at once: what an unbounded cache would hold. */
  allBundlesBytes: number;
}

type ChangeKind =
  | "edit"
  | "break"
  | "fix"
  | "add"
  | "remove"
  | "shadow"
  | "tsconfig"
  | "packageJson"
  | "relink";

/** How a special component's label is provided (see `resolutionChanges`). */
type Special = "shadow" | "tsconfig" | "package" | "fileLink" | "dirLink";
const SPECIALS: readonly Special[] = ["shadow", "tsconfig", "package", "fileLink", "dirLink"];
/** Components of each special kind. */
const PER_SPECIAL = 4;

/** What a component was at one point of its history. */
interface Epoch {
  exists: boolean;
  broken: boolean;
}

interface Tracked {
  name: string;
  history: Epoch[];
  /** Epoch whose files are in place (after the rename). */
  settled: number;
  /** Newest epoch begun (its files may or may not be in place yet). */
  latest: number;
  /** Bundle hash of each epoch, as first seen. */
  hashes: Map<number, string>;
  /** Last bundle hash seen, for conditional requests. */
  lastHash?: string;
}

const PAYLOAD_BYTES = 40 * 1024;
/** Allowance for everything but cached bundles: registry, sockets, buffers, heap slack. */
const ALLOWANCE = 8 * 1024 * 1024;

export async function runSoak(options: SoakOptions): Promise<SoakReport> {
  const log = options.log ?? (() => {});
  const count = options.components ?? 200;
  const cacheMaxBytes = options.cacheMaxBytes ?? 2 * 1024 * 1024;
  const root = mkdtempSync(join(tmpdir(), "svc-soak-"));
  const dir = join(root, "components");
  const staging = join(dir, ".staging"); // dot-directories are never walked by discovery
  mkdirSync(staging, { recursive: true });

  const tracked = new Map<string, Tracked>();
  const failures: string[] = [];
  const byStatus: Record<string, number> = {};
  const changes: Record<ChangeKind, number> = {
    edit: 0,
    break: 0,
    fix: 0,
    add: 0,
    remove: 0,
    shadow: 0,
    tsconfig: 0,
    packageJson: 0,
    relink: 0,
  };
  let unexpected5xx = 0;
  let requests = 0;

  const fail = (message: string) => {
    if (failures.length < 50) failures.push(message);
    else if (failures.length === 50) failures.push("… (more failures not listed)");
  };

  function componentFiles(name: string, epoch: number, broken: boolean): Record<string, string> {
    // Deterministic per name, distinct per component, incompressible enough to be counted.
    const seed = createHash("sha256").update(name).digest();
    let payload = "";
    while (payload.length < PAYLOAD_BYTES) {
      payload += createHash("sha256").update(seed).update(String(payload.length)).digest("hex");
    }
    return {
      "index.tsx": 'export { default } from "./View";\n',
      "View.tsx":
        'import { label } from "./label";\nimport { data } from "./data";\nexport default () => <p title={data}>{label}</p>;\n',
      "data.ts": `export const data = ${JSON.stringify(payload)};\n`,
      "label.ts": labelFile(name, epoch, broken),
    };
  }
  function labelFile(name: string, epoch: number, broken: boolean): string {
    return broken
      ? `export const label = ;\n// ${name}@${epoch} is broken on purpose\n`
      : `export const label = ${JSON.stringify(`${name}@${epoch}`)};\n`;
  }

  /** Writes a whole component in the staging area and renames it into place (atomic). */
  function placeComponent(name: string, epoch: number): void {
    const temp = join(staging, `${name}-${epoch}-${randomBytes(3).toString("hex")}`);
    mkdirSync(temp);
    for (const [file, text] of Object.entries(componentFiles(name, epoch, false))) {
      writeFileSync(join(temp, file), text);
    }
    renameSync(temp, join(dir, name));
  }

  /** Replaces label.ts atomically (written aside, renamed over), as careful editors save. */
  function writeLabel(name: string, epoch: number, broken: boolean): void {
    const temp = join(staging, `label-${name}-${epoch}`);
    writeFileSync(temp, labelFile(name, epoch, broken));
    renameSync(temp, join(dir, name, "label.ts"));
  }

  function begin(t: Tracked, epoch: Epoch): number {
    t.history.push(epoch);
    t.latest = t.history.length - 1;
    return t.latest;
  }

  // The 200 components, settled before the server starts.
  for (let i = 0; i < count; i++) {
    const name = `c${String(i).padStart(3, "0")}`;
    tracked.set(name, {
      name,
      history: [{ exists: true, broken: false }],
      settled: 0,
      latest: 0,
      hashes: new Map(),
    });
    placeComponent(name, 0);
  }
  // A few are broken from the start (and some of the others get broken and fixed later).
  for (const name of ["c007", "c077", "c177"].filter((n) => tracked.has(n))) {
    const t = tracked.get(name) as Tracked;
    const epoch = begin(t, { exists: true, broken: true });
    writeLabel(name, epoch, true);
    t.settled = epoch;
  }

  // —— components whose label comes through a resolution that the changes below flip ——
  const specials = new Map<Special, Tracked[]>();
  const labelOf = (t: Tracked, epoch: number) => `export const label = "${t.name}@${epoch}";\n`;
  /** Writes `text` to `path` atomically (aside, then renamed over). */
  const atomic = (path: string, text: string) => {
    const temp = join(staging, `w-${randomBytes(4).toString("hex")}`);
    writeFileSync(temp, text);
    renameSync(temp, path);
  };
  /** `ln -sfn target link`: a new link renamed over the old one. */
  const relink = (target: string, link: string) => {
    const temp = join(staging, `l-${randomBytes(4).toString("hex")}`);
    symlinkSync(target, temp);
    renameSync(temp, link);
  };
  /** Which of two directories the tsconfig paths and the package's exports point at now. */
  const side = { tsconfig: "a", package: "a" };
  const writeTsconfig = () =>
    atomic(
      join(root, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: { baseUrl: ".", paths: { "@label/*": [`labels-${side.tsconfig}/*`] } },
      }),
    );
  const writePackage = () =>
    atomic(
      join(root, "node_modules/soak-labels/package.json"),
      JSON.stringify({ name: "soak-labels", exports: { "./*": `./${side.package}/*.js` } }),
    );
  mkdirSync(join(root, "labels-a"));
  mkdirSync(join(root, "labels-b"));
  mkdirSync(join(root, "node_modules/soak-labels/a"), { recursive: true });
  mkdirSync(join(root, "node_modules/soak-labels/b"));
  mkdirSync(join(staging, "versions"));
  writeTsconfig();
  writePackage();
  for (const kind of SPECIALS) {
    const list: Tracked[] = [];
    for (let i = 0; i < PER_SPECIAL; i++) {
      const t: Tracked = {
        name: `${kind.toLowerCase()}${i}`,
        history: [{ exists: true, broken: false }],
        settled: 0,
        latest: 0,
        hashes: new Map(),
      };
      tracked.set(t.name, t);
      list.push(t);
      const home = join(dir, t.name);
      const source = {
        shadow: "./label",
        tsconfig: `@label/${t.name}`,
        package: `soak-labels/${t.name}`,
        fileLink: "./label",
        dirLink: "./label",
      }[kind];
      const view = `import { label } from "${source}";\nexport default () => <p>{label}</p>;\n`;
      if (kind === "dirLink") {
        const version = join(staging, "versions", `${t.name}-0`);
        mkdirSync(version);
        writeFileSync(join(version, "index.tsx"), view.replace("<p>", "<p data-v>"));
        writeFileSync(join(version, "label.ts"), labelOf(t, 0));
        symlinkSync(version, home);
        continue;
      }
      mkdirSync(home);
      writeFileSync(join(home, "index.tsx"), view);
      if (kind === "shadow") writeFileSync(join(home, "label.ts"), labelOf(t, 0));
      if (kind === "tsconfig") writeFileSync(join(root, "labels-a", `${t.name}.ts`), labelOf(t, 0));
      if (kind === "package") {
        writeFileSync(join(root, "node_modules/soak-labels/a", `${t.name}.js`), labelOf(t, 0));
      }
      if (kind === "fileLink") {
        mkdirSync(join(home, "variants"));
        writeFileSync(join(home, "variants", "label-0.ts"), labelOf(t, 0));
        symlinkSync("variants/label-0.ts", join(home, "label.ts"));
      }
    }
    specials.set(kind, list);
  }

  /**
   * One change of how the label of special components resolves. Each affected component
   * begins a new epoch whose label only the new resolution reaches; the next bundle must
   * carry it.
   */
  function resolutionChange(): void {
    const kind = pick(SPECIALS) as Special;
    const list = specials.get(kind) as Tracked[];
    if (kind === "shadow") {
      const t = pick(list) as Tracked;
      const home = join(dir, t.name);
      const epoch = t.history.length;
      if (existsSync(join(home, "label.tsx"))) {
        // Unshadow: label.ts (written first, unseen while shadowed) takes over again.
        atomic(join(home, "label.ts"), labelOf(t, epoch));
        begin(t, { exists: true, broken: false });
        rmSync(join(home, "label.tsx"));
      } else {
        begin(t, { exists: true, broken: false });
        atomic(join(home, "label.tsx"), labelOf(t, epoch));
      }
      t.settled = epoch;
      changes.shadow++;
      return;
    }
    if (kind === "tsconfig" || kind === "package") {
      // Every component of the kind resolves through the one config: all change at once.
      const next = side[kind] === "a" ? "b" : "a";
      const epochs = list.map((t) => t.history.length);
      list.forEach((t, i) => {
        const file =
          kind === "tsconfig"
            ? join(root, `labels-${next}`, `${t.name}.ts`)
            : join(root, "node_modules/soak-labels", next, `${t.name}.js`);
        atomic(file, labelOf(t, epochs[i] as number));
      });
      for (const t of list) begin(t, { exists: true, broken: false });
      side[kind] = next;
      if (kind === "tsconfig") writeTsconfig();
      else writePackage();
      list.forEach((t, i) => {
        t.settled = epochs[i] as number;
      });
      if (kind === "tsconfig") changes.tsconfig++;
      else changes.packageJson++;
      return;
    }
    const t = pick(list) as Tracked;
    const epoch = t.history.length;
    if (kind === "fileLink") {
      const home = join(dir, t.name);
      writeFileSync(join(home, "variants", `label-${epoch}.ts`), labelOf(t, epoch));
      begin(t, { exists: true, broken: false });
      relink(`variants/label-${epoch}.ts`, join(home, "label.ts"));
    } else {
      const version = join(staging, "versions", `${t.name}-${epoch}`);
      mkdirSync(version);
      writeFileSync(
        join(version, "index.tsx"),
        `import { label } from "./label";\nexport default () => <p data-v="${epoch}">{label}</p>;\n`,
      );
      writeFileSync(join(version, "label.ts"), labelOf(t, epoch));
      begin(t, { exists: true, broken: false });
      relink(version, join(dir, t.name));
    }
    t.settled = epoch;
    changes.relink++;
  }
  const specialNames = new Set([...specials.values()].flat().map((t) => t.name));

  const server = await startServer(dir, cacheMaxBytes);
  const agent = new Agent({ keepAlive: true, maxSockets: options.concurrency ?? 12 });
  try {
    // One bundle built first: what the server loads once, on its first build (esbuild's service,
    // the Fast Refresh transform's Babel), is not growth.
    const first = [...tracked.keys()].find((name) => !specialNames.has(name));
    await fetch(`http://127.0.0.1:${server.port}/api/bundles/${first}.js`).then((r) =>
      r.arrayBuffer(),
    );
    const memoryStart = await server.memory();
    log(`server up; RSS ${mb(memoryStart.rss)}`);

    const started = Date.now();
    const minEnd = started + options.seconds * 1000;
    const hardEnd = started + Math.max(options.seconds, options.maxSeconds ?? 0) * 1000;
    const running = () =>
      Date.now() < hardEnd && (Date.now() < minEnd || requests < (options.minRequests ?? 0));
    let changing = true;

    /** The components most requests go to; edited and broken, never removed. */
    const hot = [...tracked.keys()].filter((name) => !specialNames.has(name)).slice(0, 30);
    hot.push(...specialNames);

    // —— the changes ——
    const changer = (async () => {
      let added = 0;
      while (changing && running()) {
        await sleep(options.changeEveryMs ?? 15);
        const names = [...tracked.values()].filter((t) => !specialNames.has(t.name));
        const existing = names.filter((t) => t.history[t.settled]?.exists);
        const roll = Math.random();
        const t = pick(existing);
        if (roll > 0.85) {
          resolutionChange();
        } else if (roll < 0.05 || t === undefined) {
          const name = `n${String(added++).padStart(4, "0")}`;
          const fresh: Tracked = {
            name,
            history: [{ exists: false, broken: false }],
            settled: 0,
            latest: 0,
            hashes: new Map(),
          };
          tracked.set(name, fresh);
          const epoch = begin(fresh, { exists: true, broken: false });
          placeComponent(name, epoch);
          fresh.settled = epoch;
          changes.add++;
        } else if (roll < 0.1 && existing.length > count / 2 && !hot.includes(t.name)) {
          const epoch = begin(t, { exists: false, broken: false });
          const trash = join(staging, `trash-${t.name}-${epoch}`);
          renameSync(join(dir, t.name), trash);
          t.settled = epoch;
          rmSync(trash, { recursive: true, force: true });
          changes.remove++;
        } else {
          const wasBroken = t.history[t.settled]?.broken ?? false;
          // Broken components get fixed; a few good ones get broken.
          const broken = wasBroken ? Math.random() < 0.3 : roll > 0.82;
          const epoch = begin(t, { exists: true, broken });
          writeLabel(t.name, epoch, broken);
          t.settled = epoch;
          if (broken && !wasBroken) changes.break++;
          else if (!broken && wasBroken) changes.fix++;
          else changes.edit++;
        }
      }
    })();

    // —— the requests ——
    async function one(): Promise<void> {
      // 70% a hot set, 25% any existing component, 5% any name ever used (removed ones too).
      const all = [...tracked.values()];
      const which = Math.random();
      const name =
        which < 0.7
          ? (pick(hot) as string)
          : ((which < 0.95 ? pick(all.filter((o) => o.history[o.settled]?.exists)) : pick(all))
              ?.name ?? (pick(hot) as string));
      const t = tracked.get(name) as Tracked;
      const roll = Math.random();
      const kind =
        roll < 0.7
          ? "bundle"
          : roll < 0.8
            ? "metadata"
            : roll < 0.85
              ? "list"
              : roll < 0.93
                ? "conditional"
                : "head";
      const from = t.settled;
      const listedFrom =
        kind === "list"
          ? new Map([...tracked.values()].map((o) => [o.name, o.settled]))
          : undefined;
      const sentHash = kind === "conditional" ? t.lastHash : undefined;
      const path =
        kind === "list"
          ? "/api/bundles"
          : kind === "metadata"
            ? `/api/bundles/${name}/metadata`
            : `/api/bundles/${name}.js${Math.random() < 0.2 ? `?${randomBytes(4).toString("hex")}` : ""}`;
      const answer = await get(
        agent,
        server.port,
        path,
        kind === "head" ? "HEAD" : "GET",
        sentHash === undefined ? {} : { "if-none-match": `"${sentHash}"` },
      );
      const to = t.latest;
      requests++;
      byStatus[answer.status] = (byStatus[answer.status] ?? 0) + 1;
      const window = t.history.slice(from, to + 1);
      const where = `${kind} ${path} (epochs ${from}..${to})`;

      if (answer.status >= 500) {
        // HEAD carries no body to read the kind from.
        const error = kind === "head" ? "BundleError" : parseError(answer.body);
        if (error !== "BundleError" || !window.some((e) => e.exists && e.broken)) {
          unexpected5xx++;
          fail(`${where}: ${answer.status} ${answer.body.toString().slice(0, 300)}`);
        }
        return;
      }
      if (kind === "list") {
        if (answer.status !== 200) return fail(`${where}: ${answer.status}`);
        const listed = new Set(
          (JSON.parse(answer.body.toString()) as { name: string }[]).map((e) => e.name),
        );
        const sorted = [...listed].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
        if ([...listed].join() !== sorted.join()) fail(`${where}: not sorted`);
        for (const other of tracked.values()) {
          // Existence across the request's whole window: certain only when it did not change.
          const span = other.history.slice(listedFrom?.get(other.name) ?? 0, other.latest + 1);
          if (span.every((e) => e.exists) && !listed.has(other.name)) {
            fail(`${where}: ${other.name} missing from the listing`);
          }
          if (span.every((e) => !e.exists) && listed.has(other.name)) {
            fail(`${where}: ${other.name} listed, but it does not exist`);
          }
        }
        return;
      }
      if (answer.status === 404) {
        if (parseError(answer.body) !== "ComponentNotFound" && kind !== "head") {
          return fail(`${where}: 404 ${answer.body.toString().slice(0, 200)}`);
        }
        if (!window.some((e) => !e.exists)) fail(`${where}: 404 for a component that existed`);
        return;
      }
      if (answer.status === 304) {
        const epoch = epochOfHash(t, sentHash);
        if (kind !== "conditional" || epoch === undefined || epoch < from || epoch > to) {
          fail(`${where}: 304 for hash ${sentHash} of epoch ${epoch}`);
        }
        return;
      }
      if (answer.status !== 200) return fail(`${where}: ${answer.status}`);
      if (kind === "metadata") {
        const { hash } = JSON.parse(answer.body.toString()) as { hash: string };
        const epoch = epochOfHash(t, hash);
        if (epoch !== undefined && (epoch < from || epoch > to)) {
          fail(`${where}: metadata hash of epoch ${epoch}, a stale one`);
        }
        return;
      }
      const etag = answer.headers.etag?.slice(1, -1);
      if (kind === "head") {
        if (answer.body.length !== 0) fail(`${where}: HEAD with a body`);
        const epoch = epochOfHash(t, etag);
        if (epoch !== undefined && (epoch < from || epoch > to)) {
          fail(`${where}: HEAD with the ETag of epoch ${epoch}`);
        }
        return;
      }
      const text = answer.body.toString();
      const marker = new RegExp(`"${name}@(\\d+)"`).exec(text);
      const epoch = marker === null ? undefined : Number(marker[1]);
      if (epoch === undefined || epoch < from || epoch > to) {
        return fail(`${where}: bundle of epoch ${epoch}`);
      }
      if (!window[epoch - from]?.exists || window[epoch - from]?.broken) {
        return fail(`${where}: bundle of epoch ${epoch}, which was absent or broken`);
      }
      const hash = contentHash(answer.body);
      if (etag !== hash) fail(`${where}: ETag ${etag} is not the hash of the body (${hash})`);
      const known = t.hashes.get(epoch);
      if (known === undefined) t.hashes.set(epoch, hash);
      else if (known !== hash) fail(`${where}: epoch ${epoch} served with two hashes`);
      for (const [other, otherHash] of t.hashes) {
        if (other !== epoch && otherHash === hash) {
          fail(`${where}: epochs ${other} and ${epoch} have the same hash`);
        }
      }
      t.lastHash = hash;
    }

    const workers = Array.from({ length: options.concurrency ?? 12 }, async () => {
      while (running()) await one();
    });
    let lastLog = Date.now();
    const progress = setInterval(() => {
      if (Date.now() - lastLog < 5000) return;
      lastLog = Date.now();
      log(
        `${Math.round((Date.now() - started) / 1000)} s: ${requests} requests, ${Object.values(changes).reduce((a, b) => a + b, 0)} changes, ${failures.length} failures`,
      );
    }, 1000);
    await Promise.all(workers);
    changing = false;
    await changer;
    clearInterval(progress);

    // —— settled: every component exactly as its files are ——
    const all = [...tracked.values()];
    let allBundlesBytes = 0;
    await inBatches(all, 8, async (t) => {
      const state = t.history[t.latest] as Epoch;
      const bundle = await get(agent, server.port, `/api/bundles/${t.name}.js`, "GET", {});
      const where = `after settling: ${t.name} (epoch ${t.latest})`;
      if (!state.exists) {
        if (bundle.status !== 404) fail(`${where}: ${bundle.status} for a removed component`);
        return;
      }
      if (state.broken) {
        if (parseError(bundle.body) !== "BundleError") fail(`${where}: not a BundleError`);
        return;
      }
      allBundlesBytes += bundle.body.length;
      if (!bundle.body.toString().includes(`"${t.name}@${t.latest}"`)) {
        fail(`${where}: ${bundle.status}, not the last version`);
      }
      const metadata = await get(agent, server.port, `/api/bundles/${t.name}/metadata`, "GET", {});
      const hash = (JSON.parse(metadata.body.toString()) as { hash?: string }).hash;
      if (hash !== contentHash(bundle.body)) fail(`${where}: metadata hash ${hash} is stale`);
    });

    const memoryEnd = await server.memory();
    const retained = (m: MemoryReport) => m.heapUsed + m.external;
    return {
      seconds: (Date.now() - started) / 1000,
      requests,
      byStatus,
      changes,
      failures,
      unexpected5xx,
      serverErrors: memoryEnd.logged,
      memory: {
        rssStart: memoryStart.rss,
        rssPeak: memoryEnd.peakRss,
        rssEnd: memoryEnd.rss,
        retainedStart: retained(memoryStart),
        retainedEnd: retained(memoryEnd),
        cacheMaxBytes,
        allowance: ALLOWANCE,
      },
      allBundlesBytes,
    };
  } finally {
    agent.destroy();
    await server.stop();
    rmSync(root, { recursive: true, force: true });
  }
}

/** One line per figure, for logs and docs. */
export function formatSoakReport(report: SoakReport): string {
  const m = report.memory;
  return [
    `soak: ${report.requests} requests in ${report.seconds.toFixed(1)} s, statuses ${JSON.stringify(report.byStatus)}`,
    `changes: ${JSON.stringify(report.changes)}`,
    `RSS: start ${mb(m.rssStart)}, peak ${mb(m.rssPeak)}, end ${mb(m.rssEnd)}`,
    `retained after GC (heap + external): start ${mb(m.retainedStart)}, end ${mb(m.retainedEnd)} (growth ${mb(m.retainedEnd - m.retainedStart)}; cache bound ${mb(m.cacheMaxBytes)} + allowance ${mb(m.allowance)}; all bundles at once ${mb(report.allBundlesBytes)})`,
    `failures: ${report.failures.length}, unexpected 5xx: ${report.unexpected5xx}, server errors: ${report.serverErrors.length}`,
    ...report.failures.slice(0, 10).map((f) => `  ${f}`),
  ].join("\n");
}

export function mb(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
}

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: Buffer;
}

function get(
  agent: Agent,
  port: number,
  path: string,
  method: "GET" | "HEAD",
  headers: Record<string, string>,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({ host: "127.0.0.1", port, path, method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (chunk: Buffer) => chunks.push(chunk));
      res.on("end", () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers as Record<string, string | undefined>,
          body: Buffer.concat(chunks),
        }),
      );
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end();
  });
}

function parseError(body: Buffer): string | undefined {
  try {
    return (JSON.parse(body.toString()) as { error?: string }).error;
  } catch {
    return undefined;
  }
}

function epochOfHash(t: Tracked, hash: string | undefined): number | undefined {
  for (const [epoch, known] of t.hashes) if (known === hash) return epoch;
  return undefined;
}

function contentHash(bytes: Uint8Array): string {
  return createHash("sha256").update(bytes).digest("hex").slice(0, 12);
}

function pick<T>(items: readonly T[]): T | undefined {
  return items[Math.floor(Math.random() * items.length)];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function inBatches<T>(items: readonly T[], size: number, fn: (item: T) => Promise<void>) {
  let next = 0;
  await Promise.all(
    Array.from({ length: size }, async () => {
      while (next < items.length) await fn(items[next++] as T);
    }),
  );
}

export interface SoakServer {
  port: number;
  memory(): Promise<MemoryReport>;
  stop(): Promise<void>;
}

export async function startServer(dir: string, cacheMaxBytes: number): Promise<SoakServer> {
  const script = fileURLToPath(new URL("./soakServer.ts", import.meta.url));
  const child: ChildProcess = fork(script, [dir, String(cacheMaxBytes)], {
    execArgv: ["--conditions=source", "--expose-gc"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const port = await new Promise<number>((resolve, reject) => {
    child.once("error", reject);
    child.once("exit", (code) => reject(new Error(`soak server exited with ${code}`)));
    child.on("message", (message: { type: string; port?: number }) => {
      if (message.type === "listening") resolve(message.port as number);
    });
  });
  return {
    port,
    memory: () =>
      new Promise((resolve) => {
        const onMessage = (message: { type: string }) => {
          if (message.type !== "memory") return;
          child.off("message", onMessage);
          resolve(message as MemoryReport);
        };
        child.on("message", onMessage);
        child.send({ type: "memory" });
      }),
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.removeAllListeners("exit");
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}

/** Whether the soak's memory stayed within the cache bound plus the allowance. */
export function withinBound(report: SoakReport): boolean {
  const m = report.memory;
  return m.retainedEnd - m.retainedStart <= m.cacheMaxBytes + m.allowance;
}

// `npm run soak [-- seconds]`: the long form.
if (import.meta.main) {
  const seconds = Number(process.argv[2] ?? 180);
  const report = await runSoak({ seconds, log: (line) => console.error(line) });
  console.log(formatSoakReport(report));
  const ok =
    report.failures.length === 0 &&
    report.unexpected5xx === 0 &&
    report.serverErrors.length === 0 &&
    withinBound(report);
  console.log(ok ? "soak: passed" : "soak: FAILED");
  process.exit(ok ? 0 : 1);
}
