import { randomUUID } from "node:crypto";
import { type FSWatcher, watch } from "node:fs";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { LiveErrorEvent, LiveEvent } from "@svc/protocol";
import type { ComponentName } from "../components/names.ts";
import { BundleError, InvalidSchemaError, isSvcError } from "../errors.ts";
import type { Handlers } from "../http/handlers.ts";

export type { LiveErrorEvent, LiveEvent } from "@svc/protocol";

export interface LiveReloadOptions {
  /** Quiet time after a file-system event before checking, in ms. Default: 30. */
  debounceMs?: number;
  /**
   * Interval of the safety-net check, in ms, which also notices edits to files outside the
   * watched source roots (shared helpers, packages). Default: 1000; 0 disables it.
   */
  pollMs?: number;
}

export interface LiveReload {
  /** The handler set to serve through: it remembers which components clients have loaded. */
  readonly handlers: Handlers;
  /** Receives every event; returns the unsubscribe function. */
  subscribe(listener: (event: LiveEvent) => void): () => void;
  /** Checks now (tests, or after a known change); resolves when the events are out. */
  check(): Promise<void>;
  /** Answers `GET …/events` with a server-sent event stream. */
  serveEvents(req: IncomingMessage, res: ServerResponse): void;
  close(): void;
}

/**
 * Watches every source root and tells subscribers which loaded components changed, with
 * their new hash. Only components a client has loaded are rebuilt to find out: editing one
 * file never bundles the whole tree.
 */
export function createLiveReload(inner: Handlers, options: LiveReloadOptions = {}): LiveReload {
  const serverId = randomUUID();
  const listeners = new Set<(event: LiveEvent) => void>();
  /**
   * name → what clients have of each loaded component: the metadata JSON last seen (bundle
   * hash and schema), `hash:<hash>` when only the bundle was fetched, "" while it is broken.
   */
  const seen = new Map<ComponentName, string>();
  /** name → the last error event, for loaded components that do not bundle now. */
  const broken = new Map<ComponentName, LiveErrorEvent>();
  let names = inner.registry.list().map((c) => c.name);
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | undefined;
  let again = false;

  const emit = (event: LiveEvent) => {
    for (const listener of listeners) listener(event);
  };

  // The bundle's hash is enough to notice a change; asking for its metadata here could
  // build the bundle a second time (a build of just-written files is not cached).
  const remember = (name: ComponentName, hash: string) => {
    if (!seen.has(name)) seen.set(name, `${HASH_ONLY}${hash}`);
  };

  /** A component broken on its first request is tracked too, so that its fix is announced. */
  const failed = (name: ComponentName, error: unknown) => {
    if (seen.has(name)) return;
    if (!(error instanceof BundleError || error instanceof InvalidSchemaError)) return;
    seen.set(name, "");
    const event = errorEvent(name, error);
    broken.set(name, event);
    emit(event);
  };

  const handlers: Handlers = {
    ...inner,
    async getBundle(name) {
      try {
        const bundle = await inner.getBundle(name);
        remember(name, bundle.hash);
        return bundle;
      } catch (error) {
        failed(name, error);
        throw error;
      }
    },
    async getMetadata(name) {
      try {
        const metadata = await inner.getMetadata(name);
        seen.set(name, JSON.stringify(metadata));
        return metadata;
      } catch (error) {
        failed(name, error);
        throw error;
      }
    },
  };

  async function runCheck(): Promise<void> {
    inner.registry.refresh();
    const current = inner.registry.list().map((c) => c.name);
    if (current.join("\n") !== names.join("\n")) {
      names = current;
      emit({ type: "list", names });
    }
    for (const [name, before] of seen) {
      if (!names.includes(name)) {
        seen.delete(name);
        broken.delete(name);
        continue;
      }
      try {
        const metadata = await inner.getMetadata(name);
        const after = JSON.stringify(metadata);
        broken.delete(name);
        seen.set(name, after);
        const changed = before.startsWith(HASH_ONLY)
          ? metadata.hash !== before.slice(HASH_ONLY.length)
          : after !== before;
        if (changed) emit({ type: "change", name, hash: metadata.hash });
      } catch (error) {
        seen.set(name, "");
        const event = errorEvent(name, error);
        if (before !== "" || broken.get(name)?.message !== event.message) {
          broken.set(name, event);
          emit(event);
        }
      }
    }
  }

  function check(): Promise<void> {
    if (running) {
      again = true;
      return running;
    }
    running = runCheck()
      .catch((error: unknown) => inner.logger.error("svc: live reload check failed", error))
      .finally(() => {
        running = undefined;
        if (again) {
          again = false;
          void check();
        }
      });
    return running;
  }

  const schedule = () => {
    clearTimeout(timer);
    timer = setTimeout(() => void check(), options.debounceMs ?? 30);
  };

  const watchers: FSWatcher[] = [];
  for (const source of inner.registry.sources) {
    try {
      const watcher = watch(source.dir, { recursive: true }, (_event, file) => {
        if (file && /(^|[/\\])(node_modules|\.[^/\\]*)([/\\]|$)/.test(String(file))) return;
        schedule();
      });
      watcher.on("error", () => watcher.close());
      watchers.push(watcher);
    } catch (error) {
      inner.logger.warn(
        `cannot watch ${source.dir} (${(error as Error).message}); changes are noticed by polling`,
      );
    }
  }
  const pollMs = options.pollMs ?? 1000;
  const poll = pollMs > 0 ? setInterval(() => void check(), pollMs) : undefined;
  poll?.unref();

  return {
    handlers,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    check,
    serveEvents(req, res) {
      res.writeHead(200, {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-cache",
        connection: "keep-alive",
        "x-accel-buffering": "no",
      });
      const send = (event: LiveEvent) => {
        res.write(`data: ${JSON.stringify(event)}\n\n`);
      };
      res.write("retry: 1000\n\n");
      send({ type: "hello", server: serverId });
      // A page opened (or reconnected) while a component is broken learns it at once.
      for (const event of broken.values()) send(event);
      const unsubscribe = this.subscribe(send);
      const keepAlive = setInterval(() => res.write(": keep-alive\n\n"), 15_000);
      keepAlive.unref();
      const end = () => {
        clearInterval(keepAlive);
        unsubscribe();
      };
      req.on("close", end);
      res.on("error", end);
    },
    close() {
      clearTimeout(timer);
      if (poll) clearInterval(poll);
      for (const watcher of watchers) watcher.close();
      listeners.clear();
    },
  };
}

const HASH_ONLY = "hash:";

function errorEvent(name: string, error: unknown): LiveErrorEvent {
  const kind = isSvcError(error) ? error.kind : "InternalError";
  const message = error instanceof Error ? error.message : String(error);
  const event: LiveErrorEvent = { type: "error", name, error: kind, message };
  if (error instanceof BundleError) {
    event.locations = error.errors.filter((location) => location.file !== undefined);
  }
  return event;
}
