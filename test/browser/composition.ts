/**
 * The composition the preloading tests load in Chromium: a → b → c (a asks for b with
 * `useComponent("b")`, b for c with `<ServerComponent name="c">`) and the same shape with names
 * computed at run time (x → y → z), each noting when its module was evaluated and rendered; and
 * `timed`, which opens a page with 100 ms of latency per request and reads when each bundle was
 * requested, fetched, evaluated and rendered.
 */
import type { Browser, Page } from "playwright-core";
import { expect } from "vitest";
import { openPage, withLatency } from "./helpers.ts";

export const LATENCY = 100;

/** A component that notes when its module was evaluated, and renders `inner`. */
const component = (name: string, imports: string, body: string, inner: string) =>
  `${imports}\n` +
  `const w = window as unknown as { evaluated?: Record<string, number> };\n` +
  `(w.evaluated ??= {})[${JSON.stringify(name)}] = performance.now();\n` +
  `export default function Component() {\n  ${body}\n  return <span id="${name}">${name} ${inner}</span>;\n}\n`;

export const COMPONENTS: Record<string, string> = {
  "a/index.tsx": component(
    "a",
    'import { useComponent } from "@svc/react";',
    'const B = useComponent("b");',
    "<B />",
  ),
  "b/index.tsx": component(
    "b",
    'import { ServerComponent } from "@svc/react";',
    "",
    '<ServerComponent name="c" />',
  ),
  "c/index.tsx": component("c", "", "", ""),
  // The same, with names computed at run time: nothing to find at bundle time.
  "x/index.tsx": component(
    "x",
    'import { useComponent } from "@svc/react";',
    'const Y = useComponent(["y"].join(""));',
    "<Y />",
  ),
  "y/index.tsx": component(
    "y",
    'import { ServerComponent } from "@svc/react";',
    'const z = ["z"][0] as string;',
    "<ServerComponent name={z} />",
  ),
  "z/index.tsx": component("z", "", "", ""),
};

/** Records when each `[id]` of a component first appears (the page's clock). */
function recordRenders(page: Page) {
  return page.addInitScript(() => {
    const rendered: Record<string, number> = {};
    (window as unknown as { rendered: typeof rendered }).rendered = rendered;
    new MutationObserver(() => {
      for (const id of ["a", "b", "c", "x", "y", "z"]) {
        if (rendered[id] === undefined && document.getElementById(id)) {
          rendered[id] = performance.now();
        }
      }
    }).observe(document, { subtree: true, childList: true });
  });
}

export interface Timing {
  /** When each bundle's request started and its response ended, by component. */
  requests: Record<string, { start: number; end: number }>;
  /** How many times each bundle was fetched (preload and import must be one request). */
  fetches: Record<string, number>;
  evaluated: Record<string, number>;
  rendered: Record<string, number>;
}

/** Opens `url` with {@link LATENCY} ms of latency on every request and waits for `last` to render. */
export async function timed(browser: Browser, url: string, last: string): Promise<Timing> {
  const { context, page, errors } = await openPage(browser);
  try {
    await withLatency(context, page, LATENCY);
    await recordRenders(page);
    await page.goto(url);
    await page.waitForSelector(`#${last}`, { timeout: 20_000 });
    expect(errors).toEqual([]);
    return await page.evaluate(() => {
      const requests: Record<string, { start: number; end: number }> = {};
      const fetches: Record<string, number> = {};
      for (const entry of performance.getEntriesByType("resource")) {
        const file = /\/([a-z])(?:\.[0-9a-f]+)?\.js$/.exec(new URL(entry.name).pathname)?.[1];
        const timing = entry as PerformanceResourceTiming;
        if (file !== undefined && /bundles\//.test(entry.name)) {
          requests[file] = { start: timing.startTime, end: timing.responseEnd };
          fetches[file] = (fetches[file] ?? 0) + 1;
        }
      }
      const w = window as unknown as {
        evaluated: Record<string, number>;
        rendered: Record<string, number>;
      };
      return { requests, fetches, evaluated: w.evaluated, rendered: w.rendered };
    });
  } finally {
    await context.close();
  }
}
