/**
 * The messages between the render pool (the server's thread) and its render workers. A worker
 * renders; everything it needs of the components — a server bundle, metadata — it asks the
 * server's thread for, which owns the caches and esbuild.
 *
 * Each side posts the messages of one turn (of its microtasks) as one array: a page's islands,
 * rendered at once, cross the threads in a message or two instead of three each — and arrive
 * in the worker together, so they render there in one batch, as in the server's thread.
 */

/** A version of a component's server bundle, as a worker gets it. */
export interface ModuleVersion {
  name: string;
  /** The server bundle's content hash: the version. */
  serverHash: string;
  /** The browser bundle's hash, which the island names for hydration. */
  hash: string;
  /** The code; left out when the worker has this version already. */
  code?: Uint8Array;
}

/** The server's thread → a worker. */
export type ToWorker =
  | {
      type: "render";
      id: number;
      props: Record<string, unknown>;
      /** Where the components' asset URLs start (see `RenderJob.filesRoot`). */
      filesRoot: string;
      module: ModuleVersion;
      /** The component's metadata, which the server's thread read to check the props. */
      metadata: unknown;
    }
  | { type: "module"; request: number; module: ModuleVersion }
  | { type: "metadata"; request: number; metadata: unknown }
  | { type: "refused"; request: number; message: string };

/** A worker → the server's thread. */
export type FromWorker =
  | { type: "load"; request: number; name: string }
  | { type: "loadMetadata"; request: number; name: string }
  /** Render `id` waits (on a nested component, a promise): no code of it runs meanwhile. */
  | { type: "waiting"; id: number }
  | {
      type: "rendered";
      id: number;
      html: string;
      /** CSS-in-JS rules the render made (goober's), for a `<style>` before the island. */
      styles: string;
      /** The browser bundle hash of every component the render loaded, the island's own too. */
      loaded: Record<string, string>;
    }
  | { type: "failed"; id: number; failure: RenderFailure }
  /**
   * The worker has loaded React and the rest (or failed to: its renders say why), and is
   * ready to render.
   */
  | { type: "ready" };

/** Why a render failed, as a worker reports it. */
export type RenderFailure =
  /** A request of the worker's the server's thread refused: it rethrows its own error. */
  | { refused: number }
  /** The component threw: what its `RenderError` is made of. */
  | { component: string; message: string; stack?: string }
  /** It waited past its time limit. */
  | { timeout: number }
  /** The peers (React, …) cannot be loaded in the worker. */
  | { setup: string };

/**
 * What a worker and the server's thread share, as slots of an `Int32Array` over a
 * `SharedArrayBuffer`: the server's thread reads them while the worker is stuck, when no
 * message can come. Times are milliseconds since the pool began (see `WorkerStart.epoch`).
 */
export const SLOT = {
  /** The render whose code runs synchronously now (-1: a batch of several; 0: none). */
  running: 0,
  /** When that code began. */
  since: 1,
  /** When the worker's event loop last turned (a timer of its own, and each render's end). */
  beat: 2,
} as const;
export const SLOTS = 3;

/** What a worker starts with (`workerData`). */
export interface WorkerStart {
  slots: SharedArrayBuffer;
  /** When the pool began, on the clock every thread reads alike (`renderPool.ts` `clock`). */
  epoch: number;
  timeoutMs: number;
}

/** What rendering on the server needs installed beside `@svc/server` (an `npm install` line). */
export const RENDER_PEERS = "react react-dom @tanstack/react-query @svc/react";
