import type { ComponentName } from "@svc/protocol";
import { LRUCache } from "lru-cache";
import type { Component } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import { errorKindOf, inSpan, instruments } from "../telemetry.ts";
import { nowNs, RACY_WINDOW_NS, sameStamp, stampOf } from "../util/fileStamp.ts";
import { currentTurn } from "../util/loopTurn.ts";
import { withTimeout } from "../util/withTimeout.ts";
import { BundleInputs } from "./bundleInputs.ts";
import type { BundleOutput, Bundler } from "./bundler.ts";
import { afterPoll, coversInterests, type RecordWatch } from "./dirWatches.ts";
import type { BundleOptions } from "./esbuildOptions.ts";
import type { BundleFile } from "./finishOutput.ts";
import { type Freshness, unownedFreshness } from "./freshness.ts";

/** A bundle held by the dev cache. */
export interface CachedBundle {
  readonly name: ComponentName;
  readonly code: Uint8Array;
  readonly hash: string;
  /** Its stylesheets, in cascade order (see `BundleOutput.stylesheets`). */
  readonly stylesheets: readonly BundleFile[];
  /** The files it refers to by URL. */
  readonly assets: readonly BundleFile[];
  /** The components it asks for by a literal name (see `BundleOutput.dependencies`). */
  readonly dependencies: readonly string[];
}

interface Entry extends CachedBundle {
  readonly dir: string;
  readonly entry: string;
  readonly inputs: BundleInputs;
  /**
   * The watches that vouch for `inputs` between stat checks, where they can: set by the first
   * check (a bundle asked for once is never watched); null when they cannot be.
   */
  watch: RecordWatch | null | undefined;
  /** The event-loop turn whose check found every input unchanged (see `loopTurn.ts`). */
  checkedTurn: number;
  /** The last turn it was served in. */
  usedTurn: number;
  /**
   * Built from files changed within the racy window (see `fileStamp.ts`), so its stamps cannot
   * say whether it read them before or after a change in the same tick: served on its watches'
   * word alone (marked before the build began, quiet since), never on a stat check — until
   * the window has passed and the watches heard nothing up to then (see `#vouched`).
   */
  racy: boolean;
  /** When it was recorded (`nowNs()`): a racy entry's stamps hold once the window is past. */
  keptNs: bigint;
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
  /**
   * How long a build may take before the request is answered with a `BundleError` (an import of
   * a FIFO or a device, a plugin that never returns). Default: 30 000 ms.
   */
  buildTimeoutMs?: number;
  /**
   * Let directory watches vouch for a bundle between stat checks where they can be trusted
   * (see `dirWatches.ts`). Default: true. False: every check stats.
   */
  watch?: boolean;
  /**
   * The freshness state it shares with the rest of its handler set (the turn's stats, the
   * records' watches and who hears of them). Default: the one of parts made without a handler
   * set (`unownedFreshness`).
   */
  freshness?: Freshness;
}

/**
 * The development bundle cache. A hit re-checks what the bundle depends on — the files it read
 * and how its imports resolved (see `bundleInputs.ts`) — once per turn of the event loop, and
 * rebuilds when anything changed; concurrent requests for one component share one build
 * (unless its inputs changed while it ran); total size is bounded (LRU); a build that does not
 * finish in time fails alone, without holding up the name.
 */
export class BundleCache {
  readonly #bundler: Bundler;
  readonly #bundleOptions: BundleOptions;
  readonly #timeoutMs: number;
  readonly #entries: LRUCache<ComponentName, Entry>;
  /**
   * The stylesheets and assets of the bundles built, by path (content-addressed, so never
   * stale): kept while recently built or served, within a bound of their own.
   */
  readonly #files: LRUCache<string, Uint8Array>;
  readonly #inflight = new Map<ComponentName, Promise<Built>>();
  readonly #watch: boolean;
  readonly #freshness: Freshness;
  /**
   * The watches of a component's last kept bundle while its builds fail or are not kept
   * (racy), held while someone follows the watches (live reload): such a build records
   * nothing, so without them the next edit of a file outside the source roots (the fix of a
   * broken helper) would be heard only by live reload's poll. They vouch for nothing (no
   * bundle is cached); the next kept build lets them go.
   */
  readonly #heldWatches = new Map<ComponentName, RecordWatch>();

