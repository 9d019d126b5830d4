/**
 * The messages between the island renderer (the server's thread) and its render worker. The
 * worker renders; everything it needs of the components — a server bundle, metadata — it asks
 * the server's thread for, which owns the caches and esbuild.
 *
 * Each side posts the messages of one turn (of its microtasks) as one array: a page's islands,
 * rendered at once, cross the threads in a message or two instead of three each.
 */

/** A version of a component's server bundle, as the worker gets it. */
export interface ModuleVersion {
  name: string;
  /** The server bundle's content hash: the version. */
  serverHash: string;
  /** The browser bundle's hash, which the island names for hydration. */
  hash: string;
  /** The code; left out when the worker has this version already. */
  code?: string;
}

/** The server's thread → the worker. */
export type ToWorker =
  | {
      type: "render";
      id: number;
      props: Record<string, unknown>;
      /** The API base the components' asset URLs start with (`/api`, or a CDN's URL). */
      apiBase: string;
      module: ModuleVersion;
      /** The component's metadata, which the server's thread read to check the props. */
      metadata: unknown;
    }
  | { type: "abort"; id: number }
  | { type: "module"; request: number; module: ModuleVersion }
  | { type: "metadata"; request: number; metadata: unknown }
  | { type: "refused"; request: number; message: string }
  | { type: "ping"; id: number };

/** The worker → the server's thread. */
export type FromWorker =
  /** The worker took up render `id`: from now on, its time runs. */
  | { type: "started"; id: number }
  | { type: "load"; request: number; render: number; name: string; have?: string }
  | { type: "loadMetadata"; request: number; render: number; name: string }
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
  | { type: "pong"; id: number }
  /**
   * The worker has loaded React and the rest (or failed to): until then, a render's time does
   * not run out, and a slow start is not taken for a component stuck in a loop.
   */
  | { type: "ready" };

/** Why a render failed, as the worker reports it. */
export type RenderFailure =
  /** A request of the worker's the server's thread refused: it rethrows its own error. */
  | { refused: number }
  /** The component threw: its message and stack, mapped to the component's files. */
  | { component: string; message: string; stack?: string }
  /** The peers (React, …) cannot be loaded in the worker. */
  | { setup: string };

/** What rendering on the server needs installed beside `@svc/server` (an `npm install` line). */
export const RENDER_PEERS = "react react-dom @tanstack/react-query @svc/react";
