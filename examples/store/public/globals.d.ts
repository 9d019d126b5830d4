// Types for the browser scripts in this directory (checked by ../components/tsconfig.json).
interface Window {
  /** The standalone svc loader (`<mount>/loader.js`); see docs/BROWSER.md. */
  svc?: {
    update(container: Element, props: Record<string, unknown>): void;
  };
}
