/**
 * A component's stylesheets in the page: constructable stylesheets (`new CSSStyleSheet()`)
 * added to `document.adoptedStyleSheets` while the component is mounted. No `<style>` element
 * is ever injected, so a Content-Security-Policy needs no `style-src 'unsafe-inline'` (nor
 * any `style-src` at all: the CSS is fetched with `fetch`, under `connect-src`, and checked
 * against its integrity in static mode like the bundle).
 *
 * Each stylesheet is known by its URL, which names its content (`card-3f2a9c0b1d4e.css`):
 * however many components or copies of them import it, it is adopted once, and removed when
 * the last one using it unmounts. A new version (another URL) replaces the old one when the
 * component is remounted with its new bundle.
 */
import type { ComponentModule } from "./importCode.ts";

/** One stylesheet of a component, ready to adopt. */
export interface ComponentStylesheet {
  /** The URL it was fetched from (content-addressed). */
  readonly url: string;
  readonly sheet: CSSStyleSheet;
}

const NONE: readonly ComponentStylesheet[] = Object.freeze([]);
const byModule = new WeakMap<ComponentModule, readonly ComponentStylesheet[]>();

/** The stylesheets of a loaded component (empty when it has none, or was not loaded by svc). */
export function stylesheetsOf(module: ComponentModule): readonly ComponentStylesheet[] {
  return byModule.get(module) ?? NONE;
}

/** Records the stylesheets a component's module comes with (the svc client does). */
export function setStylesheets(
  module: ComponentModule,
  stylesheets: readonly ComponentStylesheet[],
): void {
  if (stylesheets.length > 0) byModule.set(module, Object.freeze([...stylesheets]));
}

/** Turns CSS text into a stylesheet whose relative `url()`s resolve against `url`. */
export function createStylesheet(url: string, text: string): ComponentStylesheet {
  if (typeof CSSStyleSheet !== "function" || !("adoptedStyleSheets" in Document.prototype)) {
    throw new Error(
      "this browser has no constructable stylesheets (document.adoptedStyleSheets), which svc uses to apply component CSS",
    );
  }
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(absoluteUrls(text, url));
  return { url, sheet };
}

/**
 * `css` with its relative `url()`s made absolute against `base`. A constructed stylesheet
 * resolves them against the document (Chromium ignores `baseURL`), not the file it came
 * from. After svc's bundling the only relative URLs left are its assets'
 * (`url("./assets/logo-24WHYHIF.png")`): everything else was inlined or is absolute.
 */
export function absoluteUrls(css: string, base: string): string {
  return css.replace(
    /url\(\s*(["']?)(\.{1,2}\/[^"')\s]*)\1\s*\)/g,
    (_match, quote: string, path: string) => `url(${quote}${new URL(path, base).href}${quote})`,
  );
}

interface Adopted {
  sheet: CSSStyleSheet;
  count: number;
}

/**
 * Who uses which stylesheet, shared by every copy of this module on the page (the loader's
 * and an application's), as the module registry is.
 */
function adoptedIn(document: Document): Map<string, Adopted> {
  const key = Symbol.for("svc.stylesheets");
  const holder = document as unknown as Record<symbol, Map<string, Adopted> | undefined>;
  let adopted = holder[key];
  if (adopted === undefined) {
    adopted = new Map();
    Object.defineProperty(document, key, { value: adopted });
  }
  return adopted;
}

/**
 * Applies `stylesheets` to the document (each URL once, however many users it has) and
 * returns the function that releases them: a stylesheet is removed when its last user
 * releases it. Does nothing without a document (server rendering).
 */
export function adoptStylesheets(
  stylesheets: readonly ComponentStylesheet[],
  root: Document | undefined = typeof document === "undefined" ? undefined : document,
): () => void {
  if (stylesheets.length === 0 || root === undefined) return () => {};
  const adopted = adoptedIn(root);
  const added: CSSStyleSheet[] = [];
  for (const { url, sheet } of stylesheets) {
    const entry = adopted.get(url);
    if (entry !== undefined) {
      entry.count++;
      continue;
    }
    adopted.set(url, { sheet, count: 1 });
    added.push(sheet);
  }
  if (added.length > 0) root.adoptedStyleSheets = [...root.adoptedStyleSheets, ...added];
  let released = false;
  return () => {
    if (released) return;
    released = true;
    const removed = new Set<CSSStyleSheet>();
    for (const { url } of stylesheets) {
      const entry = adopted.get(url);
      if (entry === undefined || --entry.count > 0) continue;
      adopted.delete(url);
      removed.add(entry.sheet);
    }
    if (removed.size > 0) {
      root.adoptedStyleSheets = root.adoptedStyleSheets.filter((sheet) => !removed.has(sheet));
    }
  };
}
