/**
 * Runs `task` on every item, at most `limit` at a time, in order of start: enough to keep
 * esbuild or zlib's thread pool busy without queueing every item on it at once.
 */
export async function forEachConcurrently<T>(
  items: readonly T[],
  limit: number,
  task: (item: T) => Promise<void>,
): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await task(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}
