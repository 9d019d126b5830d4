import {
  ATTR_COMPONENT,
  ATTR_DEPS,
  ATTR_HASH,
  ATTR_HYDRATE,
  ATTR_PROPS,
  DEFAULT_HYDRATE,
} from "@svc/protocol";

/**
 * Calls `start` when the strategy of a server-rendered island (`data-svc-hydrate`) says so:
 *
 * - `load`: at once; `idle`: when the browser is idle (`requestIdleCallback`, at most 2 s
 *   later); `visible`: when it scrolls into view (`IntersectionObserver`), `visible:<margin>`
 *   that far before (its `rootMargin`, e.g. `visible:200px`); `interaction`: on the first
 *   `pointerdown`, `keydown`, `focusin` or `click` inside it; `media:(<query>)`: when the
 *   media query matches; `none`: never — its HTML is the content.
 * - The strategy is read as written: the server checked it (`parseHydrate`), and its grammar
 *   stays out of the browser's scripts. An unknown one hydrates at once, a margin the browser
 *   refuses is no margin, a media query it cannot parse never matches.
 *
 * An `interaction` island holds back the clicks it receives from then until it is hydrated:
 * whoever hydrates it calls {@link replayInteraction} right after `hydrateRoot` (or when
 * hydrating failed), which hands them to React (or, failed, to the page's own behaviour).
 *
 * Returns what stops waiting. React-free: `@svc/react`'s `hydrateIsland` and the standalone
 * loader both wait through it.
 */
export function whenToHydrate(container: Element, start: () => void): () => void {
  const strategy = container.getAttribute(ATTR_HYDRATE) ?? DEFAULT_HYDRATE;
  if (strategy === "none") return () => {};
  let cancelled = false;
  const go = () => {
    if (!cancelled) start();
  };
  const cancel = when(strategy, container, go);
  return () => {
    cancelled = true;
    cancel();
  };
}

function when(strategy: string, container: Element, start: () => void): () => void {
  if (strategy === "idle") {
    if (typeof requestIdleCallback === "function") {
      const id = requestIdleCallback(start, { timeout: 2000 });
      return () => cancelIdleCallback(id);
    }
    const timer = setTimeout(start, 200);
    return () => clearTimeout(timer);
  }
  if (strategy === "interaction") return whenInteracted(container, start);
  if (/^visible(:|$)/.test(strategy) && typeof IntersectionObserver === "function") {
    const onEntries = (entries: IntersectionObserverEntry[]) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        observer.disconnect();
        start();
      }
    };
    let observer: IntersectionObserver;
    try {
      observer = new IntersectionObserver(onEntries, {
        rootMargin: strategy.slice("visible:".length) || "0px",
      });
    } catch {
      observer = new IntersectionObserver(onEntries);
    }
    observer.observe(container);
    return () => observer.disconnect();
  }
  if (strategy.startsWith("media:") && typeof matchMedia === "function") {
    const query = matchMedia(strategy.slice("media:".length));
    if (query.matches) {
      start();
      return () => {};
    }
    const onChange = (event: MediaQueryListEvent) => {
      if (!event.matches) return;
      query.removeEventListener("change", onChange);
      start();
    };
    query.addEventListener("change", onChange);
    return () => query.removeEventListener("change", onChange);
  }
  start();
  return () => {};
}

/**
 * Where a container keeps its {@link InteractionWatch}: a registered symbol, so every copy of
 * this module on a page (in `islands.js`, `loader.extras.js`, an app's bundle) finds the one
 * watch — `islands.js` wakes it, and the loader it fetches hydrates and replays.
 */
const WATCH = Symbol.for("svc.interaction");

/** What wakes an `interaction` island (a click too: assistive technology may send one alone). */
const INTERACTIONS = ["pointerdown", "keydown", "focusin", "click"];

/** One container's wait for an interaction, and the clicks it holds back since. */
interface InteractionWatch {
  /** Who waits for the first interaction; null once it came (a wait then starts at once). */
  waiting: Set<() => void> | null;
  /** Stops watching, and dispatches the held clicks again on their elements. */
  release(): void;
}

