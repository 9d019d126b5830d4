/** The file `svc build` writes beside `bundles/`. */
export const MANIFEST_FILE = "manifest.json";

/** A file a component's bundle refers to: one of its stylesheets, or an imported asset. */
export interface ManifestFile {
  /** Path relative to the build directory: `bundles/<stem>-<hash>.css`, `bundles/assets/…`. */
  file: string;
  /** Subresource-integrity value of the file (`sha384-<base64>`). */
  integrity?: string;
}

/** A vendor module a bundle needs (see {@link ManifestEntry.modules}). */
export interface ManifestModule extends ManifestFile {
  /** Its bare specifier, e.g. `"@svc/react"`. */
  module: string;
}

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
   * The component's stylesheets, in cascade order: one content-hashed file per CSS file it
   * imports (a file two components import is one file, applied once). The loader checks each
   * against its `integrity` before applying it. Absent when the component has no CSS.
   */
  css?: ManifestFile[];
  /**
   * The bundle as `moduleLoading: "url"` imports it, when that differs from `file`: a
   * component with CSS, without the imports of its stylesheets (a browser refuses a CSS file
   * as a module), which the client applies itself from `css`. Named after its own content
   * (`bundles/<file_safe_name>.<hash>.js`), listed with its integrity in `importmap.json`.
   * Absent for a component without CSS: `file` is imported as it is.
   */
  urlModule?: ManifestFile;
  /** The files it imports as URLs (images, fonts, …), below `bundles/assets/`. */
  assets?: ManifestFile[];
  /**
   * The vendor modules the standalone loader fetches for this bundle (`vendor/<stem>.<hash>.js`,
   * see `ON_DEMAND_MODULES`): those it imports and theirs, dependencies first, so they load
   * in parallel with the bundle. Absent when it imports none of them.
   */
  modules?: ManifestModule[];
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
