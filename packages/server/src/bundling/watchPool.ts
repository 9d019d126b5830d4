/**
 * The `fs.watch`es of the dev cache's records: one per directory (or file) in the process,
 * shared by every record that needs it, whichever handler set made the record.
 *
 * Process-wide on purpose: each watch costs a file descriptor and an inotify watch, and the
 * system's limit of those (`fs.inotify.max_user_watches`) is per user, not per handler set;
 * two handler sets serving one project (a test server beside the app's, `svc serve` beside a
 * bridge) would otherwise watch every directory twice. What each watch tells is still per
 * handler set: a watch counts events for all, and tells each holder only of the names it
 * follows (see `DirWatches` in `dirWatches.ts`, one per handler set).
 */
import { type FSWatcher, statfsSync, watch as watchPath } from "node:fs";
import { basename } from "node:path";
import { stampOf } from "../util/fileStamp.ts";

/** A count of events, compared against what a record saw when last confirmed. */
export interface Counter {
  n: number;
}

/** Who is told of the events of interest of the watches it holds (a handler set's `DirWatches`). */
export interface WatchHolder {
  heard(): void;
}

/** What one holder follows of a watch: names, and the listing (entries added, removed, renamed). */
interface Holding {
  readonly names: Set<string>;
  listed: boolean;
  users: number;
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

/** One `fs.watch` of a directory (or file), shared by every record that needs it. */
export class Watch {
  readonly path: string;
  readonly #self: string;
  readonly ino: bigint;
  readonly #watcher: FSWatcher;
  /** Entries added, removed or renamed; the directory itself changed; anything unknown. */
  readonly listing: Counter = { n: 0 };
  readonly #names = new Map<string, Counter>();
  readonly #holders = new Map<WatchHolder, Holding>();
  broken = false;
  #users = 0;

  constructor(path: string, ino: bigint, watcher: FSWatcher) {
    this.path = path;
    this.#self = basename(path);
    this.ino = ino;
    this.#watcher = watcher;
    watcher.on("change", (event, file) => this.#event(event, file));
    watcher.on("error", () => this.#break());
  }

  /** `holder` uses the watch once more. */
  hold(holder: WatchHolder): void {
    this.#users++;
    const holding = this.#holders.get(holder);
    if (holding === undefined)
      this.#holders.set(holder, { names: new Set(), listed: false, users: 1 });
    else holding.users++;
  }

  /** `holder` uses it once less; closed when no one does. Returns whether it was closed. */
  letGo(holder: WatchHolder): boolean {
    const holding = this.#holders.get(holder);
    if (holding !== undefined && --holding.users === 0) this.#holders.delete(holder);
    if (--this.#users > 0) return false;
    this.#watcher.close();
    return true;
  }

  /**
   * The counters of what `holder` follows here: events naming `names`, and with `listing`
   * every entry added, removed or renamed. From now on `holder` hears of those events.
   */
  follow(holder: WatchHolder, names: readonly string[], listing: boolean): Counter[] {
    const holding = this.#holders.get(holder);
    const counters: Counter[] = [];
    if (listing) {
      if (holding !== undefined) holding.listed = true;
      counters.push(this.listing);
    }
    for (const name of names) {
      holding?.names.add(name);
      let counter = this.#names.get(name);
      if (counter === undefined) {
        counter = { n: 0 };
        this.#names.set(name, counter);
      }
      counters.push(counter);
    }
    return counters;
  }

  #event(event: string, file: string | Buffer | null): void {
    const name = file === null ? undefined : String(file);
    // The directory itself (deleted, moved, its attributes) is reported under its own name;
    // a child of that name cannot be told apart from it, so both count as everything.
    if (name === undefined || name === this.#self) {
      this.#everything();
      // Deleted or moved away: the watch follows the inode, no longer the path.
      if (event === "rename" && !this.#stillHere()) this.#break();
      for (const holder of this.#holders.keys()) holder.heard();
      return;
    }
    const rename = event === "rename";
    if (rename) this.listing.n++;
    const counter = this.#names.get(name);
    if (counter !== undefined) counter.n++;
    for (const [holder, { names, listed }] of this.#holders) {
      if (names.has(name) || (rename && listed)) holder.heard();
    }
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

/** The watches of this process, by path (a path re-pointed may have an older one still held). */
const watches = new Map<string, Watch>();

/**
 * A watch of `path` held by `holder`, or undefined when it cannot vouch: nothing there, a file
 * system whose writes may raise no event, or no watch to be had.
 */
export function acquire(path: string, holder: WatchHolder): Watch | undefined {
  const before = stampOf(path);
  if (before === undefined) return undefined;
  const known = watches.get(path);
  // The path may name another directory now (a link re-pointed): a watch follows an inode.
  if (known !== undefined && !known.broken && known.ino === before.ino) {
    known.hold(holder);
    return known;
  }
  if (!trustedFileSystem(path)) return undefined;
  let watcher: FSWatcher;
  try {
    watcher = watchPath(path, { persistent: false });
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
  created.hold(holder);
  watches.set(path, created);
  return created;
}

/** `holder` lets go of `watch`, closed once no one holds it. */
export function release(watch: Watch, holder: WatchHolder): void {
  if (watch.letGo(holder) && watches.get(watch.path) === watch) watches.delete(watch.path);
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

/**
 * A record dropped without being released (its handler set forgotten) lets go of its watches
 * when collected. Process-wide with the watches: a registry of the handler set's own would be
 * collected with it, and its records' watches never closed.
 */
const finalizer = new FinalizationRegistry<{ watches: readonly Watch[]; holder: WatchHolder }>(
  ({ watches: held, holder }) => {
    for (const watch of held) release(watch, holder);
  },
);

/** Releases `watches` (held by `holder`) when `record` is collected, unless {@link forget}. */
export function releaseWhenCollected(
  record: object,
  held: readonly Watch[],
  holder: WatchHolder,
): void {
  finalizer.register(record, { watches: held, holder }, record);
}

/** `record` released its watches itself. */
export function forget(record: object): void {
  finalizer.unregister(record);
}
