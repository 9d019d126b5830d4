/**
 * What a bundle's bytes depend on, and the cheap check that they still hold.
 *
 * esbuild's answer for a component is a function of more than the files it read: of every
 * directory a resolution looked in (a `lib.ts` created next to the `lib.js` it found, a closer
 * `node_modules/pkg`), of the configuration files it consulted (`tsconfig.json`,
 * `jsconfig.json`, `package.json` on the way up from every file), and of the links on the way
 * to the component. esbuild's own incremental rebuilds re-check exactly this kind of record
 * (every file read and every directory listed); Vite's dependency optimizer hashes the
 * lockfile and config instead, which is right for `node_modules` but blind to source edits.
 * svc records, per bundle:
 *
 * 1. every file esbuild read (the metafile's inputs): its full stamp;
 * 2. for every import, from the metafile's `original` specifier:
 *    - relative or absolute: the listing of each directory the path walks through, and of the
 *      directory of the file it resolved to (a listing changes when an entry is added,
 *      removed, renamed or re-pointed);
 *    - a package name: `node_modules/<name>` in the importer's directory and each one above,
 *      up to the one used: absent for the nearer ones, the same link or directory for it;
 * 3. the configuration esbuild applies to every file and importer: from its directory up to
 *    the nearest `package.json`, and up to the nearest `tsconfig.json` or `jsconfig.json`,
 *    each of those files present with the same stamp or still absent (the nearest one is the
 *    one that applies; a nearer one created, or the nearest deleted, changes it), and what
 *    each tsconfig `extends`;
 * 4. the component itself: the directories from its source root down to it, links included
 *    (`ln -sfn v2 current` makes a new link), and that `index.tsx` is still absent when the
 *    entry is `index.ts`.
 *
 * A bundle is fresh while every record holds. A build any of whose stamps changed (by change
 * time) within {@link RACY_WINDOW_NS} before it started is served but not remembered.
 *
 * Most records are of absent files (the `tsconfig.json` not in each directory up to `/`, the
 * nearer `node_modules/pkg` that is not there). An entry cannot appear in a directory without
 * changing the directory's own stamp, so the absent entries of one directory are checked with
 * one stat of the directory while its stamp holds, and one by one only after it changed (then
 * the directory's new stamp is remembered, unless it is too recent to be trusted) — git's
 * untracked cache makes the same use of directory stamps.
 *
 * Which paths a build's record holds is worked out by `recordCollector.ts`; this module
 * stamps them and checks them, sharing the turn's stats with the handler set's other checks.
 */
import { basename, dirname } from "node:path";
import type { Component } from "../components/componentRegistry.ts";
import { type FileStamp, isRacy, nowNs, sameStamp, stampOf } from "../util/fileStamp.ts";
import type { Interest } from "./dirWatches.ts";
import { unownedFreshness } from "./freshness.ts";
import { type Compare, RecordCollector, type Resolution } from "./recordCollector.ts";
import type { TurnStats } from "./turnStats.ts";

export type { Resolution } from "./recordCollector.ts";

interface Watched {
  readonly path: string;
  /** Stamp the link itself (`lstat`), not what it points to. */
  readonly link: boolean;
  readonly compare: Compare;
  readonly stamp: FileStamp | undefined;
}

/** Absent paths of one directory, covered by the directory's stamp while it holds. */
interface AbsentGroup {
  readonly dir: string;
  /** The directory's stamp when its entries were last seen absent. */
  stamp: FileStamp | undefined;
  readonly paths: readonly { readonly path: string; readonly link: boolean }[];
  /**
   * Where the directory is among the watched paths (its listing recorded too: the component's
   * own directory, most often), so a check stats it once; -1 when it is not.
   */
  readonly watchedAt: number;
}

/** The record of one bundle: see the module comment. */
export class BundleInputs {
  readonly #watched: readonly Watched[];
  readonly #absent: readonly AbsentGroup[];
  /** The turn's stats its checks share (its handler set's: see `freshness.ts`). */
  readonly #stats: TurnStats;