type Watched = Element & { [WATCH]?: InteractionWatch };

function whenInteracted(container: Watched, start: () => void): () => void {
  container[WATCH] ??= watchInteraction(container);
  const watch = container[WATCH];
  const { waiting } = watch;
  if (waiting === null) {
    start();
    return () => {};
  }
  waiting.add(start);
  return () => {
    waiting.delete(start);
    // Once woken it keeps its clicks for whoever hydrates (the loader `islands.js` fetched).
    if (watch.waiting !== null && waiting.size === 0) watch.release();
  };
}

function watchInteraction(container: Watched): InteractionWatch {
  const held: MouseEvent[] = [];
  const onInteraction = (event: Event) => {
    if (event.type === "click") {
      // No handler is there yet to act on it: the browser's own action (a link followed, a
      // form sent) is held back with it, and both happen on the replay.
      event.preventDefault();
      event.stopPropagation();
      held.push(event as MouseEvent);
    }
    const { waiting } = watch;
    watch.waiting = null;
    for (const start of waiting ?? []) start();
  };
  const listen = (method: "addEventListener" | "removeEventListener") => {
    for (const type of INTERACTIONS) container[method](type, onInteraction, true);
  };
  const watch: InteractionWatch = {
    waiting: new Set(),
    release() {
      if (container[WATCH] !== watch) return;
      delete container[WATCH];
      listen("removeEventListener");
      for (const click of held.splice(0)) {
        // A new event (the held one is cancelled for good), initialised from the held one's
        // properties (coordinates, button, keys), on the same element: hydration keeps the
        // server's elements. One React replaced (a mismatch) or removed gets none.
        const target = click.target;
        if (target instanceof Element && container.contains(target)) {
          target.dispatchEvent(new MouseEvent("click", click));
        }
      }
    },
  };
  listen("addEventListener");
  return watch;
}

/**
 * Call right after `hydrateRoot(container, …)`, or once hydrating `container` failed: the
 * clicks an `interaction` island held back since it was woken are dispatched again on their
 * elements — React's handlers get them (a click on a root still hydrating makes React finish
 * hydrating at once, then handle it), or without React, the browser's own action. Then it
 * stops watching. Does nothing for an island of another strategy.
 */
export function replayInteraction(container: Element): void {
  (container as Watched)[WATCH]?.release();
}

/**
 * What an island needs to hydrate: its component, props (`data-svc-props`), the hashes of its
 * own bundle and of every component it loaded on the server (`data-svc-deps`), and the names
 * of all of them, its own first: what to fetch at once before hydrating.
 *
 * @throws Error when `data-svc-props` is not a JSON object
 */
export function readIsland(container: Element): {
  name: string;
  props: Record<string, unknown>;
  hashes: Record<string, string>;
  names: string[];
} {
  const name = container.getAttribute(ATTR_COMPONENT) ?? "";
  const raw = container.getAttribute(ATTR_PROPS);
  let props: Record<string, unknown> = {};
  if (raw !== null && raw.trim() !== "") {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error(`${ATTR_PROPS} must be a JSON object`);
    }
    props = value as Record<string, unknown>;
  }
  const deps = container.getAttribute(ATTR_DEPS);
  const parsed: unknown = deps === null ? {} : JSON.parse(deps);
  const hashes = { ...(typeof parsed === "object" && parsed !== null ? parsed : {}) } as Record<
    string,
    string
  >;
  const own = container.getAttribute(ATTR_HASH);
  if (own) hashes[name] = own;
  const names = [name, ...Object.keys(hashes).filter((other) => other !== name)];
  return { name, props, hashes, names };
}

/**
 * `hydrateRoot`'s `onRecoverableError` for the island of `name`: a mismatch React recovered
 * from, reported with the component's name.
 */
export function reportMismatch(name: string): (error: unknown) => void {
  return (error) => {
    console.error(
      `svc: the island "${name}" did not hydrate as the server rendered it: ${error instanceof Error ? error.message : String(error)}`,
    );
  };
}
