/**
 * The freshness state of one handler set: what its dev cache (and live reload, through it)
 * keeps to know, cheaply and exactly, when a bundle's files changed (the rule:
 * `bundleInputs.ts`, docs/DECISIONS.md).
 *
 * - `stats`: the stats of the current turn, shared by every record check of the turn
 *   (`turnStats.ts`);
 * - `watches`: the directory watches of its records, and who hears of their changes
 *   (`dirWatches.ts`).
 *
 * Owned by the handler set, so two handler sets in one process never share it and a test's
 * never leaks into the next. Two pieces are process-wide on purpose, each in one module: the
 * event loop's turns (`util/loopTurn.ts`: there is one loop), and the `fs.watch` per directory
 * that records of every handler set share (`watchPool.ts`: the inotify limit is per user).
 */
import { DirWatches, unownedWatches } from "./dirWatches.ts";
import { TurnStats } from "./turnStats.ts";

export class Freshness {
  readonly stats: TurnStats;
  readonly watches: DirWatches;

  constructor(parts: { stats?: TurnStats; watches?: DirWatches } = {}) {
    this.stats = parts.stats ?? new TurnStats();
    this.watches = parts.watches ?? new DirWatches();
  }

  /**
   * The freshness of `owner` (a handler set), made on its first call. How the parts of a
   * handler set find the one it owns when they are given only the handler set (live reload
   * is given a `Handlers`, an interface an app may implement: its own has one of its own).
   */
  static of(owner: object): Freshness {
    let freshness = owned.get(owner);
    if (freshness === undefined) {
      freshness = new Freshness();
      owned.set(owner, freshness);
    }
    return freshness;
  }
}

/** Each owner's freshness; an entry goes with its owner. */
const owned = new WeakMap<object, Freshness>();

/**
 * The freshness of parts made without a handler set — a `BundleCache` or `BundleInputs` made
 * directly (tests), a build directory's manifest watch, `watchRecord`/`onRecordChange` of
 * `dirWatches.ts` — which they share. A handler set never uses it.
 */
export const unownedFreshness = new Freshness({ watches: unownedWatches });
