const usd = new Intl.NumberFormat("en-US", { style: "currency", currency: "USD" });

/** `12.5` → `"$12.50"`. Anything that is not a finite number shows as `$0.00`. */
export function formatPrice(price: number): string {
  return usd.format(Number.isFinite(price) ? price : 0);
}
