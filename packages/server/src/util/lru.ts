/**
 * A map bounded by the total size of its values: the least recently used entries go first.
 * Insertion order is recency order; {@link get} moves an entry to the end.
 */
export class ByteLru<K, V> {
  readonly #entries = new Map<K, V>();
  readonly #sizeOf: (value: V) => number;
  readonly #dropped: ((value: V) => void) | undefined;
  readonly maxBytes: number;
  #bytes = 0;

  /**
   * @param sizeOf the size of a value in bytes
   * @param dropped called with each value that leaves (evicted, replaced, deleted, cleared)
   */
  constructor(maxBytes: number, sizeOf: (value: V) => number, dropped?: (value: V) => void) {
    this.maxBytes = maxBytes;
    this.#sizeOf = sizeOf;
    this.#dropped = dropped;
  }

  /** Total size of the values held. */
  get bytes(): number {
    return this.#bytes;
  }

  get size(): number {
    return this.#entries.size;
  }

  /** The value, marked as the most recently used. */
  get(key: K): V | undefined {
    const value = this.#entries.get(key);
    if (value !== undefined) {
      this.#entries.delete(key);
      this.#entries.set(key, value);
    }
    return value;
  }

  /** The value, without touching its recency. */
  peek(key: K): V | undefined {
    return this.#entries.get(key);
  }

  /**
   * Stores `value` as the most recently used entry and evicts the least recently used ones
   * past the bound. A value larger than the whole bound is not stored; returns whether it was.
   */
  set(key: K, value: V): boolean {
    const old = this.#entries.get(key);
    if (old === value) {
      this.#entries.delete(key);
      this.#bytes -= this.#sizeOf(value);
    } else {
      this.delete(key);
    }
    const size = this.#sizeOf(value);
    if (size > this.maxBytes) {
      this.#dropped?.(value);
      return false;
    }
    this.#entries.set(key, value);
    this.#bytes += size;
    for (const [oldest, old] of this.#entries) {
      if (this.#bytes <= this.maxBytes) break;
      this.#entries.delete(oldest);
      this.#bytes -= this.#sizeOf(old);
      this.#dropped?.(old);
    }
    return true;
  }

  delete(key: K): void {
    const value = this.#entries.get(key);
    if (value === undefined) return;
    this.#entries.delete(key);
    this.#bytes -= this.#sizeOf(value);
    this.#dropped?.(value);
  }

  clear(): void {
    if (this.#dropped !== undefined)
      for (const value of this.#entries.values()) this.#dropped(value);
    this.#entries.clear();
    this.#bytes = 0;
  }

  keys(): IterableIterator<K> {
    return this.#entries.keys();
  }
}
