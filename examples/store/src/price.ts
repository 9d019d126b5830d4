const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;

/** Largest price the store accepts, in cents ($1,000,000.00). */
export const MAX_PRICE_CENTS = 100_000_000;

/**
 * A price as typed: `"19.99"`, `"19,99"` (a comma is a decimal point), `" 12 "`. Undefined
 * for anything else, including thousands separators (`"1,234.50"`), exponents and `"NaN"`.
 */
export function parsePrice(text: string): number | undefined {
  const normalized = text.trim().replaceAll(",", ".");
  if (!DECIMAL.test(normalized)) return undefined;
  const value = Number(normalized);
  return Number.isFinite(value) ? value : undefined;
}

export type PriceCheck = { ok: true; cents: number } | { ok: false; message: string };

/** The rules for saving a price: a number, not negative, at most $1,000,000, whole cents. */
export function checkPrice(text: string): PriceCheck {
  const value = parsePrice(text);
  if (value === undefined) return { ok: false, message: "Enter a price such as 19.99 or 19,99." };
  if (value < 0) return { ok: false, message: "The price cannot be negative." };
  const decimals = text.trim().replaceAll(",", ".").split(".")[1] ?? "";
  if (decimals.length > 2) return { ok: false, message: "Use at most two decimals (cents)." };
  const cents = Math.round(value * 100);
  if (cents > MAX_PRICE_CENTS) {
    return { ok: false, message: "The price can be at most $1,000,000.00." };
  }
  return { ok: true, cents };
}

const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** `12.5` → `"$12.50"`. */
export function formatPrice(price: number): string {
  return usd.format(price);
}
