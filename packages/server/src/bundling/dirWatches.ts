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
 */
import { type FSWatcher, statfsSync, watch } from "node:fs";
import { basename } from "node:path";
import { stampOf } from "../util/fileStamp.ts";
import { turnEnd } from "../util/loopTurn.ts";

/** A count of events, compared against what a record saw when last confirmed. */
interface Counter {
  n: number;
}

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

/** Magic numbers (`statfs` `f_type`) of Linux file systems whose writes all raise inotify events. */
const LOCAL_FILE_SYSTEMS = new Set([
  0xef53, // ext2, ext3, ext4
  0x58465342, // xfs
  0x9123683e, // btrfs
  0x01021994, // tmpfs
  0x858458f6, // ramfs
  0x794c7630, // overlayfs
  0x2fc12fc1, // zfs
  0xf2f52010, // f2fs
  0xca451a4e, // bcachefs
  0x52654973, // reiserfs
  0x3153464a, // jfs
]);

/**
 * How long a stat check's confirmation lasts. The kernel drops events when its queue overflows
 * (a burst of tens of thousands, unread) without telling Node: past this, a record is checked
 * by stats again, so such a loss delays a change by a second at most.
 */
const RECONFIRM_MS = 1_000;

/** Whether watches can vouch for anything on this machine at all. */
const SUPPORTED = process.platform === "linux";

/** One `fs.watch` of a directory (or file), shared by every record that needs it. */
class Watch {
  readonly path: string;
  readonly #self: string;
  readonly ino: bigint;
  readonly #watcher: FSWatcher;
  /** Entries added, removed or renamed; the directory itself changed; anything unknown. */
  readonly listing: Counter = { n: 0 };
  readonly #names = new Map<string, Counter>();
  /** Whether a record follows this directory's listing (else a rename matters by name only). */
  listed = false;
  broken = false;
  users = 0;

  constructor(path: string, ino: bigint, watcher: FSWatcher) {
    this.path = path;
    this.#self = basename(path);
    this.ino = ino;
    this.#watcher = watcher;
    watcher.on("change", (event, file) => this.#event(event, file));
    watcher.on("error", () => this.#break());
  }

  /** The counter of events naming `name`. */
  named(name: string): Counter {
    let counter = this.#names.get(name);
    if (counter === undefined) {
      counter = { n: 0 };
      this.#names.set(name, counter);
    }
    return counter;
  }

  close(): void {
    this.#watcher.close();
  }

  #event(event: string, file: string | Buffer | null): void {
    const name = file === null ? undefined : String(file);
    // The directory itself (deleted, moved, its attributes) is reported under its own name;
    // a child of that name cannot be told apart from it, so both count as everything.
    if (name === undefined || name === this.#self) {
      this.#everything();
      // Deleted or moved away: the watch follows the inode, no longer the path.
      if (event === "rename" && !this.#stillHere()) this.#break();
      heard();
      return;
    }
    if (event === "rename") this.listing.n++;
    const counter = this.#names.get(name);
    if (counter !== undefined) counter.n++;
    if (counter !== undefined || (event === "rename" && this.listed)) heard();
  }

  #stillHere(): boolean {
    return stampOf(this.path)?.ino === this.ino;
  }

  #everything(): void {
    this.listing.n++;
    for (const counter of this.#names.values()) counter.n++;
  }

  #break(): void {
    this.broken = true;
    this.#everything();
  }
}

const watches = new Map<string, Watch>();

/** Who is told of every event some record is interested in (see {@link onRecordChange}). */
const hearers = new Set<() => void>();

function heard(): void {
  for (const hearer of hearers) hearer();
}

/** Whether anyone is told of records' changes (see {@link onRecordChange}). */
export function recordChangesHeard(): boolean {
  return hearers.size > 0;
}

/**
 * Calls `hearer` on every event that may concern a record — a file a bundle read written,
 * a directory it resolved in changed, wherever they are (beside the component, a shared
 * folder, a linked package) — as soon as it reaches this process. Only a hint: what changed
 * is for a stat check to say (the event may be of a write the record already holds). Live
 * reload checks its components on it, so an edit outside the source roots is announced as
 * fast as one inside. Returns the function that stops the calls.
 */
export function onRecordChange(hearer: () => void): () => void {
  const added = () => hearer();
  hearers.add(added);
  return () => hearers.delete(added);
}

