import { type FSWatcher, watch } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { basename, join } from "node:path";

/** Directories never watched: dependencies and dot-directories (`.git`, `.cache`, …). */
export function isIgnoredDirectory(name: string): boolean {
  return name === "node_modules" || (name.startsWith(".") && name !== "." && name !== "..");
}

export interface SourceWatcher {
  /** Resolves once every directory found at the start is watched. */
  readonly ready: Promise<void>;
  /** How many directories are watched. */
  readonly size: number;
  close(): void;
}

/**
 * Watches every directory below `roots` with one non-recursive `fs.watch` each — not
 * `node_modules`, not dot-directories (a recursive watch puts an inotify watch on each of
 * their tens of thousands of directories) — and follows directories as they come and go.
 * `onChange(listing)` is called for every event; `listing` is true when an entry was added,
 * removed or renamed (rather than a file written).
 *
 * Every event is reported, none is filtered: a save is never lost to a comparison of
 * timestamps (chokidar drops a second save made within one timestamp tick — about half of
 * the saves made 30 ms apart on Linux).
 */
export function watchSources(
  roots: readonly string[],
  onChange: (listing: boolean) => void,
): SourceWatcher {
  /** Watched directory → its watcher, its real path and inode. */
  const watched = new Map<string, { watcher: FSWatcher; real: string; ino: number }>();
  /** Real paths watched, so a directory reachable twice (a link) is watched once. */
  const reals = new Set<string>();
  let closed = false;

  function unwatch(dir: string): void {
    const entry = watched.get(dir);
    if (entry === undefined) return;
    entry.watcher.close();
    watched.delete(dir);
    reals.delete(entry.real);
    for (const child of [...watched.keys()]) {
      if (child.startsWith(`${dir}/`)) unwatch(child);
    }
  }

  /** After an entry of a watched directory came or went: follow it if it is a directory. */
  async function recheck(path: string): Promise<void> {
    if (isIgnoredDirectory(basename(path))) return;
    const info = await stat(path).catch(() => undefined);
    const known = watched.get(path);
    if (known !== undefined && (info === undefined || info.ino !== known.ino)) unwatch(path);
    if (info?.isDirectory()) await add(path);
  }

  async function add(dir: string): Promise<void> {
    if (closed || watched.has(dir)) return;
    const [real, info] = await Promise.all([
      realpath(dir).catch(() => undefined),
      stat(dir).catch(() => undefined),
    ]);
    if (real === undefined || info === undefined || !info.isDirectory() || reals.has(real)) return;
    if (closed || watched.has(dir)) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (event, file) => {
        const listing = event === "rename";
        if (listing && file) void recheck(join(dir, String(file)));
        onChange(listing);
      });
    } catch {
      return; // gone meanwhile
    }
    watcher.on("error", () => unwatch(dir));
    watched.set(dir, { watcher, real, ino: info.ino });
    reals.add(real);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    await Promise.all(
      entries
        .filter((e) => (e.isDirectory() || e.isSymbolicLink()) && !isIgnoredDirectory(e.name))
        .map((e) => add(join(dir, e.name))),
    );
  }

  const ready = Promise.all(roots.map((root) => add(root))).then(() => {});
  return {
    ready,
    get size() {
      return watched.size;
    },
    close() {
      closed = true;
      for (const { watcher } of watched.values()) watcher.close();
      watched.clear();
      reals.clear();
    },
  };
}
