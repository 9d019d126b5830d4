import type { DirWatches } from "../bundling/dirWatches.ts";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import { type SourceWatcher, watchSources } from "./sourceWatcher.ts";

export interface ChangeTriggerOptions {
  /** Quiet time after a file-system event before checking, in ms. */
  debounceMs: number;
  /** Interval of the safety-net check, in ms; 0: none. */
  pollMs: number;
  /** Watch the source roots and the handler set's records; else only the poll runs. */
  watch: boolean;
}

/**
 * When live reload checks, while anyone listens: soon after an event in a source root (its
 * watcher) or in a directory of a loaded component's record (the dev cache's watches, which
 * hear files outside the source roots: a shared folder, the project's `tsconfig.json`, a
 * linked package), and at every poll (what no watch hears).
 */
export class ChangeTriggers {
  readonly #registry: ComponentRegistry;
  readonly #records: DirWatches;
  readonly #options: ChangeTriggerOptions;
  readonly #check: () => Promise<void>;
  #watcher: SourceWatcher | undefined;
  #stopHearing: (() => void) | undefined;
  #poll: NodeJS.Timeout | undefined;
  #debounce: NodeJS.Timeout | undefined;
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

  stop(): void {
    clearTimeout(this.#debounce);
    clearInterval(this.#poll);
    this.#poll = undefined;
    this.#watcher?.close();
    this.#watcher = undefined;
    this.#stopHearing?.();
    this.#stopHearing = undefined;
  }

  /** A check once events have been quiet for a moment (`listing`: an entry came or went). */
  #soon(listing: boolean): void {
    if (listing) this.#listingStale = true;
    clearTimeout(this.#debounce);
    this.#debounce = setTimeout(() => void this.#check(), this.#options.debounceMs);
  }
}