/** A watch of `path`, or undefined when it cannot vouch (see the module comment). */
function acquire(path: string): Watch | undefined {
  const before = stampOf(path);
  if (before === undefined) return undefined;
  const known = watches.get(path);
  // The path may name another directory now (a link re-pointed): a watch follows an inode.
  if (known !== undefined && !known.broken && known.ino === before.ino) {
    known.users++;
    return known;
  }
  if (!trustedFileSystem(path)) return undefined;
  let watcher: FSWatcher;
  try {
    watcher = watch(path, { persistent: false });
  } catch {
    return undefined; // gone, no permission, or the system's limit of watches reached
  }
  // The same inode before and after: the watch is on what the path names now.
  const after = stampOf(path);
  if (after === undefined || after.ino !== before.ino) {
    watcher.close();
    return undefined;
  }
  // A watch replaced stays with the records holding it until they let go of it.
  const created = new Watch(path, after.ino, watcher);
  created.users = 1;
  watches.set(path, created);
  return created;
}

function release(watch: Watch): void {
  watch.users--;
  if (watch.users > 0) return;
  watch.close();
  if (watches.get(watch.path) === watch) watches.delete(watch.path);
}

function trustedFileSystem(path: string): boolean {
  try {
    return LOCAL_FILE_SYSTEMS.has(Number(statfsSync(path).type));
  } catch {
    return false;
  }
}

/** The directories (and files) watched in this process. */
export function watchedPaths(): string[] {
  return [...watches.keys()];
}

// A record dropped without being released (its handler set forgotten) lets go when collected.
const finalizer = new FinalizationRegistry<readonly Watch[]>((held) => {
  for (const watch of held) release(watch);
});

/**
 * The watches of one record: whether any event of interest came since {@link confirm}.
 * Made with {@link watchRecord}; {@link release} when the record is dropped.
 */
export class RecordWatch {
  readonly #watches: readonly Watch[];
  readonly #counters: readonly Counter[];
  readonly #seen: number[];
  #confirmedAt = -Infinity;
  #released = false;

  constructor(watches: readonly Watch[], counters: readonly Counter[]) {
    this.#watches = watches;
    this.#counters = counters;
    this.#seen = counters.map((counter) => counter.n);
    finalizer.register(this, watches, this);
  }

  /**
   * Whether nothing of interest happened since the last {@link confirm}, made less than a
   * second ago (false before the first). An answer for a question asked before
   * {@link afterPoll} resolved.
   */
  quiet(): boolean {
    if (Date.now() - this.#confirmedAt > RECONFIRM_MS || !this.intact) return false;
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
    finalizer.unregister(this);
    for (const watch of this.#watches) release(watch);
  }
}

/**
 * Watches for `interests`, or undefined when any of them cannot be watched (the record is
 * then checked by stats alone).
 */
export function watchRecord(interests: readonly Interest[]): RecordWatch | undefined {
  if (!SUPPORTED) return undefined;
  const held: Watch[] = [];
  const counters: Counter[] = [];
  for (const { path, names, listing } of interests) {
    const watch = acquire(path);
    if (watch === undefined) {
      for (const taken of held) release(taken);
      return undefined;
    }
    held.push(watch);
    if (listing) {
      watch.listed = true;
      counters.push(watch.listing);
    }
    for (const name of names) counters.push(watch.named(name));
  }
  return new RecordWatch(held, counters);
}

// Calls waiting for the same poll phase share one promise.
let waiting: Promise<void> | undefined;

/**
 * Resolves once a whole poll phase has run that began after the call: every event of a write
 * made before the call — a request's, or this process's own — has then been delivered. One
 * immediate ends the current turn, a second one runs after the next poll phase.
 *
 * `readFromSocket`: the call answers a request a poll read from a socket (not one made in
 * this process). Every write it follows was complete before its bytes were sent, so that
 * write's events were ready when the poll that read it began, and are delivered by the end of
 * that poll phase: the end of the turn is enough ({@link turnEnd}).
 */
export function afterPoll(readFromSocket = false): Promise<void> {
  if (readFromSocket) return turnEnd();
  waiting ??= new Promise((resolve) => {
    setImmediate(() => {
      waiting = undefined;
      setImmediate(resolve);
    });
  });
  return waiting;
}
