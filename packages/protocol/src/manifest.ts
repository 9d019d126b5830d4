/** The file `svc build` writes beside `bundles/`. */
export const MANIFEST_FILE = "manifest.json";

/** One component in `manifest.json`. */
export interface ManifestEntry {
  /** Path relative to the build directory: `bundles/<file_safe_name>.<hash>.js`. */
  file: string;
  /** First 12 hex characters of the SHA-256 of the file's bytes (also part of its name). */
  hash: string;
  /** Subresource-integrity value of the file (`sha384-<base64>`), checked by the loader. */
  integrity?: string;
  /** Size of the file in bytes. */
  size?: number;
  /**
   * The components the bundle asks for by a literal name (see `ComponentMetadata`), sorted;
   * absent when none. The loader fetches those the manifest
   * lists, transitively, in parallel with the bundle.
   */
  dependencies?: string[];
  /**
   * The component built for Node, to render it on the server (islands): path relative to the
   * build directory (`server/<file_safe_name>.<hash>.cjs`) and its integrity. Never served.
   */
  server?: { file: string; integrity: string };
}

/**
 * `manifest.json`: component name → entry. Read it with `Object.hasOwn` (or into a `Map`):
 * a component may be called `__proto__` or `constructor`.
 */
export type Manifest = Readonly<Record<string, ManifestEntry>>;
