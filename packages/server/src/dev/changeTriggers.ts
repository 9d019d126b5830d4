import type { DirWatches } from "../bundling/dirWatches.ts";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import { type SourceWatcher, watchSources } from "./sourceWatcher.ts";

export interface ChangeTriggerOptions {
  /** Quiet time after a file-system event before a check's outcome is announced, in ms. */
  debounceMs: number;
  /** Interval of the safety-net check, in ms; 0: none. */
  pollMs: number;
  /** Watch the source roots and the handler set's records; else only the poll runs. */
  watch: boolean;
}

/**
 * What a check asks of the triggers before it announces anything: whether the files stayed
 * quiet since it began (see {@link ChangeTriggers.settled}).
 */
export interface Quiet {
  /** A mark of the events heard so far. */
  mark(): number;
  /**
   * Resolves true once no event has come for the quiet time and none since `mark`; false when
   * one came since `mark` (the check that took it read files that changed again: another
   * check follows).
   */
  settled(mark: number): Promise<boolean>;
}

/**
 * When live reload checks, while anyone listens: at once after the events of a poll phase in a
 * source root (its watcher) or in a directory of a loaded component's record (the dev cache's
 * watches, which hear files outside the source roots: a shared folder, the project's
 * `tsconfig.json`, a linked package), and at every poll (what no watch hears).
 *
 * A check starts at once, not after a quiet time: its build overlaps the wait. What it finds
 * is announced once the files were quiet for `debounceMs` ({@link settled}); an event since it
 * began makes it announce nothing, and the check that event starts announces instead. So the
 * steps of a save (a temporary file, then a rename) are announced as one when each comes
 * within the quiet time or while the check runs, and one save costs one build.
 */
export class ChangeTriggers implements Quiet {
  readonly #registry: ComponentRegistry;
  readonly #records: DirWatches;
  readonly #options: ChangeTriggerOptions;
  readonly #check: () => Promise<void>;
  #watcher: SourceWatcher | undefined;
  #stopHearing: (() => void) | undefined;
  #poll: NodeJS.Timeout | undefined;
  /** The check that follows the events of this poll phase, once they are all in. */
  #pending: NodeJS.Immediate | undefined;
  /** Events heard so far, and when the last one came (`performance.now()`). */
  #heard = 0;
  #lastHeardAt = -Infinity;
  /** An event may have added or removed a component since the last re-scan. */
  #listingStale = false;

  /**
   * @param records the handler set's record watches (its `Freshness`)
   * @param check what a trigger runs
   */
  constructor(
    registry: ComponentRegistry,
    records: DirWatches,
    options: ChangeTriggerOptions,
    check: () => Promise<void>,
  ) {
    this.#registry = registry;
    this.#records = records;
    this.#options = options;
    this.#check = check;
  }

  /**
   * Whether the next check must re-scan the registry: something changed in a source root's
   * listing, or no watcher tells. Asking clears it.
   */
  takeListingStale(): boolean {
    const stale = this.#listingStale || this.#watcher === undefined;
    this.#listingStale = false;
    return stale;
  }

  start(): void {
    if (this.#options.watch) {
      this.#watcher = watchSources(
        this.#registry.sources.map((source) => source.dir),
        (listing) => this.#soon(listing),
      );
      // Changes made while the watches were being set up raise no event: look once they are.
      void this.#watcher.ready.then(() => this.#soon(true));
      this.#stopHearing = this.#records.onRecordChange(() => this.#soon(false));
    }
    if (this.#options.pollMs > 0) {
      this.#poll = setInterval(() => void this.#check(), this.#options.pollMs);
      this.#poll.unref();
    }
  }

  mark(): number {
    return this.#heard;
  }

  async settled(mark: number): Promise<boolean> {
    for (;;) {
      if (this.#heard !== mark) return false;
      const wait = this.#lastHeardAt + this.#options.debounceMs - performance.now();
      if (wait <= 0) return true;
      await new Promise((resolve) => setTimeout(resolve, wait));
    }
  }

  stop(): void {
    clearImmediate(this.#pending);
    this.#pending = undefined;
    clearInterval(this.#poll);
    this.#poll = undefined;
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#stopHearing?.();
    this.#stopHearing = undefined;
  }

  /**
   * A check once this poll phase's events are all in (one save's come together), so that one
   * save starts one check (`listing`: an entry came or went).
   */
  #soon(listing: boolean): void {
    if (listing) this.#listingStale = true;
    this.#heard++;
    this.#lastHeardAt = performance.now();
    this.#pending ??= setImmediate(() => {
      this.#pending = undefined;
      void this.#check();
    });
  }
}
