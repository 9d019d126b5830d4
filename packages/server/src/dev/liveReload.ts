import { randomUUID } from "node:crypto";
import type { ComponentName, LiveErrorEvent, LiveEvent } from "@svc/protocol";
import { Freshness } from "../bundling/freshness.ts";
import type { LiveSource } from "../http/eventStream.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { ChangeTriggers } from "./changeTriggers.ts";
import { LoadedComponents } from "./loadedComponents.ts";

export type { LiveErrorEvent, LiveEvent } from "@svc/protocol";

export interface LiveReloadOptions {
  /**
   * Quiet time after a file-system event before a change is announced, in ms. The check starts
   * at once and its build overlaps the wait; an event during it makes the next check announce
   * instead. Default: 5.
   */
  debounceMs?: number;
  /**
   * Interval of the safety-net check while someone listens, in ms: it notices what no watch
   * hears — edits on file systems whose writes raise no event here (network shares, a VM's
   * or Docker Desktop's shared folders; macOS and Windows outside the source roots), or to
   * a file outside the source roots of a component that no build has kept (its first build
   * failed) since someone started listening. Default: 1000; 0 disables it.
   */
  pollMs?: number;
  /**
   * Watch the source roots, and every file the loaded components read outside them (through
   * the dev cache's watches), for changes; else only the poll notices them. Default: true.
   */
  watch?: boolean;
}

/**
 * The live-reload core of a handler set: it learns which components clients have (by
 * observing the handler set) and, while anyone listens to its events, watches the sources
 * and tells listeners which of those components changed (with the new hash), broke or were
 * added and removed. The request handler serves it as `GET {prefix}/events`.
 */
export interface LiveReload extends LiveSource {
  /** Checks now (tests, or after a known change); resolves when its events are out. */
  check(): Promise<void>;
  /** How many listeners are subscribed (each open event stream is one). */
  readonly listeners: number;
  /** Stops watching and forgets every listener. */
  close(): void;
}

/**
 * Only components a client has loaded are checked, and each on its own (see
 * `LoadedComponents`). The registry is re-scanned (without blocking the event loop) when the
 * watcher saw something change in a source root, or at each poll when no watcher runs.
 */
export function createLiveReload(handlers: Handlers, options: LiveReloadOptions = {}): LiveReload {
  return new HandlerSetLiveReload(handlers, options);
}

/**
 * The live reload of one handler set: its listeners, the listing they were last told, the
 * loaded components' checks ({@link LoadedComponents}), and what triggers a check while
 * anyone listens ({@link ChangeTriggers}).
 */
class HandlerSetLiveReload implements LiveReload {
  readonly serverId = randomUUID();
  readonly #handlers: Handlers;
  readonly #listeners = new Set<(event: LiveEvent) => void>();
  readonly #loaded: LoadedComponents;
  readonly #triggers: ChangeTriggers;
  readonly #unobserve: (() => void) | undefined;
  /** The listing listeners were last told (or had at the start). */
  #names: ComponentName[];
  #closed = false;

  constructor(handlers: Handlers, options: LiveReloadOptions) {
    this.#handlers = handlers;
    this.#names = handlers.registry.list().map((c) => c.name);
    this.#triggers = new ChangeTriggers(
      handlers.registry,
      // Its handler set's: the records of its dev cache (a handler set of an app's own has none).
      Freshness.of(handlers).watches,
      {
        debounceMs: options.debounceMs ?? 5,
        pollMs: options.pollMs ?? 1000,
        watch: options.watch !== false,
      },
      () => this.check(),
    );
    this.#loaded = new LoadedComponents(handlers, (event) => this.#emit(event), this.#triggers);
    this.#unobserve = handlers.observe?.(this.#loaded.observer);
  }

  get listeners(): number {
    return this.#listeners.size;
  }

  current(): LiveErrorEvent[] {
    return this.#loaded.errors();
  }

  subscribe(listener: (event: LiveEvent) => void): () => void {
    if (this.#closed) return () => {};
    this.#listeners.add(listener);
    if (this.#listeners.size === 1) this.#triggers.start();
    return () => {
      if (!this.#listeners.delete(listener)) return;
      if (this.#listeners.size === 0) this.#triggers.stop();
    };
  }

  async check(): Promise<void> {
    if (this.#triggers.takeListingStale()) {
      const { registry } = this.#handlers;
      await registry.refreshAsync();
      const current = registry.list().map((c) => c.name);
      if (current.join("\n") !== this.#names.join("\n")) {
        this.#names = current;
        this.#emit({ type: "list", names: current });
      }
    }
    await this.#loaded.checkAll();
  }

  close(): void {
    this.#closed = true;
    // Each stream sends it last, then ends (see `eventStream`).
    this.#emit({ type: "closing" });
    this.#listeners.clear();
    this.#triggers.stop();
    this.#unobserve?.();
  }

  #emit(event: LiveEvent): void {
    for (const listener of this.#listeners) listener(event);
  }
}
