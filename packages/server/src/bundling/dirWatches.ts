/**
 * Directory watches that vouch for a bundle's record between stat checks.
 *
 * The dev cache's check of a bundle (see `bundleInputs.ts`) stats every recorded path once per
 * turn of the event loop — 8 stats for a typical component, most of a warm answer's cost. On
 * Linux, every change that could make a record stale also raises an inotify event on a
 * directory of the record: a file written in place, touched or replaced is an event on its
 * directory (and on its own inode, watched too when it has other hard links); an entry
 * created, removed or renamed is an event on the directory holding it. So while none of the
 * directories of a record saw an event of interest since the record was last confirmed by
 * stats, the record holds, and no stat is needed.
 *
 * An event reaches JavaScript in the poll phase of a turn, maybe after the request that must
 * see it (both were ready in the same poll; Linux does not order them), and a write this
 * process made a moment ago is only delivered by the next poll. So a record vouched for by its
 * watches answers once a poll phase that began after the question has run ({@link afterPoll}):
 * by then every event of a write completed before the request arrived has been seen. A request
 * read from a socket needs less: its bytes were there when the poll that read it began, so the
 * events of every write before it were ready in that poll too, and the end of that turn is
 * enough (see `readFromSocket` of `SvcRequest`).
 *
 * Watches are trusted only where the kernel sees every write: local file systems on Linux.
 * Elsewhere (macOS, Windows, NFS, SMB, 9p — WSL's `/mnt/c` —, FUSE, virtiofs — Docker
 * Desktop's shares —) a write may come from another kernel and raise nothing; those records
 * are checked by stats every turn, as before. A directory that cannot be watched (the inotify
 * limit reached, no permission) leaves its records to stats too.
 *
 * The `fs.watch`es themselves are shared by the whole process (`watchPool.ts`); the records'
 * watches and who hears of their changes belong to one handler set ({@link DirWatches}).
 */
import { afterNextPoll, turnEnd } from "../util/loopTurn.ts";
import {
  acquire,
  type Counter,
  forget,
  release,
  releaseWhenCollected,
  type Watch,
  type WatchHolder,
} from "./watchPool.ts";

export { watchedPaths } from "./watchPool.ts";

/**
 * What a record needs to hear about in one directory (or, for a file with other hard links,
 * about one file): events naming `names`, and with `listing` every entry added, removed or
 * renamed.
 */
export interface Interest {
  readonly path: string;
  readonly names: readonly string[];
  readonly listing: boolean;
}

/**
 * How long a stat check's confirmation lasts. The kernel drops events when its queue overflows
 * (a burst of tens of thousands, unread) without telling Node: past this, a record is checked
 * by stats again, so such a loss delays a change by a second at most.
 */
const RECONFIRM_MS = 1_000;

/** Whether watches can vouch for anything on this machine at all. */
const SUPPORTED = process.platform === "linux";

/**
 * The watches of one record: whether any event of interest came since {@link confirm}.
 * Made with {@link DirWatches.watch}; {@link release} when the record is dropped.
 */
export class RecordWatch {
  readonly #watches: readonly Watch[];
  readonly #counters: readonly Counter[];
  readonly #seen: number[];
  readonly #holder: WatchHolder;
  #confirmedAt = -Infinity;
  #released = false;
  /** What it hears (see {@link DirWatches.watch}). */
  readonly interests: readonly Interest[];

  constructor(
    watches: readonly Watch[],
    counters: readonly Counter[],
    holder: WatchHolder,
    interests: readonly Interest[] = [],
  ) {
    this.interests = interests;
    this.#watches = watches;
    this.#counters = counters;
    this.#seen = counters.map((counter) => counter.n);
    this.#holder = holder;
    releaseWhenCollected(this, watches, holder);
  }

  /**
   * Whether nothing of interest happened since the last {@link confirm}, made less than a
   * second ago (false before the first). An answer for a question asked before
   * {@link afterPoll} resolved.
   */
  quiet(): boolean {
    return Date.now() - this.#confirmedAt <= RECONFIRM_MS && this.unchanged();
  }

