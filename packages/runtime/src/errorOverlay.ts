/**
 * The development error overlay: a `<svc-error-overlay>` element over the page listing each
 * failure a component shows (its message, `file:line:col` and a code frame), until it is
 * dismissed (its button, Escape) or every failure it lists is gone. Its content is in a shadow
 * root styled by an adopted stylesheet, so a strict CSP (no `'unsafe-inline'` styles) lets it
 * through and the page's styles never reach it. Part of `@svc/runtime/live`: only development
 * pages load it (the standalone loader within `loader.live.js`).
 */
import { isSvcError, type LiveErrorLocation } from "@svc/protocol";

/** One failure as the overlay shows it. */
export interface ErrorReport {
  /** The component that failed, when known. */
  component: string | undefined;
  /** The error's kind (`BundleError`, `Render`, …), or `Error`. */
  kind: string;
  message: string;
  /** Where a build failed, with the lines around it (from the development server). */
  locations: readonly LiveErrorLocation[];
}

/** The report of `error`, shown by a container of `component` (the error may name its own). */
export function errorReportOf(error: unknown, component?: string): ErrorReport {
  const locations = (error as { locations?: unknown } | null)?.locations;
  return {
    component: (isSvcError(error) ? error.component : undefined) ?? component,
    kind: isSvcError(error) ? error.kind : "Error",
    message: error instanceof Error ? error.message : String(error),
    locations: Array.isArray(locations) ? (locations as LiveErrorLocation[]) : [],
  };
}

const TAG = "svc-error-overlay";

/** What the element offers: two copies of this module on a page share the first one's. */
interface OverlayElement extends HTMLElement {
  add(report: ErrorReport): () => void;
}

/**
 * Shows `report` in the page's overlay (made, or shown again after a dismissal, as needed);
 * returns what takes it away again — the overlay goes once it lists nothing.
 */
export function showErrorOverlay(report: ErrorReport): () => void {
  if (typeof document === "undefined" || typeof customElements === "undefined") return () => {};
  if (customElements.get(TAG) === undefined) customElements.define(TAG, createOverlayClass());
  let overlay = document.querySelector(TAG) as OverlayElement | null;
  if (overlay === null) {
    overlay = document.createElement(TAG) as OverlayElement;
    document.body.append(overlay);
  }
  return overlay.add(report);
}

const STYLES = `
:host { all: initial; position: fixed; inset: 0; z-index: 2147483647; display: block;
  background: rgba(0, 0, 0, 0.55); font: 14px/1.5 system-ui, sans-serif; overflow: auto; }
.panel { box-sizing: border-box; max-width: 960px; margin: 48px auto; padding: 20px 24px;
  background: #1b1b1f; color: #e8e8ea; border-top: 4px solid #ff5c5c; border-radius: 6px;
  box-shadow: 0 12px 40px rgba(0, 0, 0, 0.5); }
header { display: flex; align-items: center; gap: 12px; }
h2 { flex: 1; margin: 0; font-size: 16px; color: #ff8080; }
button { font: inherit; color: inherit; background: #333; border: 1px solid #555;
  border-radius: 4px; padding: 2px 10px; cursor: pointer; }
section { margin-top: 16px; }
.title { font-weight: 600; }
pre { margin: 8px 0 0; padding: 10px 12px; background: #111; border-radius: 4px;
  font: 13px/1.5 ui-monospace, Menlo, Consolas, monospace; white-space: pre-wrap;
  overflow-wrap: anywhere; }
.where { color: #7fb4ff; font-family: ui-monospace, Menlo, Consolas, monospace; }
.frame { white-space: pre; overflow-x: auto; }
.error-line { color: #fff; background: rgba(255, 92, 92, 0.2); }
.caret { color: #ff5c5c; }
footer { margin-top: 16px; color: #9a9aa2; font-size: 12px; }
`;

