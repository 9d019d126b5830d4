/**
 * The parts the config schema is made of. Their messages name the key through two
 * placeholders that `checkConfig` fills in from where the problem was found.
 */
import * as v from "valibot";

/** The path of the key at fault: `types`, `serve.port`, `sources[0].prefix`. */
export const KEY = "{key}";
/** The path of the object holding the key at fault, with its dot: `build.` (`""` at the top). */
export const PARENT = "{parent}";

/** A string. */
export function text() {
  return v.string(`${KEY} must be a string`);
}

/** `true` or `false`. */
export function flag() {
  return v.boolean(`${KEY} must be a boolean`);
}

/** A whole number of at least `least`. */
export function wholeNumber(
  least: number,
  message = `${KEY} must be a whole number of at least ${least}`,
) {
  return v.pipe(v.number(message), v.integer(message), v.minValue(least, message));
}

/** One of `choices`, which the message lists. */
export function choice<const TChoices extends readonly string[]>(choices: TChoices) {
  const listed = choices.map((c) => JSON.stringify(c));
  const last = listed.pop();
  const message = `${KEY} must be ${listed.length === 0 ? last : `${listed.join(", ")} or ${last}`}`;
  return v.picklist(choices, message);
}

/**
 * A list of strings (each passing `isItem`), judged whole: whichever item is wrong, the
 * message names the key.
 */
export function stringList(
  message: string,
  isItem: (item: unknown) => boolean = (item) => typeof item === "string",
) {
  return v.custom<string[]>((value) => Array.isArray(value) && value.every(isItem), message);
}

/**
 * An object with exactly the keys of `entries`: `problem` when the value has not the shape
 * `isShape` asks (by default a plain object: an array is none), and a key not in `entries` is
 * named together with the known ones, so a typo is found at start.
 */
export function section<const TEntries extends v.ObjectEntries>(
  entries: TEntries,
  problem: string,
  isShape: (value: unknown) => boolean = isPlainObject,
) {
  const known = Object.keys(entries)
    .map((key) => `${PARENT}${key}`)
    .join(", ");
  // Its only issue once `isShape` holds: a key it does not know.
  const keys = v.strictObject(entries, `unknown key "${KEY}" (known: ${known})`);
  return v.pipe(v.custom<v.InferInput<typeof keys>>(isShape, problem), keys);
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}
