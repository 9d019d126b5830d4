import { ComponentNotFoundError } from "../errors.ts";

/**
 * The registered name `name` was most likely meant as, or undefined: one that differs only in
 * case first, else the one at the smallest edit distance (Damerau-Levenshtein: insertions,
 * deletions, substitutions, swaps of neighbours) when that is at most 2 or at most a third of
 * `name`'s length — and less than its length, so `ab` suggests nothing for `cd`. Ties go to
 * the first in `names`' order. A pass over `names`: meant for answering a 404 only.
 */
export function closestName(name: string, names: readonly string[]): string | undefined {
  const lower = name.toLowerCase();
  const sameLetters = names.find((n) => n !== name && n.toLowerCase() === lower);
  if (sameLetters !== undefined) return sameLetters;
  const limit = Math.min(Math.max(2, Math.floor(name.length / 3)), name.length - 1);
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of names) {
    if (candidate === name || Math.abs(candidate.length - name.length) >= bestDistance) continue;
    const distance = editDistance(name, candidate, bestDistance - 1);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/** `ComponentNotFoundError` for `name`, its message suggesting the closest of `names`. */
export function componentNotFound(name: string, names: readonly string[]): ComponentNotFoundError {
  const error = new ComponentNotFoundError(name);
  const suggestion = closestName(name, names);
  if (suggestion !== undefined) {
    error.message = `No component named "${name}" is registered — did you mean "${suggestion}"?`;
  }
  return error;
}

/**
 * The optimal-string-alignment distance of `a` and `b` (Damerau-Levenshtein, each character
 * edited at most once), or `max + 1` as soon as it must exceed `max`.
 */
export function editDistance(a: string, b: string, max = Number.POSITIVE_INFINITY): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  let before = new Array<number>(b.length + 1).fill(0);
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  let current = new Array<number>(b.length + 1).fill(0);
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(
        (previous[j] as number) + 1,
        (current[j - 1] as number) + 1,
        (previous[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, (before[j - 2] as number) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    // Every later row is at least this row's least value.
    if (rowMin > max) return max + 1;
    [before, previous, current] = [previous, current, before];
  }
  return Math.min(previous[b.length] as number, max + 1);
}
