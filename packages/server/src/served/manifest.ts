import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, posix, resolve } from "node:path";
import {
  isValidName,
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  type ManifestFile,
  SvcError,
} from "@svc/protocol";

export {
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  type ManifestFile,
} from "@svc/protocol";

/**
 * A new, empty manifest to fill (without a prototype: a component called `__proto__` or
 * `constructor` is an entry like any other; read with `Object.hasOwn`).
 */
export function emptyManifest(): Record<string, ManifestEntry> {
  return Object.create(null) as Record<string, ManifestEntry>;
}

/** A `manifest.json` that cannot be used; the message names the file and the problem. */
export class ManifestError extends SvcError {
  constructor(message: string) {
    super("InvalidManifest", message);
    this.name = "ManifestError";
  }
}

const HASH = /^[0-9a-f]{8,64}$/;
const INTEGRITY = /^sha(?:256|384|512)-[A-Za-z0-9+/]+={0,2}$/;

/**
 * Parses and checks the text of a manifest: an object keyed by valid component names whose
 * entries have a `file` inside the build directory and a hex `hash`.
 * @param where how to name the file in messages (e.g. its path).
 * @throws ManifestError naming `where` and the first problem found.
 */
export function parseManifest(text: string, where = MANIFEST_FILE): Manifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ManifestError(`${where} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isPlainObject(value)) {
    throw new ManifestError(
      `${where} must hold a JSON object keyed by component name, not ${describe(value)}`,
    );
  }
  const manifest = emptyManifest();
  for (const [name, raw] of Object.entries(value)) {
    const label = `${where}: entry ${JSON.stringify(name)}`;
    if (!isValidName(name)) {
      throw new ManifestError(`${label}: the key is not a valid component name`);
    }
    if (!isPlainObject(raw)) {
      throw new ManifestError(`${label} must be an object with "file" and "hash"`);
    }
    const { file, hash, integrity, size, css, assets, server, dependencies, urlModule, modules } =
      raw;
    if (typeof file !== "string" || file === "") {
      throw new ManifestError(`${label} has no "file" (a path relative to the build directory)`);
    }
    if (!isInsideRelative(file)) {
      throw new ManifestError(
        `${label}: "file" ${JSON.stringify(file)} points outside the build directory (use a plain relative path like "bundles/<name>.<hash>.js")`,
      );
    }
    if (typeof hash !== "string" || hash === "") {
      throw new ManifestError(`${label} has no "hash"`);
    }
    if (!HASH.test(hash)) {
      throw new ManifestError(`${label}: "hash" ${JSON.stringify(hash)} is not lowercase hex`);
    }
    if (integrity !== undefined && (typeof integrity !== "string" || !INTEGRITY.test(integrity))) {
      throw new ManifestError(`${label}: "integrity" must look like "sha384-<base64>"`);
    }
    if (
      size !== undefined &&
      !(typeof size === "number" && Number.isSafeInteger(size) && size >= 0)
    ) {
      throw new ManifestError(`${label}: "size" must be a whole number of bytes`);
    }
    if (server !== undefined) {
      if (
        !isPlainObject(server) ||
        typeof server.file !== "string" ||
        !isInsideRelative(server.file) ||
        typeof server.integrity !== "string" ||
        !INTEGRITY.test(server.integrity)
      ) {
        throw new ManifestError(
          `${label}: "server" must be { "file": <a path inside the build directory>, "integrity": "sha384-<base64>" }`,
        );
      }
    }
    if (
      dependencies !== undefined &&
      !(
        Array.isArray(dependencies) &&
        dependencies.every((d) => typeof d === "string" && isValidName(d))
      )
    ) {
      throw new ManifestError(`${label}: "dependencies" must be an array of component names`);
    }
    const entry: ManifestEntry = { file, hash };
    if (integrity !== undefined) entry.integrity = integrity;
    if (size !== undefined) entry.size = size;
    if (urlModule !== undefined) {
      const [parsed] = parseFiles([urlModule], `${label}: "urlModule"`);
      if (parsed !== undefined) entry.urlModule = parsed;
    }
    if (css !== undefined) entry.css = parseFiles(css, `${label}: "css"`);
    if (assets !== undefined) entry.assets = parseFiles(assets, `${label}: "assets"`);
    if (modules !== undefined) {
      const files = parseFiles(modules, `${label}: "modules"`);
      entry.modules = files.map((f, i) => {
        const module = (modules as { module?: unknown }[])[i]?.module;
        if (typeof module !== "string" || module === "") {
          throw new ManifestError(`${label}: "modules"[${i}] has no "module" (its specifier)`);
        }
        return { module, ...f };
      });
    }
    if (dependencies !== undefined) entry.dependencies = dependencies as string[];
    if (isPlainObject(server)) {
      entry.server = { file: server.file as string, integrity: server.integrity as string };
    }
    manifest[name] = entry;
  }
  return manifest;
}

/** A `css` or `assets` list: `[{ file, integrity? }]`, each file inside the build directory. */
function parseFiles(value: unknown, label: string): ManifestFile[] {
  if (!Array.isArray(value)) {
    throw new ManifestError(`${label} must be an array of { "file", "integrity" }`);
  }
  return value.map((item, i) => {
    const where = `${label}[${i}]`;
    if (!isPlainObject(item) || typeof item.file !== "string" || item.file === "") {
      throw new ManifestError(`${where} must be an object with a "file"`);
    }
    if (!isInsideRelative(item.file)) {
      throw new ManifestError(
        `${where}: "file" ${JSON.stringify(item.file)} points outside the build directory (use a plain relative path like "bundles/<name>-<hash>.css")`,
      );
    }
    const { integrity } = item;
    if (integrity !== undefined && (typeof integrity !== "string" || !INTEGRITY.test(integrity))) {
      throw new ManifestError(`${where}: "integrity" must look like "sha384-<base64>"`);
    }
    return integrity === undefined ? { file: item.file } : { file: item.file, integrity };
  });
}

/**
 * Reads and checks `<buildDir>/manifest.json`.
 * @throws ManifestError when the file is missing, unreadable or malformed.
 */
export function readManifest(buildDir: string): Manifest {
  return readManifestFile(buildDir).manifest;
}

/** {@link readManifest}, with the file's bytes as read. */
export function readManifestFile(buildDir: string): { bytes: Uint8Array; manifest: Manifest } {
  const path = join(buildDir, MANIFEST_FILE);
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new ManifestError(
      code === "ENOENT"
        ? `${path} does not exist — run \`svc build --output ${buildDir}\` first`
        : `${path} cannot be read (${code ?? String(error)})`,
    );
  }
  return { bytes, manifest: parseManifest(bytes.toString("utf8"), path) };
}

/**
 * The build directory to serve pre-built bundles from, following `SVC_BUILD_DIR`:
 * set → that path; set to "" → none (pre-built bundles explicitly disabled); unset →
 * `defaultPath` when it holds a `manifest.json`, else none.
 */
export function resolveBuildDir(
  defaultPath?: string,
  env: Readonly<Record<string, string | undefined>> = process.env,
): string | undefined {
  const fromEnv = env.SVC_BUILD_DIR;
  if (fromEnv !== undefined) return fromEnv === "" ? undefined : resolve(fromEnv);
  if (defaultPath === undefined) return undefined;
  const dir = resolve(defaultPath);
  return existsSync(join(dir, MANIFEST_FILE)) ? dir : undefined;
}

/** A manifest `file` must be a plain relative POSIX path that stays inside the directory. */
function isInsideRelative(file: string): boolean {
  if (file.includes("\\") || file.includes("\0") || isAbsolute(file) || /^[A-Za-z]:/.test(file)) {
    return false;
  }
  const normal = posix.normalize(file);
  return normal === file && normal !== "." && normal !== ".." && !normal.startsWith("../");
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "an array";
  return `a ${typeof value}`;
}
