import { join } from "node:path";
import type { ComponentName, LiveErrorEvent, LiveEvent } from "@svc/protocol";
import { BundleError, InvalidSchemaError, isSvcError } from "../errors.ts";
import type { HandlerObserver, Handlers } from "../service/handlerTypes.ts";
import { stampOf } from "../util/fileStamp.ts";
import type { Quiet } from "./changeTriggers.ts";

/** What a client has of a loaded component: its bundle hash and schema version, or broken. */
type Seen = { hash: string; schema: string } | "broken";

/**
 * The components clients have loaded, as live reload follows them: what each client has
 * (learnt by observing the handler set), and each one's check, which says what changed.
 * Only these are checked, and each on its own: editing one file never bundles the whole tree,
 * and one component whose build hangs (until its time limit) delays no other's news. A check
 * announces what it found only once the files are quiet ({@link Quiet}).
 */
export class LoadedComponents {
  readonly #handlers: Handlers;
  readonly #emit: (event: LiveEvent) => void;
  readonly #quiet: Quiet;
  readonly #seen = new Map<ComponentName, Seen>();
  /** The last error event of each loaded component that does not build now. */
  readonly #broken = new Map<ComponentName, LiveErrorEvent>();
  /** Per component: the check running, and whether another was asked for meanwhile. */
  readonly #checking = new Map<ComponentName, { running: Promise<void>; again: boolean }>();

  /** What the handler set tells: which component a client got, and which failed. */
  readonly observer: HandlerObserver = {
    served: (name, hash) => {
      if (!this.#seen.has(name)) this.#seen.set(name, { hash, schema: this.#schemaVersion(name) });
    },
    // A component broken on its first request is followed too, so that its fix is announced.
    failed: (name, error) => {
      if (this.#seen.has(name) || !isReported(error)) return;
      this.#seen.set(name, "broken");
      this.#report(name, error);
    },
  };

  /** `emit` sends an event to every listener; `quiet` says when what a check found holds. */
  constructor(handlers: Handlers, emit: (event: LiveEvent) => void, quiet: Quiet) {
    this.#handlers = handlers;
    this.#emit = emit;
    this.#quiet = quiet;
  }

  /** The error events of the loaded components that are broken now. */
  errors(): LiveErrorEvent[] {
    return [...this.#broken.values()];
  }

  /** Checks every loaded component; resolves when their events are out. */
  checkAll(): Promise<unknown> {
    return Promise.all([...this.#seen.keys()].map((name) => this.#schedule(name)));
  }

  /** Runs `#check(name)` unless it runs already (then once more after it). */
  #schedule(name: ComponentName): Promise<void> {
    const current = this.#checking.get(name);
    if (current !== undefined) {
      current.again = true;
      return current.running;
    }
    const state = { running: Promise.resolve(), again: false };
    state.running = this.#check(name)
      .catch((error: unknown) =>
        this.#handlers.logger.error(`svc: live reload check of ${name} failed`, error),
      )
      .finally(() => {
        this.#checking.delete(name);
        if (state.again) void this.#schedule(name);
      });
    this.#checking.set(name, state);
    return state.running;
  }

  /** Re-checks one loaded component; resolves when its event (if any) is out. */
  async #check(name: ComponentName): Promise<void> {
    const before = this.#seen.get(name);
    if (before === undefined) return;
    const handlers = this.#handlers;
    // Files that change again before the check is done make it stale: then it says nothing,
    // and the check the change starts says what holds (a save in steps is told once, whole).
    const mark = this.#quiet.mark();
    if (handlers.registry.revalidate(name) === undefined) {
      if (await this.#quiet.settled(mark)) {
        this.#seen.delete(name);
        this.#broken.delete(name);
      }
      return;
    }
    try {
      const { hash } = await handlers.getBundle(name);
      const schema = this.#schemaVersion(name);
      if (before !== "broken" && before.hash === hash && before.schema === schema) return;
      // The schema changed (or the component was broken): read it again, it may be broken now.
      if (before === "broken" || before.schema !== schema) await handlers.getMetadata(name);
      if (!(await this.#quiet.settled(mark))) return;
      this.#seen.set(name, { hash, schema });
      this.#broken.delete(name);
      this.#emit({ type: "change", name, hash });
    } catch (error) {
      if (!(await this.#quiet.settled(mark))) return;
      this.#seen.set(name, "broken");
      this.#report(name, error);
    }
  }

  #report(name: ComponentName, error: unknown): void {
    const event = errorEvent(name, error);
    if (this.#broken.get(name)?.message === event.message) return;
    this.#broken.set(name, event);
    this.#emit(event);
  }

  /** A string that changes whenever `name`'s `schema.json` may have (its stamp), unread. */
  #schemaVersion(name: ComponentName): string {
    const component = this.#handlers.registry.get(name);
    const stamp = component && stampOf(join(component.dir, "schema.json"));
    return stamp === undefined
      ? ""
      : `${stamp.ino}:${stamp.size}:${stamp.mtimeNs}:${stamp.ctimeNs}`;
  }
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
