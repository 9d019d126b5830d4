import type { ComponentName } from "@svc/protocol";
import type { HandlerObserver } from "./handlerTypes.ts";

/**
 * Who is told what the handler set answers (live reload learns what to watch this way): which
 * version of which component a client got, and which failed.
 */
export class Observers {
  readonly #observers = new Set<HandlerObserver>();

  get size(): number {
    return this.#observers.size;
  }

  add(observer: HandlerObserver): () => void {
    this.#observers.add(observer);
    return () => this.#observers.delete(observer);
  }

  served(name: ComponentName, hash: string): void {
    for (const observer of this.#observers) observer.served(name, hash);
  }

  failed(name: ComponentName, error: unknown): void {
    for (const observer of this.#observers) observer.failed(name, error);
  }

  /** `work`, with its outcome told to the observers. */
  told<T extends { hash: string }>(name: ComponentName, work: Promise<T>): Promise<T> {
    if (this.#observers.size === 0) return work;
    return work.then(
      (result) => {
        this.served(name, result.hash);
        return result;
      },
      (error: unknown) => {
        this.failed(name, error);
        throw error;
      },
    );
  }
}
