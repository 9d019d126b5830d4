/** The slide after moving `by` from `index` in a ring of `count` slides. */
export function nextIndex(index: number, by: number, count: number): number {
  return (((index + by) % count) + count) % count;
}
