import {
  DEFAULT_HYDRATE,
  type HydrateStrategy,
  ISLAND_ATTRIBUTES,
  parseHydrate,
} from "@svc/protocol";

/**
 * Calls `start` when the strategy of a server-rendered island (`data-svc-hydrate`) says so:
 *
 * - `load`: at once; `idle`: when the browser is idle (`requestIdleCallback`, at most 2 s
 *   later); `visible`: when it scrolls into view (`IntersectionObserver`); `media:(<query>)`:
 *   when the media query matches; `none`: never — its HTML is the content.
 *
 * Returns what stops waiting. React-free: `@svc/react`'s `hydrateIsland` and the standalone
 * loader both wait through it.
 */
export function whenToHydrate(container: Element, start: () => void): () => void {
  const strategy: HydrateStrategy =
    parseHydrate(container.getAttribute(ISLAND_ATTRIBUTES.hydrate) ?? DEFAULT_HYDRATE) ??
    DEFAULT_HYDRATE;
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

function when(strategy: HydrateStrategy, container: Element, start: () => void): () => void {
  if (strategy === "idle") {
    if (typeof requestIdleCallback === "function") {
      const id = requestIdleCallback(start, { timeout: 2000 });
      return () => cancelIdleCallback(id);
    }
    const timer = setTimeout(start, 200);
    return () => clearTimeout(timer);
  }
  if (strategy === "visible" && typeof IntersectionObserver === "function") {
    const observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) {
        observer.disconnect();
        start();
      }
    });
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
  const name = container.getAttribute(ISLAND_ATTRIBUTES.component) ?? "";
  const raw = container.getAttribute(ISLAND_ATTRIBUTES.props);
  let props: Record<string, unknown> = {};
  if (raw !== null && raw.trim() !== "") {
    const value: unknown = JSON.parse(raw);
    if (typeof value !== "object" || value === null || Array.isArray(value)) {
      throw new Error("data-svc-props must be a JSON object");
    }
    props = value as Record<string, unknown>;
  }
  const deps = container.getAttribute(ISLAND_ATTRIBUTES.deps);
  const parsed: unknown = deps === null ? {} : JSON.parse(deps);
  const hashes = { ...(typeof parsed === "object" && parsed !== null ? parsed : {}) } as Record<
    string,
    string
  >;
  const own = container.getAttribute(ISLAND_ATTRIBUTES.hash);
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
