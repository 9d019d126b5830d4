/**
 * React Fast Refresh in `loader.dev.js`. The refresh runtime (`refresh.js`, served by the API)
 * must see the page's React from the start, but the loader carries react-dom and evaluates it
 * before it could fetch anything: so, evaluated first (`loader.tsx` imports this module before
 * anything else), this module sets up React's DevTools hook where there is none — React then
 * registers its renderer with it — and notes the roots React commits. A page following live
 * reload then loads the runtime ({@link loadRefreshRuntime}), which takes the renderer from
 * the hook; the roots noted so far are handed to it as if just committed. In `loader.js`
 * (production React, which cannot refresh) all of this is left out by the build.
 */
import { REFRESH_RUNTIME_PATH, refreshGlobal } from "@svc/protocol";
import { importCode } from "@svc/runtime";

// Replaced by the build.
declare const process: { env: { NODE_ENV?: string } };

/** What React expects of `__REACT_DEVTOOLS_GLOBAL_HOOK__`, as far as svc uses it. */
interface DevtoolsHook {
  renderers: Map<number, unknown>;
  supportsFiber: boolean;
  inject(renderer: unknown): number;
  onScheduleFiberRoot?(id: number, root: object, children: unknown): void;
  onCommitFiberRoot(id: number, root: object, priority?: unknown, didError?: boolean): void;
  onCommitFiberUnmount(id: number, fiber: unknown): void;
}

type HookHost = { __REACT_DEVTOOLS_GLOBAL_HOOK__?: DevtoolsHook };

/** The roots React committed before the runtime was there, with their renderer's id. */
const committed = new Map<object, number>();

if (process.env.NODE_ENV !== "production" && typeof window !== "undefined") prepareHook();

function prepareHook(): void {
  const host = window as unknown as HookHost;
  let hook = host.__REACT_DEVTOOLS_GLOBAL_HOOK__;
  if (hook === undefined) {
    let nextId = 0;
    const renderers = new Map<number, unknown>();
    hook = {
      renderers,
      supportsFiber: true,
      inject(renderer) {
        const id = nextId++;
        renderers.set(id, renderer);
        return id;
      },
      onScheduleFiberRoot() {},
      onCommitFiberRoot() {},
      onCommitFiberUnmount() {},
    };
    host.__REACT_DEVTOOLS_GLOBAL_HOOK__ = hook;
  }
  const commit = hook.onCommitFiberRoot;
  hook.onCommitFiberRoot = function (this: DevtoolsHook, id, root, ...rest) {
    if (refreshGlobal() === undefined) committed.set(root, id);
    return commit.call(this, id, root, ...rest);
  };
}

/** The runtime, loaded once per page (again after a failure). */
let loading: Promise<void> | undefined;

/**
 * Loads `refresh.js` from `apiBase` (once per page), imported from `blob:` as bundles are (the
 * same CSP), then hands it the roots committed so far. Resolves either way, and is not tried
 * again: without the runtime, live reload remounts as it always did.
 */
export function loadRefreshRuntime(apiBase: string): Promise<void> {
  loading ??= (async () => {
    if (refreshGlobal() !== undefined) return;
    try {
      const response = await fetch(`${apiBase}${REFRESH_RUNTIME_PATH}`);
      if (!response.ok) throw new Error(`GET ${response.url} → ${response.status}`);
      await importCode(await response.text());
    } catch (error) {
      console.warn("svc: Fast Refresh is off, live reload remounts components:", error);
      return;
    }
    const hook = (window as unknown as HookHost).__REACT_DEVTOOLS_GLOBAL_HOOK__;
    if (hook === undefined) return;
    for (const [root, id] of committed) hook.onCommitFiberRoot(id, root, undefined, false);
    committed.clear();
  })();
  return loading;
}
