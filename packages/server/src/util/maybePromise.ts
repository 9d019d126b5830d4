/**
 * A value, or the promise of it: what a warm path answers synchronously and a cold one later
 * (a cached bundle now, a build's bundle when esbuild is done). `await` would cost the warm
 * path a microtask per step; {@link andThen} keeps it synchronous.
 */
export type MaybePromise<T> = T | Promise<T>;

/**
 * `fn(value)` at once when `value` is no promise, `value.then(fn)` when it is: a step of a
 * path that stays synchronous while every value on it is at hand, and adds no microtask of
 * its own. (Named `andThen`, not `then`: a module exporting `then` would make its own
 * namespace a thenable, which `await import()` would try to call.)
 */
export function andThen<T, R>(
  value: MaybePromise<T>,
  fn: (value: T) => MaybePromise<R>,
): MaybePromise<R> {
  return value instanceof Promise ? value.then(fn) : fn(value);
}
