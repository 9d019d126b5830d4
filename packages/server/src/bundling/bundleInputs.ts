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
 */
import { readFileSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { Component } from "../components/componentRegistry.ts";
import { type FileStamp, isRacy, nowNs, sameStamp, stampOf } from "../util/fileStamp.ts";
import { currentTurn } from "../util/loopTurn.ts";
import type { Interest } from "./dirWatches.ts";

/** One import as esbuild resolved it. */
export interface Resolution {
  /** Absolute path of the importing file. */
  importer: string;
  /** The specifier as written (`./lib`, `pkg/sub`). */
  specifier: string;
  /** Absolute path it resolved to; undefined for externals. */
  path: string | undefined;
}

/**
 * How a recorded path is compared: `content` compares the whole stamp (a file's bytes, a
 * directory's listing); `identity` only whether the same inode is there (a directory that may
 * gain siblings' entries, a link that may be re-pointed).
 */
type Compare = "content" | "identity";

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

  private constructor(
    watched: readonly Watched[],
    absent: readonly Omit<AbsentGroup, "watchedAt">[],
  ) {
    this.#watched = watched;
    this.#absent = absent.map((group) => ({
      ...group,
      watchedAt: watched.findIndex(({ path, link }) => path === group.dir && !link),
    }));
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
   */
  static collect(
    component: Component,
    inputs: readonly string[],
    resolutions: readonly Resolution[],
    startedNs: bigint,
  ): { inputs: BundleInputs; racy: boolean } {
    collecting = new Map();
    try {
      return BundleInputs.#collect(component, inputs, resolutions, startedNs);
    } finally {
      collecting = undefined;
    }
  }

  static #collect(
    component: Component,
    inputs: readonly string[],
    resolutions: readonly Resolution[],
    startedNs: bigint,
  ): { inputs: BundleInputs; racy: boolean } {
    const paths = new PathSet();
    const dirs = new Set<string>([component.dir]);
    for (const input of inputs) {
      paths.add(input, false, "content");
      dirs.add(dirname(input));
    }
    for (const { importer, specifier, path } of resolutions) {
      if (path === undefined) continue; // external: provided by the page
      const from = dirname(importer);
      dirs.add(from);
      paths.add(dirname(path), false, "content");
      if (isPathSpecifier(specifier)) {
        for (const dir of walkedDirectories(from, specifier)) paths.add(dir, false, "content");
      } else if (!specifier.startsWith("#")) {
        addPackageLookup(paths, from, specifier);
      }
    }
    addComponent(paths, component);
    addConfigFiles(paths, dirs);

    let racy = false;
    const read = new Set(inputs);
    const watched: Watched[] = [];
    for (const { path, link, compare } of paths.values()) {
      const stamp = collectStamp(path, link);
      // A path that is no link, also recorded followed with its content: that one covers it.
      if (link && paths.has(path, false) && stamp !== undefined && !stamp.isLink) continue;
      if (stamp !== undefined && isRacy(stamp, startedNs)) racy = true;
      // A file esbuild read that is gone already: the bundle holds what it was.
      if (stamp === undefined && read.has(path)) racy = true;
      watched.push({ path, link, compare, stamp });
    }
    const { present, absent } = groupAbsent(watched);
    return { inputs: new BundleInputs(present, absent), racy };
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
    const stamp = shared ? memoStamp : freshStamp;
    // Each watched path's stamp, for the absent groups of the same directories.
    const taken: (FileStamp | undefined)[] = [];
    for (const { path, link, compare, stamp: then } of this.#watched) {
      const now = stamp(path, { link });
      if (compare === "identity" ? !sameIdentity(now, then) : !sameStamp(now, then)) {
        return false;
      }
      taken.push(now);
    }
    for (const group of this.#absent) {
      // The directory first: an entry made after this stat changes it again. (One taken above
      // in this check is as good: the entries are looked at after it all the same.)
      const dir = group.watchedAt === -1 ? stamp(group.dir, {}) : taken[group.watchedAt];
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

/** Insertion-ordered set of (path, link) with the strictest comparison asked for. */
class PathSet {
  readonly #entries = new Map<string, { path: string; link: boolean; compare: Compare }>();

  add(path: string, link: boolean, compare: Compare): void {
    const key = `${link ? "L" : "F"}${path}`;
    const existing = this.#entries.get(key);
    if (existing === undefined) this.#entries.set(key, { path, link, compare });
    else if (compare === "content") existing.compare = "content";
  }

  has(path: string, link: boolean): boolean {
    return this.#entries.has(`${link ? "L" : "F"}${path}`);
  }

  values(): IterableIterator<{ path: string; link: boolean; compare: Compare }> {
    return this.#entries.values();
  }
}

function isPathSpecifier(specifier: string): boolean {
  return (
    specifier.startsWith("./") ||
    specifier.startsWith("../") ||
    specifier === "." ||
    specifier === ".." ||
    isAbsolute(specifier)
  );
}

/**
 * The directories whose listing decides how a path specifier resolves: the one holding each
 * named segment of the path (`./a/b/c` from D: D, D/a, D/a/b).
 */
function walkedDirectories(from: string, specifier: string): string[] {
  const dirs: string[] = [];
  let current = isAbsolute(specifier) ? sep : from;
  for (const segment of specifier.split(/[/\\]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      current = dirname(current);
      continue;
    }
    dirs.push(current);
    current = join(current, segment);
  }
  return dirs;
}

/** The package name of a bare specifier: `pkg` of `pkg/sub`, `@scope/pkg` of `@scope/pkg/x`. */
function packageName(specifier: string): string | undefined {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  return name === undefined || name === "" || name.includes(":") ? undefined : name;
}

/**
 * Records how node_modules lookup went for `specifier` from `from`: each `node_modules/<name>`
 * nearer than the one found must stay absent, and the one found must stay the same entry (a
 * workspace link re-pointed is another inode). Stops at the first one present, as Node and
 * esbuild do; a package found through tsconfig `paths` instead leaves every one absent.
 */
function addPackageLookup(paths: PathSet, from: string, specifier: string): void {
  const name = packageName(specifier);
  if (name === undefined) return;
  for (let dir = from; ; dir = dirname(dir)) {
    if (!dir.endsWith(`${sep}node_modules`)) {
      const candidate = join(dir, "node_modules", name);
      paths.add(candidate, true, "identity");
      if (collectStamp(candidate, true) !== undefined) return;
    }
    if (dirname(dir) === dir) return;
  }
}

/** The component's own path: its directories from the source root down, and its entry. */
function addComponent(paths: PathSet, component: Component): void {
  const root = component.source.dir;
  for (let dir = component.dir; dir.length > root.length; dir = dirname(dir)) {
    paths.add(dir, true, "identity");
  }
  paths.add(component.entry, true, "identity");
  if (component.entry.endsWith(`${sep}index.ts`)) {
    paths.add(join(component.dir, "index.tsx"), true, "identity");
  }
}

/**
 * From each of `dirs` up to the nearest `package.json`, and up to the nearest `tsconfig.json`
 * or `jsconfig.json`: each candidate recorded present or absent. Further up nothing applies.
 */
function addConfigFiles(paths: PathSet, dirs: Iterable<string>): void {
  const walked = { package: new Set<string>(), tsconfig: new Set<string>() };
  for (const start of dirs) {
    for (let dir = start; !walked.package.has(dir); dir = dirname(dir)) {
      walked.package.add(dir);
      const file = join(dir, "package.json");
      paths.add(file, false, "content");
      if (collectStamp(file, false) !== undefined || dirname(dir) === dir) break;
    }
    for (let dir = start; !walked.tsconfig.has(dir); dir = dirname(dir)) {
      walked.tsconfig.add(dir);
      let found = false;
      // esbuild reads a directory's jsconfig.json only when it has no tsconfig.json file.
      for (const name of ["tsconfig.json", "jsconfig.json"]) {
        const file = join(dir, name);
        paths.add(file, false, "content");
        const stamp = collectStamp(file, false);
        if (stamp !== undefined) {
          found = true;
          addExtends(paths, file, new Set());
          if (!stamp.isDirectory) break;
        }
      }
      if (found || dirname(dir) === dir) break;
    }
  }
}

/** What a tsconfig/jsconfig `extends` (also through further `extends`), when it is there. */
function addExtends(paths: PathSet, config: string, seen: Set<string>): void {
  if (seen.has(config) || seen.size > 16) return;
  seen.add(config);
  let text: string;
  try {
    text = readFileSync(config, "utf8");
  } catch {
    return; // absent (recorded as such) or unreadable
  }
  for (const target of extendsOf(text)) {
    const base = dirname(config);
    const candidates = isPathSpecifier(target)
      ? pathConfigCandidates(resolve(base, target))
      : packageConfigCandidates(paths, base, target);
    for (const candidate of candidates) {
      paths.add(candidate, false, "content");
      addExtends(paths, candidate, seen);
    }
  }
}

/**
 * The files esbuild may read for an `extends` path: the path, and — only when that is not a
 * file and its name does not end in `.json` — the path with `.json` added. Once the path is a
 * file the other never matters (it would only by a change the path's own stamp shows).
 */
function pathConfigCandidates(file: string): string[] {
  if (file.endsWith(".json")) return [file];
  const stamp = collectStamp(file, false);
  return stamp !== undefined && !stamp.isDirectory ? [file] : [file, `${file}.json`];
}

/** A package's config as `extends` names it (`@tsconfig/node22/tsconfig.json`, `pkg`). */
function packageConfigCandidates(paths: PathSet, from: string, target: string): string[] {
  const name = packageName(target);
  if (name === undefined) return [];
  addPackageLookup(paths, from, target);
  for (let dir = from; ; dir = dirname(dir)) {
    const root = join(dir, "node_modules", name);
    if (collectStamp(root, false) !== undefined) {
      const rest = target.slice(name.length).replace(/^\//, "");
      return rest === ""
        ? [join(root, "tsconfig.json"), join(root, "package.json")]
        : [join(root, rest), join(root, `${rest}.json`)];
    }
    if (dirname(dir) === dir) return [];
  }
}

/** The `extends` of a tsconfig's text (JSON with comments): a string or an array of them. */
function extendsOf(text: string): string[] {
  const match = /"extends"\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\])/.exec(text);
  if (match === null) return [];
  try {
    const value = JSON.parse(match[1] as string) as unknown;
    const list = Array.isArray(value) ? value : [value];
    return list.filter((item): item is string => typeof item === "string" && item !== "");
  } catch {
    return [];
  }
}

function sameIdentity(a: FileStamp | undefined, b: FileStamp | undefined): boolean {
  if (a === undefined || b === undefined) return a === b;
  return a.ino === b.ino;
}

// While a record is collected, each path is stat'ed once: the walks up the tree (is there a
// package.json here?) and the record's own stamps share the answers.
let collecting: Map<string, FileStamp | null> | undefined;

function collectStamp(path: string, link: boolean): FileStamp | undefined {
  const key = `${link ? "L" : "F"}${path}`;
  const known = collecting?.get(key);
  if (known !== undefined) return known ?? undefined;
  const stamp = stampOf(path, { link });
  collecting?.set(key, stamp ?? null);
  return stamp;
}

// Stats made in one turn of the event loop hold for every check of that turn: bundles that
// share config files and directories (most of them) stat each once per turn.
let memoTurn = -1;
const memo = new Map<string, FileStamp | null>();

function memoStamp(path: string, { link = false }: { link?: boolean }): FileStamp | undefined {
  const key = `${link ? "L" : "F"}${path}`;
  const hit = turnMemo().get(key);
  if (hit !== undefined) return hit ?? undefined;
  const stamp = stampOf(path, { link });
  memo.set(key, stamp ?? null);
  return stamp;
}

/**
 * A stat taken now, never from the memo (a check that confirms watches), and kept in the memo:
 * a later check of the turn that may share stats takes it as it would one of its own. A warm
 * island's browser bundle (watched) and server bundle (not) have the same inputs: stat once.
 */
function freshStamp(path: string, { link = false }: { link?: boolean }): FileStamp | undefined {
  const stamp = stampOf(path, { link });
  turnMemo().set(`${link ? "L" : "F"}${path}`, stamp ?? null);
  return stamp;
}

/** The memo of this turn's stats, emptied when a new turn begins. */
function turnMemo(): Map<string, FileStamp | null> {
  const turn = currentTurn();
  if (turn !== memoTurn) {
    memo.clear();
    memoTurn = turn;
  }
  return memo;
}
