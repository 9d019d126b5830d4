/** Small helpers of the request path, shared by its endpoint files. */
import { type ComponentName, MAX_NAME_LENGTH, parseComponentName } from "@svc/protocol";
import { InvalidComponentNameError } from "../errors.ts";
export function decodeName(raw: string): ComponentName {
  // Longer than any valid name can be, even fully percent-encoded: refused before decoding.
  if (raw.length > MAX_NAME_LENGTH * 3) throw new InvalidComponentNameError(raw);
  if (!raw.includes("%")) return parseComponentName(raw);
  let decoded: string;
  try {
    decoded = decodeURIComponent(raw);
  } catch {
    throw new InvalidComponentNameError(raw, "its percent-encoding does not decode");
  }
  return parseComponentName(decoded);
}

export function queryOf(url: string): string | undefined {
  const q = url.indexOf("?");
  return q === -1 ? undefined : url.slice(q + 1);
}

export function stripQuery(url: string): string {
  const q = url.indexOf("?");
  return q === -1 ? url : url.slice(0, q);
}

export function truncate(value: string): string {
  return value.length > 80 ? `${value.slice(0, 80)}…` : value;
}

export function isThenable<T>(value: T | PromiseLike<T>): value is PromiseLike<T> {
  return typeof (value as PromiseLike<T>).then === "function";
}
