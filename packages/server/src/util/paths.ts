import { isAbsolute, relative, sep } from "node:path";

/** Whether `path` is `dir` itself or lies below it (both absolute, already resolved). */
export function isInside(path: string, dir: string): boolean {
  const rel = relative(dir, path);
  return rel === "" || (rel !== ".." && !rel.startsWith(`..${sep}`) && !isAbsolute(rel));
}

/** `path` with forward slashes, as svc writes paths into bundles, messages and manifests. */
export function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}
