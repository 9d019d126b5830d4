import { lstatSync, statSync } from "node:fs";

/**
 * What svc remembers of a file (or directory, or link) to notice that it changed: inode, size,
 * modification time and change time, in nanoseconds. The change time is what every write sets
 * to "now", whatever the writer does to the modification time afterwards (`cp -p`, `tar`,
 * `rsync -t` restore an old one); a replaced file or link (an atomic save, `ln -sfn`) has a
 * new inode.
 */
export interface FileStamp {
  readonly ino: bigint;
  readonly size: bigint;
  readonly mtimeNs: bigint;
  readonly ctimeNs: bigint;
  /** Whether the path is a symbolic link (only ever true for a stamp taken with `link`). */
  readonly isLink: boolean;
  readonly isDirectory: boolean;
  /** How many names the file has (hard links). */
  readonly links: number;
}

/**
 * The stamp of `path`, or undefined when nothing is there. With `link: true` a symbolic link
 * is stamped itself (`lstat`), not what it points to.
 */
export function stampOf(path: string, options: { link?: boolean } = {}): FileStamp | undefined {
  const stat = (options.link ? lstatSync : statSync)(path, {
    bigint: true,
    throwIfNoEntry: false,
  });
  if (stat === undefined) return undefined;
  return {
    ino: stat.ino,
    size: stat.size,
    mtimeNs: stat.mtimeNs,
    ctimeNs: stat.ctimeNs,
    isLink: stat.isSymbolicLink(),
    isDirectory: stat.isDirectory(),
    links: Number(stat.nlink),
  };
}

/** Whether two stamps (either may be "absent") describe the same version of a file. */
export function sameStamp(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs;
}

/**
 * Timestamps on Linux file systems advance in coarse ticks, so a file written within a tick of
 * being read can keep the stamp it had when read. Anything derived from a file whose change
 * time is this close to the moment it was read is used but not remembered: the next use reads
 * again (git's "racy clean" rule).
 */
export const RACY_WINDOW_NS = 50_000_000n;

/** Whether a read of the file with `stamp`, begun at `readAtNs`, must not be remembered. */
export function isRacy(stamp: FileStamp, readAtNs: bigint): boolean {
  return stamp.ctimeNs >= readAtNs - RACY_WINDOW_NS;
}

/** The wall clock in nanoseconds, as file time stamps count. */
export function nowNs(): bigint {
  return BigInt(Date.now()) * 1_000_000n;
}
