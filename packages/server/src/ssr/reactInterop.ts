/**
 * Every place svc leans on another library's internals to render on the server — React's
 * markers in `renderToString`'s output, React's `useId` and goober's sheet, V8's compilation
 * cache — in one module, so an upgrade that changes them breaks one file, loudly
 * (`reactInterop.test.ts` pins each to the versions it was written against).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { randomUUID } from "node:crypto";
import { setFlagsFromString } from "node:v8";
import { Script } from "node:vm";
import { ISLAND_ATTRIBUTES } from "@svc/protocol";

// React's markers

/**
 * Whether `renderToString` left a Suspense boundary to the browser: something suspended (it
 * does not wait) or threw. Text and attributes are escaped, so only React writes these markers.
 */
export const CLIENT_RENDERED = /<!--\$[!?]-->/;

/** What React's `renderToString` writes around a Suspense boundary it completed. */
export const BOUNDARY_START = "<!--$-->";
export const BOUNDARY_END = "<!--/$-->";

/**
 * What React hoists ahead of everything else it writes: a preload hint per image, and the
 * `<link>`s (other than a stylesheet without `precedence`), `<meta>`s (without `itemProp`),
 * `<title>`s, async `<script>`s and `<style>`s with a `precedence` a component renders. In
 * svc's tree they come before the boundary, not inside it, and the browser hydrates the
 * boundary's content only. Attribute values and text are escaped (`&gt;`, `&lt;`), so none of
 * them holds a `>` or `<` of its own, and a style's CSS no `</style` (`</\73 tyle`).
 */
/** How each of {@link LEADING_HINTS} starts. */
export const HINT_START = /^<(?:link |meta |title>|script |style )/;
export const LEADING_HINTS =
  /^(?:<link (?![^>]*rel="stylesheet")[^>]*>|<link [^>]*data-precedence="[^>]*>|<meta (?![^>]*itemProp=)[^>]*>|<title>[^<]*<\/title>|<script async=""[^>]*><\/script>|<style data-precedence="[^>]*>[\s\S]*?<\/style>)*/;

/**
 * Where {@link renderBatch} separates two components' HTML: an element no component renders
 * (its attribute's value is new in each process; text and attribute values are escaped, so
 * no component's output can hold it).
 */
export const SPLIT_VALUE = randomUUID();
export const SPLIT_HTML = `<template ${ISLAND_ATTRIBUTES.split}="${SPLIT_VALUE}"></template>`;

// React's useId, goober's sheet

/** How many times server bundles have called `useId` (see {@link watchingIds}). */
let idCalls = 0;

/** How many times server bundles have called `useId` so far: compare before and after a render. */
export function idCount(): number {
  return idCalls;
}

/**
 * React as server bundles get it: the same module, its `useId` counted. An id depends on the
 * component's place in React's tree, so a component that asks for one is never rendered in a
 * batch with others (see {@link renderBatch}), where its place differs from the one it has
 * when the browser hydrates it alone.
 */
export function watchingIds(react: typeof import("react")): typeof import("react") {
  const useId = react.useId;
  return {
    ...react,
    useId() {
      idCalls++;
      return useId();
    },
  };
}

/** The style sheet of the render under way: what goober writes its rules to on the server. */
export const renderSheet = new AsyncLocalStorage<{ data: string }>();

/**
 * The sheet of the synchronous render (`renderToString`) under way, if any: nothing else runs
 * on this thread until it returns, so a variable set around it does what `renderSheet` does
 * for `prerender`, which waits — without `AsyncLocalStorage.run`'s cost on every warm render.
 */
let syncSheet: { data: string } | undefined;

/** `renderToString(element)`, goober's rules going to `sheet`. */
export function renderToSheet(
  renderToString: typeof import("react-dom/server").renderToString,
  element: Parameters<typeof import("react-dom/server").renderToString>[0],
  sheet: { data: string },
): string {
  const outer = syncSheet;
  syncSheet = sheet;
  try {
    return renderToString(element);
  } finally {
    syncSheet = outer;
  }
}

/**
 * goober as server bundles get it: the rules a render's components make go to that render's
 * own sheet (goober's target, found through the render's async context), never to goober's one
 * global server sheet, which only grows and which concurrent renders would share. Outside a
 * render (a module's top level), rules go to a sheet that is dropped.
 */
export function perRenderGoober(goober: typeof import("goober")): typeof import("goober") {
  const sheet = () => syncSheet ?? renderSheet.getStore() ?? { data: "" };
  const css = (flags: object) =>
    function (this: object | undefined, ...args: unknown[]) {
      return (goober.css as (...a: unknown[]) => string).apply(
        { ...this, ...flags, target: sheet() },
        args,
      );
    };
  return {
    ...goober,
    css: css({}) as typeof goober.css,
    glob: css({ g: 1 }) as typeof goober.glob,
    keyframes: css({ k: 1 }) as typeof goober.keyframes,
    styled: function (this: object | undefined, ...args: unknown[]) {
      // goober reads its context's `target` on every render of the styled component.
      const context = {
        ...this,
        get target() {
          return sheet();
        },
      };
      return (goober.styled as (...a: unknown[]) => unknown).apply(context, args);
    } as typeof goober.styled,
    extractCss: () => "",
  };
}

// V8's compilation cache

/** The process runs without V8's compilation cache anyway: nothing to turn back on. */
const cacheOff = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)].some(
  (flag) => /^--no[-_]compilation[-_]cache$/.test(flag),
);

/**
 * `source` compiled without V8's isolate-wide compilation cache. That cache keeps every script
 * it has compiled (its source, its functions' bytecode) for as long as the isolate lives — a
 * `vm.Script`, `new Function` and `compileFunction` alike; only a last-resort GC empties it —
 * so each version of a component evaluated in a long-lived process would stay in memory for
 * good (measured: ~2× the bundle's size per version, never collected). The cache only helps
 * when the very same source is compiled again, which a server bundle never is (it is
 * evaluated once per version and API base), so it is turned off for this one synchronous
 * compile and back on at once: nothing else can compile in between on this thread.
 */
export function compileUncached(source: string, filename: string): Script {
  if (cacheOff) return new Script(source, { filename });
  setFlagsFromString("--no-compilation-cache");
  try {
    return new Script(source, { filename });
  } finally {
    setFlagsFromString("--compilation-cache");
  }
}
