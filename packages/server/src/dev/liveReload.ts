import { randomUUID } from "node:crypto";
import { join } from "node:path";
import type { ComponentName, LiveErrorEvent, LiveEvent } from "@svc/protocol";
import { onRecordChange } from "../bundling/dirWatches.ts";
import { BundleError, InvalidSchemaError, isSvcError } from "../errors.ts";
import type { LiveSource } from "../http/eventStream.ts";
import type { HandlerObserver, Handlers } from "../service/handlerTypes.ts";
import { stampOf } from "../util/fileStamp.ts";
import { type SourceWatcher, watchSources } from "./sourceWatcher.ts";

export type { LiveErrorEvent, LiveEvent } from "@svc/protocol";

export interface LiveReloadOptions {
  /** Quiet time after a file-system event before checking, in ms. Default: 15. */
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

/** What a client has of a loaded component: its bundle hash and schema stamp, or broken. */
type Seen = { hash: string; schema: string } | "broken";

/**
 * Only components a client has loaded are checked, and each on its own: editing one file never
 * bundles the whole tree, and one component whose build hangs (until its time limit) delays
 * no other's news. The registry is re-scanned (without blocking the event loop) when the
 * watcher saw something change in a source root, or at each poll when no watcher runs.
 */
export function createLiveReload(handlers: Handlers, options: LiveReloadOptions = {}): LiveReload {
  const { registry, logger } = handlers;
  const serverId = randomUUID();
  const listeners = new Set<(event: LiveEvent) => void>();
  const seen = new Map<ComponentName, Seen>();
  /** The last error event of each loaded component that does not build now. */
  const broken = new Map<ComponentName, LiveErrorEvent>();
  /** Per component: the check running, and whether another was asked for meanwhile. */
  const checking = new Map<ComponentName, { running: Promise<void>; again: boolean }>();
  let names = registry.list().map((c) => c.name);
  let listingStale = false;
  let watcher: SourceWatcher | undefined;
  let stopHearing: (() => void) | undefined;
  let poll: NodeJS.Timeout | undefined;
  let debounce: NodeJS.Timeout | undefined;
  let closed = false;

  const emit = (event: LiveEvent) => {
    for (const listener of listeners) listener(event);
  };

  const schemaStamp = (name: ComponentName): string => {
    const component = registry.get(name);
    const stamp = component && stampOf(join(component.dir, "schema.json"));
    return stamp === undefined
      ? ""
      : `${stamp.ino}:${stamp.size}:${stamp.mtimeNs}:${stamp.ctimeNs}`;
  };

  const observer: HandlerObserver = {
    served(name, hash) {
      if (!seen.has(name)) seen.set(name, { hash, schema: schemaStamp(name) });
    },
    // A component broken on its first request is followed too, so that its fix is announced.
    failed(name, error) {
      if (seen.has(name) || !isReported(error)) return;
      seen.set(name, "broken");
      report(name, error);
    },
  };
  const unobserve = handlers.observe?.(observer);

  function report(name: ComponentName, error: unknown): void {
    const event = errorEvent(name, error);
    if (broken.get(name)?.message === event.message) return;
    broken.set(name, event);
    emit(event);
  }

  /** Re-checks one loaded component; resolves when its event (if any) is out. */
  async function checkOne(name: ComponentName): Promise<void> {
    const before = seen.get(name);
    if (before === undefined) return;
    if (registry.revalidate(name) === undefined) {
      seen.delete(name);
      broken.delete(name);
      return;
    }
    try {
      const { hash } = await handlers.getBundle(name);
      const schema = schemaStamp(name);
      if (before !== "broken" && before.hash === hash && before.schema === schema) return;
      // The schema changed (or the component was broken): read it again, it may be broken now.
      if (before === "broken" || before.schema !== schema) await handlers.getMetadata(name);
      seen.set(name, { hash, schema });
      broken.delete(name);
      emit({ type: "change", name, hash });
    } catch (error) {
      seen.set(name, "broken");
      report(name, error);
    }
  }

  /** Runs `checkOne(name)` unless it runs already (then once more after it). */
  function schedule(name: ComponentName): Promise<void> {
    const current = checking.get(name);
    if (current !== undefined) {
      current.again = true;
      return current.running;
    }
    const state = { running: Promise.resolve(), again: false };
    state.running = checkOne(name)
      .catch((error: unknown) => logger.error(`svc: live reload check of ${name} failed`, error))
      .finally(() => {
        checking.delete(name);
        if (state.again) void schedule(name);
      });
    checking.set(name, state);
    return state.running;
  }

  async function check(): Promise<void> {
    if (listingStale || watcher === undefined) {
      listingStale = false;
      await registry.refreshAsync();
      const current = registry.list().map((c) => c.name);
      if (current.join("\n") !== names.join("\n")) {
        names = current;
        emit({ type: "list", names });
      }
    }
    await Promise.all([...seen.keys()].map(schedule));
  }

  const soon = (listing: boolean) => {
    if (listing) listingStale = true;
    clearTimeout(debounce);
    debounce = setTimeout(() => void check(), options.debounceMs ?? 15);
  };

  function start(): void {
    if (options.watch !== false) {
      watcher = watchSources(
        registry.sources.map((source) => source.dir),
        (listing) => soon(listing),
      );
      // Changes made while the watches were being set up raise no event: look once they are.
      void watcher.ready.then(() => soon(true));
      // Files outside the source roots that loaded components read (a shared folder, the
      // project's tsconfig.json, a linked package): the dev cache's watches hear them.
      stopHearing = onRecordChange(() => soon(false));
    }
    const pollMs = options.pollMs ?? 1000;
    if (pollMs > 0) {
      poll = setInterval(() => void check(), pollMs);
      poll.unref();
    }
  }

  function stop(): void {
    clearTimeout(debounce);
    clearInterval(poll);
    poll = undefined;
    watcher?.close();
    watcher = undefined;
    stopHearing?.();
    stopHearing = undefined;
  }

  return {
    serverId,
    current: () => [...broken.values()],
    subscribe(listener) {
      if (closed) return () => {};
      listeners.add(listener);
      if (listeners.size === 1) start();
      return () => {
        if (!listeners.delete(listener)) return;
        if (listeners.size === 0) stop();
      };
    },
    get listeners() {
      return listeners.size;
    },
    check,
    close() {
      closed = true;
      // Each stream sends it last, then ends (see `eventStream`).
      emit({ type: "closing" });
      listeners.clear();
      stop();
      unobserve?.();
    },
  };
}

/** Errors a client is told about as `error` events: the ones a save can cause and fix. */
function isReported(error: unknown): boolean {
  return error instanceof BundleError || error instanceof InvalidSchemaError;
}

function errorEvent(name: string, error: unknown): LiveErrorEvent {
  const kind = isSvcError(error) ? error.kind : "InternalError";
  const message = error instanceof Error ? error.message : String(error);
  const event: LiveErrorEvent = { type: "error", name, error: kind, message };
  if (error instanceof BundleError) {
    event.locations = error.errors.filter((location) => location.file !== undefined);
  }
  return event;
}