  private constructor(
    watched: readonly Watched[],
    absent: readonly Omit<AbsentGroup, "watchedAt">[],
    stats: TurnStats,
  ) {
    this.#watched = watched;
    this.#absent = absent.map((group) => ({
      ...group,
      watchedAt: watched.findIndex(({ path, link }) => path === group.dir && !link),
    }));
    this.#stats = stats;
  }

  /** How many paths are recorded. */
  get size(): number {
    return this.#absent.reduce((sum, group) => sum + group.paths.length, this.#watched.length);
  }

  /** How many stats a check makes while nothing changed. */
  get checks(): number {
    const ownStats = this.#absent.filter((group) => group.watchedAt === -1).length;
    return this.#watched.length + ownStats;
  }

  /**
   * The record of a finished build, stamped now. `racy` when any stamp changed within the racy
   * window before `startedNs` (the record may then already be out of date without showing it).
   * Its checks share `stats` with the other checks of a turn (its handler set's).
   */
  static collect(
    component: Component,
    inputs: readonly string[],
    resolutions: readonly Resolution[],
    startedNs: bigint,
    stats: TurnStats = unownedFreshness.stats,
  ): { inputs: BundleInputs; racy: boolean } {
    const paths = new RecordCollector(component, inputs, resolutions);
    let racy = false;
    const read = new Set(inputs);
    const watched: Watched[] = [];
    for (const { path, link, compare } of paths.paths()) {
      const stamp = paths.stamp(path, link);
      // A path that is no link, also recorded followed with its content: that one covers it.
      if (link && paths.has(path, false) && stamp !== undefined && !stamp.isLink) continue;
      if (stamp !== undefined && isRacy(stamp, startedNs)) racy = true;
      // A file esbuild read that is gone already: the bundle holds what it was.
      if (stamp === undefined && read.has(path)) racy = true;
      watched.push({ path, link, compare, stamp });
    }
    const { present, absent } = groupAbsent(watched);
    return { inputs: new BundleInputs(present, absent, stats), racy };
  }

  /**
   * Where a change to any recorded path raises an event (see `dirWatches.ts`): each path's
   * name in its directory; every entry of a directory whose listing is recorded; a file with
   * other hard links itself (written through another name, its directory hears nothing).
   */
  interests(): Interest[] {
    const byPath = new Map<string, { names: Set<string>; listing: boolean }>();
    const add = (path: string, name: string | undefined) => {
      let interest = byPath.get(path);
      if (interest === undefined) {
        interest = { names: new Set(), listing: false };
        byPath.set(path, interest);
      }
      if (name === undefined) interest.listing = true;
      else interest.names.add(name);
    };
    for (const { path, link, compare, stamp } of this.#watched) {
      const dir = dirname(path);
      if (dir !== path) add(dir, basename(path));
      if (stamp === undefined || link) continue;
      if (stamp.isDirectory ? compare === "content" : stamp.links > 1) add(path, undefined);
    }
    for (const group of this.#absent) {
      for (const { path } of group.paths) add(group.dir, basename(path));
    }
    // A directory that is not there (the `node_modules` of a lookup) cannot be watched: its
    // nearest ancestor hears it created, under the name of its first missing part.
    const interests = new Map<string, { names: Set<string>; listing: boolean }>();
    for (const [path, interest] of byPath) {
      let [dir, names] = [path, interest.names];
      while (stampOf(dir) === undefined && dirname(dir) !== dir) {
        names = new Set([basename(dir)]);
        dir = dirname(dir);
      }
      const listing = interest.listing && dir === path;
      const known = interests.get(dir);
      if (known === undefined) {
        interests.set(dir, { names, listing });
      } else {
        for (const name of names) known.names.add(name);
        known.listing ||= listing;
      }
    }
    return [...interests].map(([path, { names, listing }]) => ({
      path,
      names: [...names],
      listing,
    }));
  }

  /**
   * Whether every recorded path is as it was. Stats are shared within a turn of the loop, unless
   * `shared` is false: a check that confirms watches must see the files as they are now (a stat
   * taken earlier in the turn may predate the watches).
   */
  isFresh(shared = true): boolean {
    const stats = this.#stats;
    // Each watched path's stamp, for the absent groups of the same directories.
    const taken: (FileStamp | undefined)[] = [];
    for (const { path, link, compare, stamp: then } of this.#watched) {
      const now = shared ? stats.shared(path, link) : stats.fresh(path, link);
      if (compare === "identity" ? !sameIdentity(now, then) : !sameStamp(now, then)) {
        return false;
      }
      taken.push(now);
    }
    for (const group of this.#absent) {
      // The directory first: an entry made after this stat changes it again. (One taken above
      // in this check is as good: the entries are looked at after it all the same.)
      const dir =
        group.watchedAt !== -1
          ? taken[group.watchedAt]
          : shared
            ? stats.shared(group.dir, false)
            : stats.fresh(group.dir, false);
      if (sameStamp(dir, group.stamp)) continue;
      // Stat afresh, not from the turn's memo: these must be looked at after the directory.
      for (const { path, link } of group.paths) {
        if (stampOf(path, { link }) !== undefined) return false;
      }
      if (dir === undefined || !isRacy(dir, nowNs())) group.stamp = dir;
    }
    return true;
  }
}

/**
 * Splits a record: paths that exist, and the absent ones grouped by directory, each group
 * with its directory's stamp taken after its entries were found absent — taken now, so the
 * entries are looked at once more after it (one made in between: kept as a single check).
 * A directory changed within the racy window cannot vouch for its entries, nor is a lone
 * entry of a directory not otherwise checked worth a second stat: those stay single.
 */
function groupAbsent(watched: readonly Watched[]): {
  present: Watched[];
  absent: Omit<AbsentGroup, "watchedAt">[];
} {
  const present: Watched[] = [];
  const checked = new Set<string>();
  const byDir = new Map<string, Watched[]>();
  for (const entry of watched) {
    if (entry.stamp !== undefined) {
      present.push(entry);
      if (!entry.link) checked.add(entry.path);
      continue;
    }
    const dir = dirname(entry.path);
    const list = byDir.get(dir);
    if (list === undefined) byDir.set(dir, [entry]);
    else list.push(entry);
  }
  const absent: Omit<AbsentGroup, "watchedAt">[] = [];
  for (const [dir, entries] of byDir) {
    if (entries.length < 2 && !checked.has(dir)) {
      present.push(...entries);
      continue;
    }
    const stamp = stampOf(dir);
    const trusted =
      (stamp === undefined || !isRacy(stamp, nowNs())) &&
      entries.every(({ path, link }) => stampOf(path, { link }) === undefined);
    if (trusted)
      absent.push({ dir, stamp, paths: entries.map(({ path, link }) => ({ path, link })) });
    else present.push(...entries);
  }
  return { present, absent };
}

function sameIdentity(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ino === b.ino;
}
