import { InvalidComponentNameError } from "./errors.ts";

const SEGMENT = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_LENGTH = 200;

/**
 * Why `name` is not a valid component name, or undefined when it is. The rules are the
 * server's: dot-joined identifier segments, optionally preceded by `prefix:`.
 */
export function componentNameProblem(name: string): string | undefined {
  if (name.length === 0) return "it is empty";
  if (name.length > MAX_LENGTH) return `it is longer than ${MAX_LENGTH} characters`;
  const colon = name.indexOf(":");
  if (colon !== -1 && name.indexOf(":", colon + 1) !== -1) return "it has more than one colon";
  const prefix = colon === -1 ? undefined : name.slice(0, colon);
  if (prefix !== undefined && !SEGMENT.test(prefix)) {
    return "the prefix must be an identifier";
  }
  const path = colon === -1 ? name : name.slice(colon + 1);
  for (const segment of path.split(".")) {
    if (!SEGMENT.test(segment)) {
      return "each dot-separated part must be an identifier (letters, digits, underscores; not starting with a digit)";
    }
  }
  return undefined;
}

/** Throws {@link InvalidComponentNameError} unless `name` is a valid component name. */
export function assertComponentName(name: string): void {
  const problem = componentNameProblem(name);
  if (problem !== undefined) throw new InvalidComponentNameError(name, problem);
}

/** The file-system-safe form used in built file names: every `:` becomes `--`. */
export function fileSafeName(name: string): string {
  return name.replaceAll(":", "--");
}
