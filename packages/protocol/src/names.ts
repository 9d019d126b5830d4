/**
 * Component names: dot-joined directory segments, each an identifier, optionally behind
 * `prefix:` (`ui.button`, `app:ui.button`). Anything else is invalid. Because `-` never occurs
 * in a valid name, the file-safe form (`:` → `--`) maps back unambiguously.
 */

/** Longest accepted component name, in characters. */
export const MAX_NAME_LENGTH = 200;

const SEGMENT = "[A-Za-z_][A-Za-z0-9_]*";
const SEGMENT_PATTERN = new RegExp(`^${SEGMENT}$`);
/** The whole grammar in one expression: the fast check every request makes. */
const NAME_PATTERN = new RegExp(`^(?:${SEGMENT}:)?${SEGMENT}(?:\\.${SEGMENT})*$`);

declare const componentNameBrand: unique symbol;

/**
 * A string known to be a well-formed component name: made once, where a name enters (a URL
 * path, a directory walk, an API call), by {@link parseComponentName} or
 * {@link asComponentName}, and trusted everywhere after.
 */
export type ComponentName = string & { readonly [componentNameBrand]: true };

/** Whether `value` may be one directory segment of a name (or a prefix). */
export function isValidSegment(value: string): boolean {
  return SEGMENT_PATTERN.test(value);
}

/** Whether `value` is a well-formed component name. */
export function isValidName(value: string): value is ComponentName {
  return value.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(value);
}

/**
 * Why `name` is not a valid component name (a phrase to follow "Invalid component name …:"),
 * or undefined when it is valid.
 */
export function componentNameProblem(name: string): string | undefined {
  if (isValidName(name)) return undefined;
  if (name.length === 0) return "it is empty";
  if (name.length > MAX_NAME_LENGTH) return `it is longer than ${MAX_NAME_LENGTH} characters`;
  const colon = name.indexOf(":");
  if (colon !== -1 && name.indexOf(":", colon + 1) !== -1) return "it has more than one colon";
  if (colon !== -1 && !isValidSegment(name.slice(0, colon))) {
    return "the prefix before the colon must be an identifier";
  }
  return (
    "each dot-separated part must be an identifier (letters, digits and _, not starting with a " +
    'digit), optionally behind one "prefix:"'
  );
}

/** The name of a component found at `segments` below a source registered with `prefix`. */
export function joinName(segments: readonly string[], prefix?: string): string {
  const dotted = segments.join(".");
  return prefix ? `${prefix}:${dotted}` : dotted;
}

/** The name as it appears in file names: every `:` becomes `--`. */
export function fileSafeName(name: string): string {
  return name.replaceAll(":", "--");
}

/** Inverse of {@link fileSafeName}. */
export function fromFileSafeName(safe: string): string {
  return safe.replaceAll("--", ":");
}
