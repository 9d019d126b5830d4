import { escapeHtml } from "@svc/server";

/** Markup that is already safe to insert: only {@link html} and {@link trusted} make one. */
export class SafeHtml {
  readonly #markup: string;
  constructor(markup: string) {
    this.#markup = markup;
  }
  toString(): string {
    return this.#markup;
  }
}

export { escapeHtml };

/**
 * A template tag that escapes every interpolated value (for element content and quoted
 * attribute values alike), except values that are already {@link SafeHtml}. Arrays are joined;
 * null, undefined and false render nothing.
 *
 * ```ts
 * html`<h1>${product.name}</h1>` // "<h1>&lt;script&gt;…</h1>" for a hostile name
 * ```
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): SafeHtml {
  let markup = strings[0] ?? "";
  values.forEach((value, i) => {
    markup += render(value) + (strings[i + 1] ?? "");
  });
  return new SafeHtml(markup);
}

/** Marks markup produced by a trusted helper (svc's `renderWidget`, which escapes itself). */
export function trusted(markup: string): SafeHtml {
  return new SafeHtml(markup);
}

function render(value: unknown): string {
  if (value instanceof SafeHtml) return value.toString();
  if (Array.isArray(value)) return value.map(render).join("");
  if (value === null || value === undefined || value === false) return "";
  return escapeHtml(String(value));
}
