import { statSync } from "node:fs";
import type { Component } from "../components/componentRegistry.ts";
import { currentTurn } from "../util/loopTurn.ts";
import type { BundleOptions, BundleOutput, Bundler } from "./bundler.ts";

/** A bundle held by the dev cache. */
export interface CachedBundle {
  readonly name: string;
  readonly code: Uint8Array;
  readonly hash: string;
}

interface InputStamp {
  path: string;
  mtimeNs: bigint;
  /**
   * Change time: set to "now" by every write, whatever the writer does to the modification
   * time afterwards (`cp -p`, `tar`, `rsync -t` restore an old one).
   */
  ctimeNs: bigint;
  size: bigint;
  ino: bigint;
}

interface Entry extends CachedBundle {
  readonly dir: string;
  readonly entry: string;
  readonly inputs: InputStamp[];
  /** The event-loop turn whose check found every input unchanged (see `loopTurn.ts`). */
  checkedTurn: number;
}

/** A finished build, and whether any input changed while it ran (then it is not cached). */
interface Built {
  entry: Entry;
  racy: boolean;
}

export interface BundleCacheOptions {
  /** Upper bound on the bytes of cached bundles; least recently used go first. Default: 256 MiB. */
  maxBytes?: number;
  /** Passed to the bundler for every build. */
  bundleOptions?: BundleOptions;
}

/**
 * Timestamps on Linux file systems advance in coarse ticks, so a file written within a tick
 * of a build can keep its old modification time. A build whose inputs changed that recently
 * (by their change time, which no tool can set back) is served but not cached; the next
 * request builds again (git's "racy clean" rule).
 */
const RACY_WINDOW_NS = 50_000_000n;

/**
 * The development bundle cache. A hit re-stats every file the bundle was built from (once per
 * turn of the event loop) and rebuilds when any changed or vanished; concurrent requests for
 * one component share one build (unless its inputs changed while it ran); total size is
 * bounded (LRU).
 */
export class BundleCache {
  readonly #bundler: Bundler;
  readonly #maxBytes: number;
  readonly #bundleOptions: BundleOptions;
  /** Insertion order is recency order: a hit moves the entry to the end. */
  readonly #entries = new Map<string, Entry>();
  readonly #inflight = new Map<string, Promise<Built>>();
  #bytes = 0;
  /** How many builds were started; exposed for tests and diagnostics. */
  builds = 0;

  constructor(bundler: Bundler, options: BundleCacheOptions = {}) {
    this.#bundler = bundler;
    this.#maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.#bundleOptions = options.bundleOptions ?? {};
  }

  /** Total bytes of the bundles held. */
  get bytes(): number {
    return this.#bytes;
  }

  /**
   * The current bundle of `component` when it is cached and its inputs are unchanged, else
   * undefined: the synchronous fast path of {@link get}, with the same freshness check.
   */
  peek(component: Component): CachedBundle | undefined {
    return this.#hit(component);
  }

  /** The current bundle of `component`, built or rebuilt when needed. */
  async get(component: Component): Promise<CachedBundle> {
    const hit = this.#hit(component);
    if (hit !== undefined) return hit;
    const pending = this.#inflight.get(component.name);
    if (pending === undefined) return (await this.#start(component)).entry;
    // That build started before this request arrived, so it may have read files changed
    // since: its answer is this request's too only if it succeeded and no input changed.
    const shared = await pending.then(
      (built) => (built.racy ? undefined : built.entry),
      () => undefined,
    );
    if (shared !== undefined) return shared;
    // Whatever was built or started since read the files after this request arrived.
    const since = this.#hit(component);
    if (since !== undefined) return since;
    return (await (this.#inflight.get(component.name) ?? this.#start(component))).entry;
  }

  #hit(component: Component): Entry | undefined {
    const entry = this.#entries.get(component.name);
    if (entry === undefined || entry.dir !== component.dir || entry.entry !== component.entry) {
      return undefined;
    }
    const turn = currentTurn();
    if (entry.checkedTurn === turn) return entry;
    if (!isFresh(entry)) return undefined;
    entry.checkedTurn = turn;
    // Recency is kept to the turn: the first hit of a turn makes the entry the most recent.
    this.#entries.delete(component.name);
    this.#entries.set(component.name, entry);
    return entry;
  }

  #start(component: Component): Promise<Built> {
    const build = this.#build(component).finally(() => {
      this.#inflight.delete(component.name);
    });
    this.#inflight.set(component.name, build);
    return build;
  }

  /** Forgets `name` (or everything). */
  invalidate(name?: string): void {
    if (name === undefined) {
      this.#entries.clear();
      this.#bytes = 0;
      return;
    }
    const entry = this.#entries.get(name);
    if (entry) {
      this.#entries.delete(name);
      this.#bytes -= entry.code.byteLength;
    }
  }

  async #build(component: Component): Promise<Built> {
    this.builds++;
    const startedNs = nowNs();
    let output: BundleOutput;
    try {
      output = await this.#bundler.bundle(component, this.#bundleOptions);
    } catch (error) {
      this.invalidate(component.name);
      throw error;
    }
    const stamps = stampInputs(output.inputs);
    const entry: Entry = {
      name: component.name,
      dir: component.dir,
      entry: component.entry,
      code: output.code,
      hash: output.hash,
      inputs: stamps ?? [],
      checkedTurn: -1,
    };
    this.invalidate(component.name);
    const racy =
      stamps === undefined || stamps.some((s) => s.ctimeNs >= startedNs - RACY_WINDOW_NS);
    if (!racy && entry.code.byteLength <= this.#maxBytes) {
      this.#entries.set(component.name, entry);
      this.#bytes += entry.code.byteLength;
      this.#evict();
    }
    return { entry, racy };
  }

  #evict(): void {
    for (const [name, entry] of this.#entries) {
      if (this.#bytes <= this.#maxBytes) break;
      this.#entries.delete(name);
      this.#bytes -= entry.code.byteLength;
    }
  }
}

function stampInputs(paths: readonly string[]): InputStamp[] | undefined {
  const stamps: InputStamp[] = [];
  for (const path of paths) {
    const stat = statSync(path, { bigint: true, throwIfNoEntry: false });
    if (stat === undefined) return undefined; // vanished already: do not cache
    stamps.push({
      path,
      mtimeNs: stat.mtimeNs,
      ctimeNs: stat.ctimeNs,
      size: stat.size,
      ino: stat.ino,
    });
  }
  return stamps;
}

function isFresh(entry: Entry): boolean {
  for (const input of entry.inputs) {
    const stat = statSync(input.path, { bigint: true, throwIfNoEntry: false });
    if (
      stat === undefined ||
      stat.mtimeNs !== input.mtimeNs ||
      stat.ctimeNs !== input.ctimeNs ||
      stat.size !== input.size ||
      stat.ino !== input.ino
    ) {
      return false;
    }
  }
  return true;
}

function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
