/**
 * Component names: dot-joined directory segments, each an identifier, optionally behind
 * `prefix:`. Anything else is invalid. Because `-` never occurs in a valid name, the
 * file-safe form (`:` → `--`) can be mapped back unambiguously.
 */

const SEGMENT = "[A-Za-z_][A-Za-z0-9_]*";
const NAME_PATTERN = new RegExp(`^(?:${SEGMENT}:)?${SEGMENT}(?:\\.${SEGMENT})*$`);
const SEGMENT_PATTERN = new RegExp(`^${SEGMENT}$`);

/** Longest accepted component name, in characters. */
export const MAX_NAME_LENGTH = 200;

/** Whether `value` is a well-formed component name. */
export function isValidName(value: string): boolean {
  return value.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(value);
}

/** Whether `value` may be one directory segment of a name (or a prefix). */
export function isValidSegment(value: string): boolean {
  return SEGMENT_PATTERN.test(value);
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