  constructor(bundler: Bundler, options: BundleCacheOptions = {}) {
    this.#bundler = bundler;
    const maxBytes = options.maxBytes ?? 256 * 1024 * 1024;
    this.#entries = new LRUCache<ComponentName, Entry>({
      maxSize: maxBytes,
      sizeCalculation: (e) => Math.max(1, e.code.byteLength),
      dispose: (e) => e.watch?.release(),
    });
    this.#watch = options.watch ?? true;
    this.#freshness = options.freshness ?? unownedFreshness;
    this.#files = new LRUCache<string, Uint8Array>({
      maxSize: maxBytes,
      sizeCalculation: (bytes) => Math.max(1, bytes.byteLength),
    });
    this.#bundleOptions = options.bundleOptions ?? {};
    this.#timeoutMs = options.buildTimeoutMs ?? 30_000;
  }

  /** Total bytes of the bundles held. */
  get bytes(): number {
    return this.#entries.calculatedSize;
  }

  /**
   * The current bundle of `component` when it is cached and unchanged, else undefined: the
   * synchronous fast path of {@link get}, with the same freshness check.
   */
  peek(component: Component): CachedBundle | undefined {
    return this.#hit(component);
  }

  /**
   * The current bundle of `component` when it is cached and unchanged, else undefined:
   * synchronously when checked by stats (this turn, or now), or — when its watches vouch for
   * it — once a whole poll phase after the question has run (see `dirWatches.ts`), or, for a
   * request read from a socket (`readFromSocket`), at the end of the turn.
   */
  current(
    component: Component,
    readFromSocket = false,
  ): CachedBundle | Promise<CachedBundle | undefined> | undefined {
    const entry = this.#cached(component);
    if (entry === undefined) return undefined;
    if (!this.#leftToWatches(entry)) return this.#hit(component);
    return afterPoll(readFromSocket).then(() => this.#vouched(component, entry));
  }

  /**
   * The part of {@link current} that answers now: the bundle when checked this turn or by
   * stats now; undefined when it is not cached, changed, or left to its watches (then
   * `current` answers after the poll phase).
   */
  ready(component: Component): CachedBundle | undefined {
    const entry = this.#cached(component);
    if (entry === undefined || this.#leftToWatches(entry)) return undefined;
    return this.#hit(component);
  }

  /**
   * The current bundle of `component`, built or rebuilt when needed; a warm one after a stat
   * check (once a turn). {@link current} is the request's way, which leaves it to the watches.
   */
  async get(component: Component): Promise<CachedBundle> {
    const hit = this.#hit(component);
    if (hit !== undefined) return hit;
    const pending = this.#inflight.get(component.name);
    if (pending === undefined) return await this.#start(component);
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
    const later = this.#inflight.get(component.name);
    return later === undefined ? await this.#start(component) : (await later).entry;
  }

  /**
   * A stylesheet or asset of a bundle built here (`card-3f2a9c0b1d4e.css`,
   * `assets/logo-24WHYHIF.png`), or undefined when none of the bundles built lately has it.
   */
  file(path: string): Uint8Array | undefined {
    return this.#files.get(path);
  }

  /** Forgets `name` (or everything). */
  invalidate(name?: ComponentName): void {
    if (name === undefined) {
      this.#entries.clear();
      for (const held of this.#heldWatches.values()) held.release();
      this.#heldWatches.clear();
    } else {
      this.#entries.delete(name);
    }
  }

  /** The watches of `name`'s last kept bundle, held (see `#heldWatches`). */
  #holdWatches(name: ComponentName): void {
    const entry = this.#entries.peek(name);
    if (entry?.watch == null || this.#heldWatches.has(name) || !this.#freshness.watches.listening)
      return;
    this.#heldWatches.set(name, entry.watch);
    entry.watch = null; // not released with the entry
  }

  #releaseHeldWatches(name: ComponentName): void {
    this.#heldWatches.get(name)?.release();
    this.#heldWatches.delete(name);
  }

  #cached(component: Component): Entry | undefined {
    const entry = this.#entries.peek(component.name);
    if (entry === undefined || entry.dir !== component.dir || entry.entry !== component.entry) {
      return undefined;
    }
    return entry;
  }

  /** Whether `entry`, not checked this turn, is vouched for by its watches: answered after the poll. */
  #leftToWatches(entry: Entry): boolean {
    if (entry.checkedTurn === currentTurn()) return false;
    // A racy entry goes there however long ago it was confirmed: only after the poll phase
    // can it be found to hold by stats (see `#vouched`); otherwise it is built again.
    return entry.racy ? entry.watch?.unchanged() === true : entry.watch?.quiet() === true;
  }

  /** The cached entry of `component` if a stat check (this turn's, or one now) finds it fresh. */
  #hit(component: Component): Entry | undefined {
    const entry = this.#cached(component);
    if (entry === undefined) return undefined;
    const turn = currentTurn();
    if (entry.checkedTurn === turn) return entry;
    if (!this.#statCheck(entry)) return undefined;
    entry.checkedTurn = turn;
    this.#used(entry);
    return entry;
  }

  /** After the poll phase: `entry` if its watches still vouch for it, else a stat check's answer. */
  #vouched(component: Component, entry: Entry): Entry | undefined {
    const now = this.#cached(component);
    if (now === undefined) return undefined;
    // Every event of a write before this question has been seen (the poll phase ran): none
    // since the build began, and the window past, the stamps it recorded are those of what it
    // read, and any later write changes them. From here stats may check it.
    if (now.racy && now.watch?.unchanged() === true && nowNs() - now.keptNs > RACY_WINDOW_NS) {
      now.racy = false;
    }
    // In the check phase a stat check records no turn: the next turn's requests may be newer.
    if ((now !== entry || now.watch?.quiet() !== true) && !this.#statCheck(now)) return undefined;
    this.#used(now);
    return now;
  }

  /** Every input of `entry` checked by stats; its watches learn the outcome. */
  #statCheck(entry: Entry): boolean {
    // Its stamps may not tell a change in the racy window from what it read (see `racy`).
    if (entry.racy) return false;
    // Set before the stat check that confirms them: a change in between is seen by the stats.
    if (entry.watch === undefined) entry.watch = this.#watchRecord(entry.inputs);
    entry.watch?.mark();
    // Confirming watches, the stats must be taken after the mark, not shared from earlier.
    if (!entry.inputs.isFresh(entry.watch === null)) return false;
    entry.watch?.confirm();
    return true;
  }

  /** The watches of a record, null when they cannot vouch for it. */
  #watchRecord(inputs: BundleInputs): RecordWatch | null {
    return this.#freshness.watches.watch(inputs.interests()) ?? null;
  }

  /**
   * Recency is kept to the turn: the first hit of a turn makes the entry the most recent, and
   * its files with it.
   */
  #used(entry: Entry): void {
    const turn = currentTurn();
    if (entry.usedTurn === turn) return;
    entry.usedTurn = turn;
    this.#entries.get(entry.name);
    this.#keepFiles(entry);
  }

  #keepFiles(entry: CachedBundle): void {
    for (const file of filesOf(entry)) {
      if (this.#files.get(file.path) === undefined) this.#files.set(file.path, file.bytes);
    }
  }

  /**
   * Builds `component`: the bundle, as soon as esbuild is done; its record (see
   * `bundleInputs.ts`) is taken after the answer has gone out, and until then requests for the
   * name wait for it (in `#inflight`). Stamps taken later are no less safe: a change after the
   * build began makes the record racy, so the bundle is not kept.
   */
  #start(component: Component): Promise<CachedBundle> {
    const before = this.#watchBefore(component.name);
    const startedNs = nowNs();
    const served = this.#bundle(component);
    served.catch(() => before?.release());
    const built = served.then(
      (output) =>
        new Promise<Built>((resolve, reject) => {
          setImmediate(() => {
            try {
              resolve(this.#keep(component, output, startedNs, before));
            } catch (error) {
              before?.release();
              reject(error);
            }
          });
        }),
    );
    this.#inflight.set(component.name, built);
    const done = () => {
      if (this.#inflight.get(component.name) === built) this.#inflight.delete(component.name);
    };
    built.then(done, done);
    return served.then((output) => {
      const bundle = bundleOf(component, output);
      // Also when not cached (racy): the bundle is served, and its files are asked for next.
      this.#keepFiles(bundle);
      return bundle;
    });
  }

  #bundle(component: Component): Promise<BundleOutput> {
    const started = performance.now();
    const attributes = { "svc.component": component.name };
    return inSpan("svc.bundle", attributes, async (span) => {
      const { bundleBuilds, bundleDuration } = instruments();
      try {
        const output = await this.#build(component);
        span.setAttribute("svc.hash", output.hash);
        bundleBuilds.add(1, { ...attributes, "svc.outcome": "ok" });
        return output;
      } catch (error) {
        bundleBuilds.add(1, { ...attributes, "svc.outcome": errorKindOf(error) });
        throw error;
      } finally {
        bundleDuration.record(performance.now() - started, attributes);
      }
    });
  }

  async #build(component: Component): Promise<BundleOutput> {
    const dirBefore = stampOf(component.dir);
    try {
      return await this.#buildOnce(component);
    } catch (error) {
      // Its folder changed while it ran (a file it had found went away: a save in steps, a
      // checkout): what failed is not what the files say now, so once more — as a success
      // built from changing files is not kept.
      let failure = error;
      if (
        error instanceof BundleError &&
        !timedOut.has(error) &&
        !sameStamp(dirBefore, stampOf(component.dir))
      ) {
        try {
          return await this.#buildOnce(component);
        } catch (again) {
          failure = again;
        }
      }
      this.#holdWatches(component.name);
      this.invalidate(component.name);
      throw failure;
    }
  }

  async #buildOnce(component: Component): Promise<BundleOutput> {
    return await withTimeout(
      this.#bundler.bundle(component, this.#bundleOptions),
      this.#timeoutMs,
      () => {
        const error = new BundleError(component.name, [
          {
            text: `the build did not finish within ${this.#timeoutMs / 1000} s — does it import a FIFO, a device or a file that never ends, or use a plugin that hangs?`,
          },
        ]);
        timedOut.add(error);
        return error;
      },
    );
  }

  /**
   * While someone follows the watches (live reload), the watches of `name`'s last record,
   * marked before a new build of it begins: should the build read files changed within the
   * racy window (a save a moment ago, the usual case there), they can say whether anything
   * changed while it ran, where the stamps cannot (see `#keep`).
   */
  #watchBefore(name: ComponentName): RecordWatch | undefined {
    if (!this.#watch || !this.#freshness.watches.listening) return undefined;
    const last = this.#entries.peek(name);
    if (last === undefined) return undefined;
    const watch = this.#watchRecord(last.inputs) ?? undefined;
    watch?.mark();
    return watch;
  }

  /**
   * Records what `output` depends on and caches it. A racy build (see `Entry.racy`) is kept
   * only on the word of watches marked before it began (`before`) that hear every file of its
   * record and heard nothing since; otherwise it is served but not kept.
   */
  #keep(
    component: Component,
    output: BundleOutput,
    startedNs: bigint,
    before: RecordWatch | undefined,
  ): Built {
    const { inputs, racy } = BundleInputs.collect(
      component,
      output.inputs,
      output.resolutions ?? [],
      startedNs,
      this.#freshness.stats,
    );
    const entry: Entry = {
      ...bundleOf(component, output),
      dir: component.dir,
      entry: component.entry,
      inputs,
      watch: this.#watch ? undefined : null,
      checkedTurn: -1,
      usedTurn: -1,
      racy: false,
      keptNs: nowNs(),
    };
    this.#keepFiles(entry);
    // Events seen so far include those of every write before esbuild answered (its answer and
    // they were read in one poll); one later comes after this and moves the counters too.
    const vouching =
      racy && before?.unchanged() === true && coversInterests(before.interests, inputs.interests())
        ? before
        : undefined;
    if (vouching !== undefined) {
      entry.racy = true;
      entry.watch = vouching;
      vouching.confirm();
    } else {
      before?.release();
    }
    const kept = !racy || vouching !== undefined;
    // Not kept (racy): the last kept bundle's watches go on hearing its files meanwhile.
    if (!kept) this.#holdWatches(component.name);
    this.invalidate(component.name);
    if (kept) {
      this.#releaseHeldWatches(component.name);
      // While someone follows the watches (live reload, a browser listening), watched from
      // now on, not from its first stat check: a change is heard before anyone asks for the
      // bundle again. (They vouch for nothing until a stat check confirms them.) Otherwise a
      // bundle asked for once holds no watch.
      if (entry.watch === undefined && this.#freshness.watches.listening) {
        entry.watch = this.#watchRecord(inputs);
      }
      this.#entries.set(component.name, entry);
      // Larger than the whole cache: not kept, so its watch goes now.
      if (!this.#entries.has(component.name)) entry.watch?.release();
    }
    return { entry, racy: !kept };
  }
}

/** The errors of builds that ran out of time: never tried again at once. */
const timedOut = new WeakSet<Error>();

function bundleOf(component: Component, output: BundleOutput): CachedBundle {
  return {
    name: component.name,
    code: output.code,
    hash: output.hash,
    stylesheets: output.stylesheets ?? [],
    assets: output.assets ?? [],
    dependencies: output.dependencies ?? [],
  };
}

/** The stylesheets and assets of `entry`. */
function filesOf(entry: CachedBundle): readonly BundleFile[] {
  return entry.assets.length === 0 ? entry.stylesheets : [...entry.stylesheets, ...entry.assets];
}