/** The element's class, made when first needed: `HTMLElement` is the browser's. */
function createOverlayClass(): CustomElementConstructor {
  return class SvcErrorOverlay extends HTMLElement implements OverlayElement {
    /** The failures shown, each with how many places show it. */
    private reports = new Map<string, { report: ErrorReport; count: number }>();
    private readonly root = this.attachShadow({ mode: "open" });
    private readonly onKey = (event: KeyboardEvent) => {
      if (event.key === "Escape") this.dismiss();
    };

    constructor() {
      super();
      const sheet = new CSSStyleSheet();
      sheet.replaceSync(STYLES);
      this.root.adoptedStyleSheets = [sheet];
    }

    add(report: ErrorReport): () => void {
      const key = `${report.component ?? ""}\n${report.message}`;
      const entry = this.reports.get(key) ?? { report, count: 0 };
      entry.count++;
      this.reports.set(key, entry);
      // A dismissed overlay comes back for a new failure.
      if (!this.isConnected) document.body.append(this);
      this.draw();
      let removed = false;
      return () => {
        if (removed) return;
        removed = true;
        if (--entry.count === 0 && this.reports.get(key) === entry) this.reports.delete(key);
        if (this.reports.size === 0) this.remove();
        else this.draw();
      };
    }

    connectedCallback() {
      document.addEventListener("keydown", this.onKey);
    }

    disconnectedCallback() {
      document.removeEventListener("keydown", this.onKey);
    }

    /** Hides the overlay until another failure comes; the places keep their messages. */
    dismiss() {
      this.reports.clear();
      this.remove();
    }

    private draw() {
      const el = <K extends keyof HTMLElementTagNameMap>(
        tag: K,
        className?: string,
        text?: string,
      ) => {
        const node = document.createElement(tag);
        if (className) node.className = className;
        if (text !== undefined) node.textContent = text;
        return node;
      };
      const panel = el("div", "panel");
      panel.setAttribute("role", "dialog");
      panel.setAttribute("aria-label", "svc: component errors");
      const header = el("header");
      const close = el("button", "close", "Dismiss");
      close.type = "button";
      close.title = "Dismiss (Esc)";
      close.addEventListener("click", () => this.dismiss());
      const count = this.reports.size;
      header.append(
        el("h2", "", count === 1 ? "svc: a component failed" : `svc: ${count} components failed`),
        close,
      );
      panel.append(header);
      for (const { report } of this.reports.values()) {
        const section = el("section", "report");
        const name = report.component === undefined ? "" : `Component "${report.component}" · `;
        section.append(
          el("div", "title", `${name}${report.kind}`),
          el("pre", "message", report.message),
        );
        for (const location of report.locations) section.append(...locationNodes(location, el));
        panel.append(section);
      }
      panel.append(
        el("footer", "", "Fix the code and save: this closes by itself. Esc closes it now."),
      );
      this.root.replaceChildren(panel);
    }
  };
}

/** `file:line:col` and the code frame of one location. */
function locationNodes(
  location: LiveErrorLocation,
  el: (tag: "div" | "pre" | "span", className?: string, text?: string) => HTMLElement,
): HTMLElement[] {
  if (location.file === undefined) return [];
  const { line = 0, column = 0 } = location;
  const nodes = [el("div", "where", `${location.file}:${line}:${column + 1}`)];
  const frame =
    location.frame ??
    (location.lineText === undefined ? undefined : { start: line, lines: [location.lineText] });
  if (frame === undefined) return nodes;
  const pre = el("pre", "frame");
  const width = String(frame.start + frame.lines.length - 1).length;
  frame.lines.forEach((text, i) => {
    const number = frame.start + i;
    const gutter = `${number === line ? ">" : " "} ${String(number).padStart(width)} | `;
    pre.append(el("span", number === line ? "error-line" : "", `${gutter}${text}\n`));
    if (number === line) {
      pre.append(el("span", "caret", `${" ".repeat(gutter.length - 2)}| ${" ".repeat(column)}^\n`));
    }
  });
  nodes.push(pre);
  return nodes;
}
