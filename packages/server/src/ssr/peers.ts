/**
 * The server's React, `react-dom/server`, TanStack Query and `@svc/react`: what rendering on
 * the server needs besides svc, loaded once per process (or render worker) and shared.
 */
import { createRequire } from "node:module";
import { checkPeer, requirePeer } from "../util/peer.ts";
import { perRenderGoober, watchingIds } from "./reactInterop.ts";
import type { SharedModules } from "./serverModule.ts";
import { RENDER_PEERS } from "./workerMessages.ts";

/** The server's own React and svc's React layer, loaded once per process (or worker). */
export interface Peers {
  shared: SharedModules;
  createElement: typeof import("react").createElement;
  Fragment: typeof import("react").Fragment;
  prerender: typeof import("react-dom/static").prerender;
  renderToString: typeof import("react-dom/server").renderToString;
  QueryClient: typeof import("@tanstack/react-query").QueryClient;
  svc: typeof import("@svc/react");
}

let peers: Promise<Peers> | undefined;

/**
 * React, `react-dom/server`, TanStack Query and `@svc/react`, loaded on first use and shared by
 * every handler set of the process. A missing one rejects with the one line that says what to
 * install (and the next call tries again).
 */
export function loadPeers(): Promise<Peers> {
  if (peers === undefined) {
    peers = importPeers();
    peers.catch(() => {
      peers = undefined;
    });
  }
  return peers;
}

async function importPeers(): Promise<Peers> {
  try {
    return await importAll();
  } catch (error) {
    // A package is missing: the one line that says what to install, not a resolution error
    // (svc's React layer first, which a server without any of them misses first).
    for (const id of ["@svc/react", "react", "react-dom", "@tanstack/react-query"]) {
      checkPeer(id, "server-side rendering", RENDER_PEERS);
    }
    throw error;
  }
}

async function importAll(): Promise<Peers> {
  const need = <T>(id: string) => requirePeer<T>(id, "server-side rendering", RENDER_PEERS);
  const react = need<typeof import("react")>("react");
  const staticDom = need<typeof import("react-dom/static")>("react-dom/static");
  const serverDom = need<typeof import("react-dom/server")>("react-dom/server");
  // ES modules, so that svc's React layer and TanStack Query are the very copies that
  // `@svc/react` itself imports.
  const [svc, query] = await Promise.all([import("@svc/react"), import("@tanstack/react-query")]);
  const shared: Record<string, unknown> = {
    react: watchingIds(react),
    "react/jsx-runtime": need("react/jsx-runtime"),
    "react-dom": need("react-dom"),
    "@svc/react": svc,
  };
  const optional = createRequire(import.meta.url);
  for (const id of ["react-dom/client", "goober"]) {
    try {
      shared[id] = optional(id);
    } catch {
      // not installed: a component that imports it fails with a clear message
    }
  }
  const goober = shared.goober as typeof import("goober") | undefined;
  if (goober !== undefined) {
    // goober renders through whatever `setup` gave it, as the loader does in the browser.
    goober.setup(react.createElement);
    shared.goober = perRenderGoober(goober);
  }
  return {
    shared,
    createElement: react.createElement,
    Fragment: react.Fragment,
    prerender: staticDom.prerender,
    renderToString: serverDom.renderToString,
    QueryClient: query.QueryClient,
    svc,
  };
}
