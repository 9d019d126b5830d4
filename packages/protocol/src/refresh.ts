/**
 * React Fast Refresh in development: where the page's refresh runtime is served, and the
 * global it installs, which development bundles register their components with and the
 * hosts (the loader, `@svc/react`) ask to apply a new version in place.
 */

/** `refresh.js`, below the API prefix: the runtime (`react-refresh/runtime`) for one page. */
export const REFRESH_RUNTIME_FILE = "refresh.js";
export const REFRESH_RUNTIME_PATH = `/${REFRESH_RUNTIME_FILE}`;

/** The property of `globalThis` the runtime sets ({@link RefreshGlobal}). */
export const REFRESH_GLOBAL = "__svcRefresh";

/** `globalThis.__svcRefresh`: what `refresh.js` installs, once per page. */
export interface RefreshGlobal {
  /** Registers a component (or hook) under its stable id (what `$RefreshReg$` forwards). */
  register(type: unknown, id: string): void;
  /** A signature function for one component or hook (what `$RefreshSig$` forwards). */
  signature(): (
    type: unknown,
    key?: string,
    forceReset?: boolean,
    hooks?: () => unknown[],
  ) => unknown;
  /**
   * Applies what a new version of a component's module registered, after it was evaluated:
   * true when it was refreshed in place (state of unchanged hooks kept), false when the host
   * must remount it (the module exports something that is not a component, or React could not
   * refresh).
   */
  update(module: Readonly<Record<string, unknown>>): boolean;
  /**
   * The family of a component type (one per registration id): the same object for every
   * version of the component, so a host can keep what it wraps a component in across versions.
   */
  familyOf(type: unknown): object | undefined;
}

/** The page's refresh runtime, when `refresh.js` ran on it. */
export function refreshGlobal(): RefreshGlobal | undefined {
  return (globalThis as { [REFRESH_GLOBAL]?: RefreshGlobal })[REFRESH_GLOBAL];
}
