import { createHash } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { isAbsolute, join, posix, resolve } from "node:path";
import { MANIFEST_FILE, type ManifestEntry, SvcError } from "@svc/protocol";
import { isValidName } from "../components/names.ts";
import { BundleError } from "../errors.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { type FileStamp, sameStamp, stampOf } from "../util/fileStamp.ts";
import { currentTurn } from "../util/loopTurn.ts";
import { readFileInside } from "./staticFiles.ts";

export { MANIFEST_FILE, type ManifestEntry } from "@svc/protocol";

/**
 * `manifest.json`: component name → entry. The objects svc makes have no prototype, so a
 * component called `__proto__` or `constructor` is an entry like any other; read with
 * `Object.hasOwn`.
 */
export type Manifest = Record<string, ManifestEntry>;

/** A new, empty {@link Manifest} (without a prototype). */
export function emptyManifest(): Manifest {
  return Object.create(null) as Manifest;
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
    const { file, hash, integrity, size } = raw;
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
    const entry: ManifestEntry = { file, hash };
    if (integrity !== undefined) entry.integrity = integrity;
    if (size !== undefined) entry.size = size;
    manifest[name] = entry;
  }
  return manifest;
}

/**
 * Reads and checks `<buildDir>/manifest.json`.
 * @throws ManifestError when the file is missing, unreadable or malformed.
 */
export function readManifest(buildDir: string): Manifest {
  return readManifestFile(buildDir).manifest;
}

/** {@link readManifest}, with the file's bytes as read. */
function readManifestFile(buildDir: string): { bytes: Uint8Array; manifest: Manifest } {
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

/** One bundle read from a build directory. */
export interface PrebuiltBundle {
  name: string;
  code: Uint8Array;
  hash: string;
}

interface Generation {
  stamp: FileStamp | undefined;
  manifest: Manifest;
  /** The bytes `manifest` was parsed from. */
  bytes: Uint8Array;
  /** Bundles read so far (or being read), by component name. */
  bundles: Map<string, Promise<PrebuiltBundle>>;
  /** Bundles read and checked, by component name: what {@link PrebuiltBundles.peek} answers. */
  ready: Map<string, PrebuiltBundle>;
}

/**
 * The bundles of a build directory, as the handler set serves them. The manifest is read
 * at construction (a missing or malformed one throws at once) and kept; each bundle file is
 * read on first use, checked against its hash and kept for good. When a new build is swapped
 * into the directory (its `manifest.json` is a new file), the next call picks it up.
 */
export class PrebuiltBundles {
  readonly dir: string;
  readonly #logger: Logger;
  #current: Generation;
  /** Stamp of a `manifest.json` found unusable, so it is reported once, not per request. */
  #refused: FileStamp | undefined;
  #checkedTurn = -1;
  readonly #manifestPath: string;

  /** @param options.logger where a refused manifest is reported. Default: console. */
  constructor(buildDir: string, options: { logger?: Logger } = {}) {
    this.dir = resolve(buildDir);
    this.#manifestPath = join(this.dir, MANIFEST_FILE);
    this.#logger = options.logger ?? consoleLogger;
    this.#current = this.#load();
  }

  /** The manifest currently in use. */
  get manifest(): Manifest {
    return this.#fresh().manifest;
  }

  /**
   * The bytes of the manifest currently in use, exactly as read: what the static route
   * serves as `manifest.json`, so a manifest refused at run time is never handed to clients
   * while the API keeps serving the previous build.
   */
  get manifestBytes(): Uint8Array {
    return this.#fresh().bytes;
  }

  /** The manifest entry of `name`, or undefined when the build does not hold it. */
  entry(name: string): ManifestEntry | undefined {
    const { manifest } = this.#fresh();
    return Object.hasOwn(manifest, name) ? manifest[name] : undefined;
  }

  /**
   * The bytes and hash of `name`'s bundle, or undefined when the manifest does not list it.
   * @throws BundleError when the listed file is missing or does not match its hash.
   */
  read(name: string): Promise<PrebuiltBundle> | undefined {
    const generation = this.#fresh();
    const ready = generation.ready.get(name);
    if (ready !== undefined) return Promise.resolve(ready);
    return this.#read(generation, name);
  }

  /**
   * The bundle of `name` when it is listed and already read into memory, else undefined: the
   * synchronous fast path of {@link read}, which a request for a warm bundle takes.
   */
  peek(name: string): PrebuiltBundle | undefined {
    return this.#fresh().ready.get(name);
  }

  #read(generation: Generation, name: string): Promise<PrebuiltBundle> | undefined {
    const entry = Object.hasOwn(generation.manifest, name) ? generation.manifest[name] : undefined;
    if (entry === undefined) return undefined;
    let pending = generation.bundles.get(name);
    if (pending === undefined) {
      pending = this.#readBundle(name, entry);
      generation.bundles.set(name, pending);
      pending.then(
        (bundle) => {
          if (generation.bundles.get(name) === pending) generation.ready.set(name, bundle);
        },
        () => {},
      );
      // A failed read is not kept: the file may appear (or be fixed) later.
      pending.catch(() => {
        if (generation.bundles.get(name) === pending) generation.bundles.delete(name);
      });
    }
    return pending;
  }

  async #readBundle(name: string, entry: ManifestEntry): Promise<PrebuiltBundle> {
    let code: Uint8Array | undefined;
    try {
      // `file` was checked to stay inside when the manifest was read; a symbolic link in the
      // build directory could still lead out of it, so the real path is checked here.
      code = await readFileInside(this.dir, entry.file);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? String(error);
      throw new BundleError(
        name,
        [{ text: `${entry.file}, listed in ${MANIFEST_FILE}, cannot be read (${code})` }],
        { cause: error },
      );
    }
    if (code === undefined) {
      throw new BundleError(name, [
        {
          text: `${entry.file}, listed in ${MANIFEST_FILE}, does not exist or leads outside the build directory`,
        },
      ]);
    }
    const actual = createHash("sha256").update(code).digest("hex");
    if (!actual.startsWith(entry.hash)) {
      throw new BundleError(name, [
        {
          text: `${entry.file} does not match its hash ${entry.hash} in ${MANIFEST_FILE}; rebuild with svc build`,
        },
      ]);
    }
    return { name, code, hash: entry.hash };
  }

  /**
   * The current generation, re-read when `manifest.json` has been replaced or rewritten.
   * Checked at most once per turn of the event loop (see `loopTurn.ts`).
   */
  #fresh(): Generation {
    const turn = currentTurn();
    if (this.#checkedTurn === turn) return this.#current;
    this.#checkedTurn = turn;
    const stamp = stampOf(this.#manifestPath);
    // Absent for a moment (a deploy that replaces the whole directory): keep what we have.
    if (
      stamp === undefined ||
      sameStamp(stamp, this.#current.stamp) ||
      (this.#refused !== undefined && sameStamp(stamp, this.#refused))
    ) {
      return this.#current;
    }
    try {
      this.#current = this.#load();
    } catch (error) {
      if (!(error instanceof ManifestError)) throw error;
      // An unusable manifest (half written, an entry pointing outside the directory) is
      // refused like at startup, but the build already in use keeps being served.
      this.#refused = stamp;
      this.#logger.warn(`${error.message} — it was refused; the previous build is still served`);
    }
    return this.#current;
  }

  #load(): Generation {
    const stamp = stampOf(this.#manifestPath);
    const { bytes, manifest } = readManifestFile(this.dir);
    return { stamp, manifest, bytes, bundles: new Map(), ready: new Map() };
  }
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
