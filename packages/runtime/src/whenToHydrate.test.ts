// @vitest-environment happy-dom
import { afterEach, describe, expect, it, vi } from "vitest";
import { readIsland, replayInteraction, reportMismatch, whenToHydrate } from "./whenToHydrate.ts";

/** A container with these attributes (all `readIsland` reads of an element). */
const container = (attributes: Record<string, string>) =>
  ({ getAttribute: (name: string) => attributes[name] ?? null }) as unknown as Element;

afterEach(() => {
  vi.restoreAllMocks();
  vi.unstubAllGlobals();
  document.body.innerHTML = "";
});

describe("readIsland", () => {
  it("names the island's component first, then each component it loaded on the server, once", () => {
    const island = readIsland(
      container({
        "data-svc-component": "carousel",
        "data-svc-hash": "aaaaaaaaaaaa",
        "data-svc-props": '{"slides":3}',
        "data-svc-deps":
          '{"image":"bbbbbbbbbbbb","carousel":"cccccccccccc","caption":"dddddddddddd"}',
      }),
    );
    expect(island.names).toEqual(["carousel", "image", "caption"]);
    expect(island.hashes).toEqual({
      carousel: "aaaaaaaaaaaa",
      image: "bbbbbbbbbbbb",
      caption: "dddddddddddd",
    });
    expect(island.props).toEqual({ slides: 3 });
  });

  it("refuses props that are not a JSON object", () => {
    expect(() =>
      readIsland(container({ "data-svc-component": "card", "data-svc-props": "[1]" })),
    ).toThrow("data-svc-props must be a JSON object");
  });
});

describe("reportMismatch", () => {
  it("reports a mismatch React recovered from with the island's name, in one console line", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    reportMismatch("card")(new Error("Text content does not match"));
    expect(error).toHaveBeenCalledWith(
      'svc: the island "card" did not hydrate as the server rendered it: Text content does not match',
    );
  });
});

/** A server-rendered island of `strategy` holding a button, on the page. */
function island(strategy: string) {
  document.body.innerHTML = `<div data-svc-component="counter" data-svc-ssr="" data-svc-hydrate="${strategy}"><button type="button">0</button><a href="#next">next</a></div>`;
  const container = document.body.firstElementChild as HTMLElement;
  return { container, button: container.querySelector("button") as HTMLButtonElement };
}

const click = (element: Element) =>
  element.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true }));

describe("whenToHydrate: interaction", () => {
  it("starts on the first pointerdown, keydown or focusin inside the island, once", () => {
    for (const type of ["pointerdown", "keydown", "focusin"]) {
      const { button } = island("interaction");
      const start = vi.fn();
      whenToHydrate(button.parentElement as Element, start);
      document.body.dispatchEvent(new Event(type, { bubbles: true }));
      expect(start).not.toHaveBeenCalled(); // outside the island
      button.dispatchEvent(new Event(type, { bubbles: true }));
      button.dispatchEvent(new Event(type, { bubbles: true }));
      expect(start).toHaveBeenCalledTimes(1);
    }
  });

  it("holds back the clicks until replayInteraction, then dispatches them on the same element", () => {
    const { container, button } = island("interaction");
    const start = vi.fn();
    whenToHydrate(container, start);
    const seen: Event[] = [];
    button.addEventListener("click", (event) => seen.push(event));
    const page = vi.fn();
    document.addEventListener("click", page);
    button.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(click(button)).toBe(false); // cancelled: no handler is there yet
    expect(click(button)).toBe(false);
    expect(start).toHaveBeenCalledTimes(1);
    expect(seen).toEqual([]);
    expect(page).not.toHaveBeenCalled();

    replayInteraction(container);
    expect(seen).toHaveLength(2);
    expect(seen.map((event) => event.defaultPrevented)).toEqual([false, false]);
    expect(page).toHaveBeenCalledTimes(2);
    // Watching stopped: a click now is the page's at once.
    expect(click(button)).toBe(true);
    expect(seen).toHaveLength(3);
    document.removeEventListener("click", page);
  });

  it("wakes on a click alone (assistive technology sends one without a pointerdown)", () => {
    const { container, button } = island("interaction");
    const start = vi.fn();
    whenToHydrate(container, start);
    click(button);
    expect(start).toHaveBeenCalledTimes(1);
  });

  it("shares one watch between every wait on the container: a later wait starts at once after a wake, and gets the held clicks", () => {
    const { container, button } = island("interaction");
    // islands.js waits, is woken, and stops waiting: the loader it fetched takes over.
    const first = vi.fn();
    const stopFirst = whenToHydrate(container, first);
    button.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    click(button);
    stopFirst();
    expect(first).toHaveBeenCalledTimes(1);
    const second = vi.fn();
    whenToHydrate(container, second);
    expect(second).toHaveBeenCalledTimes(1);
    const seen = vi.fn();
    button.addEventListener("click", seen);
    replayInteraction(container);
    expect(seen).toHaveBeenCalledTimes(1);
  });

  it("stops watching when every wait stops before an interaction: clicks are the page's again", () => {
    const { container, button } = island("interaction");
    const start = vi.fn();
    const stopA = whenToHydrate(container, start);
    const stopB = whenToHydrate(container, start);
    stopA();
    expect(click(button)).toBe(false); // B still waits
    expect(start).toHaveBeenCalledTimes(1);
    replayInteraction(container);
    stopB();

    const again = island("interaction");
    const stop = whenToHydrate(again.container, start);
    stop();
    expect(click(again.button)).toBe(true);
    again.button.dispatchEvent(new Event("pointerdown", { bubbles: true }));
    expect(start).toHaveBeenCalledTimes(1);
  });

  it("replays nothing for an island of another strategy, and nothing twice", () => {
    const { container, button } = island("load");
    const start = vi.fn();
    whenToHydrate(container, start);
    expect(start).toHaveBeenCalledTimes(1);
    expect(click(button)).toBe(true);
    replayInteraction(container);
    const seen = vi.fn();
    button.addEventListener("click", seen);
    replayInteraction(container);
    expect(seen).not.toHaveBeenCalled();
  });
});

describe("whenToHydrate: visible", () => {
  it("observes with the margin of visible:<margin> as rootMargin, 0px for visible, none for a margin refused", () => {
    const options: (IntersectionObserverInit | undefined)[] = [];
    vi.stubGlobal(
      "IntersectionObserver",
      class {
        constructor(_callback: unknown, init?: IntersectionObserverInit) {
          if (init?.rootMargin === "bogus") throw new SyntaxError("rootMargin must be px or %");
          options.push(init);
        }
        observe() {}
        disconnect() {}
      },
    );
    whenToHydrate(island("visible:200px 0px").container, () => {});
    whenToHydrate(island("visible").container, () => {});
    whenToHydrate(island("visible:bogus").container, () => {});
    expect(options).toEqual([{ rootMargin: "200px 0px" }, { rootMargin: "0px" }, undefined]);
  });
});
