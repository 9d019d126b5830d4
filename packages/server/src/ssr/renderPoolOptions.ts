/** The render pool's options, their defaults, and the numbers it is tuned by. */
import { availableParallelism } from "node:os";

export interface RenderPoolOptions {
  /** How long one render may run or wait, from when its worker takes it up. */
  timeoutMs: number;
  /** Workers in the pool. */
  size: number;
  /** Renders that may wait for a worker; past that, new ones fail with `Overloaded`. */
  queueLimit: number;
  /** Each worker's heap limit, in MiB: a render that exhausts it fails, not the server. */
  memoryMb: number;
  /**
   * A worker is replaced once the versions replaced in it (a component edited, a new build)
   * add up to this many bytes of code.
   */
  recycleBytes: number;
}

/** Defaults of {@link RenderPoolOptions} the island renderer does not set itself. */
export const POOL_DEFAULTS = {
  /** One worker per core the process may use. */
  size: () => availableParallelism(),
  queueLimit: 1024,
  memoryMb: 512,
  recycleBytes: 16 * 1024 * 1024,
} as const;

/**
 * Renders one worker holds at once; the others wait in the pool's queue for whichever worker
 * frees up first. Enough for a page's islands to arrive in a worker together and render in one
 * batch; few enough that one worker's backlog stays short.
 */
export const PER_WORKER = 32;
/** How often the pool looks at the workers it has renders on. */
export const WATCH_MS = 100;
/** Times a render is sent again after the worker it was on stopped for another's sake. */
export const MAX_RETRIES = 2;
/** How long a shutdown waits for the renders in flight, by default. */
export const CLOSE_GRACE_MS = 10_000;