  /**
   * Whether nothing of interest reached this process since the last {@link mark} (or since
   * it was made), however long ago: what a build with this watch marked before it began asks
   * (see `BundleCache`'s racy entries).
   */
  unchanged(): boolean {
    if (!this.intact) return false;
    for (let i = 0; i < this.#counters.length; i++) {
      if ((this.#counters[i] as Counter).n !== this.#seen[i]) return false;
    }
    return true;
  }

  /** Whether every watch still follows its path (a deleted directory's does not). */
  get intact(): boolean {
    for (const watch of this.#watches) if (watch.broken) return false;
    return true;
  }

  /** Remembers the counters as they are now: call just before a stat check. */
  mark(): void {
    for (let i = 0; i < this.#counters.length; i++) {
      this.#seen[i] = (this.#counters[i] as Counter).n;
    }
    this.#confirmedAt = -Infinity;
  }

  /** The stat check that followed {@link mark} found the record unchanged. */
  confirm(): void {
    this.#confirmedAt = Date.now();
  }

  release(): void {
    if (this.#released) return;
    this.#released = true;
    forget(this);
    for (const watch of this.#watches) release(watch, this.#holder);
  }
}

/**
 * The records' watches of one handler set, and who hears of their changes: live reload, so an
 * edit outside the source roots (a shared folder, the project's `tsconfig.json`, a linked
 * package) is announced as fast as one inside. Part of the handler set's `Freshness`.
 */
export class DirWatches implements WatchHolder {
  /** Who is told of every event some record is interested in (see {@link onRecordChange}). */
  readonly #hearers = new Set<() => void>();

  /** Whether anyone is told of records' changes (see {@link onRecordChange}). */
  get listening(): boolean {
    return this.#hearers.size > 0;
  }

  /**
   * Calls `hearer` on every event that may concern a record of this handler set — a file a
   * bundle read written, a directory it resolved in changed, wherever they are — as soon as it
   * reaches this process. Only a hint: what changed is for a stat check to say (the event may
   * be of a write the record already holds). Returns the function that stops the calls.
   */
  onRecordChange(hearer: () => void): () => void {
    const added = () => hearer();
    this.#hearers.add(added);
    return () => this.#hearers.delete(added);
  }

  /** @internal Called by the watches this handler set holds (see `watchPool.ts`). */
  heard(): void {
    for (const hearer of this.#hearers) hearer();
  }

  /**
   * Watches for `interests`, or undefined when any of them cannot be watched (the record is
   * then checked by stats alone).
   */
  watch(interests: readonly Interest[]): RecordWatch | undefined {
    if (!SUPPORTED) return undefined;
    const held: Watch[] = [];
    const counters: Counter[] = [];
    for (const { path, names, listing } of interests) {
      const watch = acquire(path, this);
      if (watch === undefined) {
        for (const taken of held) release(taken, this);
        return undefined;
      }
      held.push(watch);
      counters.push(...watch.follow(this, names, listing));
    }
    return new RecordWatch(held, counters, this, interests);
  }
}

/** Whether watches for `outer` hear every event watches for `inner` would. */
export function coversInterests(outer: readonly Interest[], inner: readonly Interest[]): boolean {
  const byPath = new Map(outer.map((interest) => [interest.path, interest]));
  return inner.every((need) => {
    const has = byPath.get(need.path);
    return (
      has !== undefined &&
      (has.listing || !need.listing) &&
      need.names.every((name) => has.names.includes(name))
    );
  });
}

/**
 * The watches of records made outside any handler set: by {@link watchRecord} (a build
 * directory's manifest, tests) and by parts made without a `Freshness` (see `freshness.ts`).
 */
export const unownedWatches = new DirWatches();

/** {@link DirWatches.watch} of {@link unownedWatches}. */
export function watchRecord(interests: readonly Interest[]): RecordWatch | undefined {
  return unownedWatches.watch(interests);
}

/** {@link DirWatches.onRecordChange} of {@link unownedWatches}. */
export function onRecordChange(hearer: () => void): () => void {
  return unownedWatches.onRecordChange(hearer);
}

/**
 * Resolves once every event of a write made before the call — a request's, or this process's
 * own — has been delivered: once a whole poll phase that began after the call has run.
 *
 * `readFromSocket`: the call answers a request a poll read from a socket (not one made in
 * this process). Every write it follows was complete before its bytes were sent, so that
 * write's events were ready when the poll that read it began, and are delivered by the end of
 * that poll phase: the end of the turn is enough ({@link turnEnd}).
 */
export function afterPoll(readFromSocket = false): Promise<void> {
  return readFromSocket ? turnEnd() : afterNextPoll();
}
