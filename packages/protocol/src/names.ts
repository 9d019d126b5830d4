/**
 * Component names: dot-joined directory segments, optionally behind `prefix:` (`ui.button`,
 * `app:ui.button`, `ui.product-card`, `shop:product-card`). A segment — and a prefix, which
 * is one segment — is either an identifier (`[A-Za-z_][A-Za-z0-9_]*`) or kebab-case: parts of
 * lowercase ASCII letters and digits joined by single hyphens, the first starting with a letter
 * (`product-card`, `nav2-item`). Anything else is invalid.
 *
 * Because `--` never occurs in a valid name (a kebab segment has single hyphens only, and
 * neither starts nor ends with one), the file-safe form (`:` → `--`) maps back unambiguously.
 *
 * One shape is reserved: a name whose last part is exactly 12 hex digits (`card-3f2a9c0b1d4e`)
 * is refused, because `/bundles/card-3f2a9c0b1d4e.css` is the URL of a bundle's stylesheet
 * file (`<stem>-<12 hex>.css`), not of a component's whole stylesheet.
 */

import { HASH_SOURCE } from "./hashes.ts";

/** Longest accepted component name, in characters. */
export const MAX_NAME_LENGTH = 200;

const IDENTIFIER = "[A-Za-z_][A-Za-z0-9_]*";
const KEBAB = "[a-z][a-z0-9]*(?:-[a-z0-9]+)+";
const SEGMENT = `(?:${IDENTIFIER}|${KEBAB})`;
const SEGMENT_PATTERN = new RegExp(`^${SEGMENT}$`);
/** The whole grammar in one expression: the fast check every request makes. */
const NAME_PATTERN = new RegExp(`^(?:${SEGMENT}:)?${SEGMENT}(?:\\.${SEGMENT})*$`);
/** A last kebab part that is a content hash: the end of a stylesheet file's name. */
const RESERVED_END = new RegExp(`-${HASH_SOURCE}$`);

declare const componentNameBrand: unique symbol;

/**
 * A string known to be a well-formed component name: made once, where a name enters (a URL
 * path, a directory walk, an API call), by {@link parseComponentName} or
 * {@link asComponentName}, and trusted everywhere after.
 */
export type ComponentName = string & { readonly [componentNameBrand]: true };

/**
 * Whether `value` may be one directory segment of a name (or a prefix): an identifier or
 * kebab-case.
 */
export function isValidSegment(value: string): boolean {
  return SEGMENT_PATTERN.test(value);
}

/** Whether `value` is a well-formed component name. */
export function isValidName(value: string): value is ComponentName {
  return value.length <= MAX_NAME_LENGTH && NAME_PATTERN.test(value) && !RESERVED_END.test(value);
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
    return "the prefix before the colon must be an identifier or kebab-case";
  }
  if (NAME_PATTERN.test(name)) {
    return (
      `its last part "${name.slice(-12)}" is 12 hex digits, which svc keeps for the names of ` +
      "stylesheet files (<stem>-<hash>.css)"
    );
  }
  return (
    "each dot-separated part must be an identifier (letters, digits and _, not starting with a " +
    "digit) or kebab-case (lowercase letters and digits joined by single hyphens, starting " +
    'with a letter), optionally behind one "prefix:"'
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

/** Inverse of {@link fileSafeName} for valid names (which never hold `--`). */
export function fromFileSafeName(safe: string): string {
  return safe.replaceAll("--", ":");
}
