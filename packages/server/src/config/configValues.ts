/** Single values of the config, checked and made absolute where the resolver takes them. */
import { resolve } from "node:path";
import { UsageError } from "./usageError.ts";

/** Where a config is resolved: relative flags from `cwd`, the file's paths from `root`. */
export interface ConfigPlace {
  cwd: string;
  /** The directory of the config file, or `cwd` without one. */
  root: string;
  /** The config file as messages name it (relative to `cwd`); "" without one. */
  where: string;
}

/**
 * `url` as a base URL browsers can use: an absolute `http(s)://` URL or a path from the root
 * (`/svc`), without its trailing slash.
 * @throws UsageError naming `source` otherwise
 */
export function checkUrl(url: string | undefined, source: string): string | undefined {
  if (url === undefined) return undefined;
  const trimmed = url.replace(/\/+$/, "");
  if (trimmed.startsWith("/") && !trimmed.startsWith("//")) return trimmed;
  try {
    const parsed = new URL(trimmed);
    if (
      (parsed.protocol === "http:" || parsed.protocol === "https:") &&
      !parsed.search &&
      !parsed.hash
    ) {
      return trimmed;
    }
  } catch {
    // said below
  }
  throw new UsageError(
    `${source}: ${JSON.stringify(url)} is no base URL — give an http(s) URL (http://127.0.0.1:8000/api) or a path (/svc)`,
  );
}

/** A declaration file's absolute path. @throws UsageError unless it names a TypeScript file. */
export function typesFile(base: string, file: string, where: string): string {
  if (!/\.[cm]?ts$/.test(file)) {
    throw new UsageError(
      `${where} ${JSON.stringify(file)} is not a TypeScript file — name a .d.ts file, e.g. svc-env.d.ts`,
    );
  }
  return resolve(base, file);
}
