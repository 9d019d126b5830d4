/**
 * Escapes text for an HTML attribute value or element content: `&`, `<`, `>`, `"` and `'`.
 * Written for the text it mostly gets, JSON in an attribute: many `"`, the others seldom. One
 * native pass per character present (`&` first, so no entity is escaped twice) is about twice
 * as fast as one regular-expression pass calling back per match.
 */
export function escapeHtml(text: string): string {
  const escaped = escapeSingleQuoted(text);
  return escaped.includes('"') ? escaped.replaceAll('"', "&quot;") : escaped;
}

/** What {@link escapeSingleQuoted} escapes. */
const IN_SINGLE_QUOTES = /[&<>']/;

/**
 * Escapes text for a single-quoted attribute value (`name='…'`): `&`, `<`, `>` and `'`, not
 * `"`. Made for JSON, whose every key and string is in `"`: in double quotes each of those is
 * a six-byte `&quot;`, here none is, so the props of a typical island go out as they are —
 * shorter, and without a pass over them (~0.6 µs of a ~6 µs render on the bench machine).
 * `<` and `>` are escaped although a quoted value could hold them, so no `</script>` or
 * `</noscript>` appears wherever a page places the HTML.
 */
export function escapeSingleQuoted(text: string): string {
  return IN_SINGLE_QUOTES.test(text)
    ? text
        .replaceAll("&", "&amp;")
        .replaceAll("<", "&lt;")
        .replaceAll(">", "&gt;")
        .replaceAll("'", "&#39;")
    : text;
}
