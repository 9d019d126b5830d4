import { createHash } from "node:crypto";
import { join, posix, resolve } from "node:path";
import { type RecordWatch, watchRecord } from "../bundling/dirWatches.ts";
import { BundleError } from "../errors.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { contentHash, matchesContentHash } from "../util/contentHash.ts";
import { type FileStamp, sameStamp, stampOf } from "../util/fileStamp.ts";
import { currentTurn } from "../util/loopTurn.ts";
import {
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  ManifestError,
  readManifestFile,
} from "./manifest.ts";
import { readFileInside } from "./staticFiles.ts";

/** One bundle read from a build directory. */
export interface PrebuiltBundle {
  name: string;
  code: Uint8Array;
  hash: string;
  /** The manifest entry's `dependencies` (browser bundles; none for server bundles). */
  dependencies: readonly string[];
  /** Its stylesheets (the entry's `css`), by path relative to the bundle. */
  stylesheets: readonly { path: string }[];
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
  /** Server bundles read so far (or being read), by component name. */
  servers: Map<string, Promise<PrebuiltBundle>>;
  /** Server bundles read and checked, by component name: what {@link PrebuiltBundles.peekServer} answers. */
  serversReady: Map<string, PrebuiltBundle>;
}

/**
 * The bundles of a build directory, as the handler set serves them. The manifest is read
 * at construction (a missing or malformed one throws at once) and kept; each bundle file is
 * read on first use, checked against its hash and kept for good. When a new build is swapped
 * into the directory (its `manifest.json` is a new file), the next call picks it up.
 *
 * `manifest.json` is stat-checked once a turn. Between checks, a watch of the directory
 * (Linux, local file systems: see `dirWatches.ts`) may vouch for it instead, for the bundle
 * requests that ask through {@link leftToWatch} and {@link vouched}: as for a dev bundle, such a
 * request is answered once a poll phase that began after it has run, so a build published
 * before the request is seen.
 */
export class PrebuiltBundles {
  readonly dir: string;
  readonly #logger: Logger;
  #current: Generation;
  /** Stamp of a `manifest.json` found unusable, so it is reported once, not per request. */
  #refused: FileStamp | undefined;
  #checkedTurn = -1;
  readonly #manifestPath: string;
  /** The watch of `manifest.json` (undefined: not set yet; null: it cannot be watched). */
  #watch: RecordWatch | null | undefined;

  /**
   * @param options.logger where a refused manifest is reported. Default: console.
   * @param options.watch let a watch vouch for `manifest.json` between stat checks. Default: true.
   */
  constructor(buildDir: string, options: { logger?: Logger; watch?: boolean } = {}) {
    this.dir = resolve(buildDir);
    this.#manifestPath = join(this.dir, MANIFEST_FILE);
    this.#logger = options.logger ?? consoleLogger;
    if (options.watch === false) this.#watch = null;
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
    return this.#read(this.#fresh(), name);
  }

  /**
   * The bundle of `name` when it is listed and already read into memory, else undefined: the
   * synchronous fast path of {@link read}, which a request for a warm bundle takes.
   */
  peek(name: string): PrebuiltBundle | undefined {
    return this.#fresh().ready.get(name);
  }

  /** {@link read} of `generation`: the bundle kept, or read now (once). */
  #read(generation: Generation, name: string): Promise<PrebuiltBundle> | undefined {
    const ready = generation.ready.get(name);
    if (ready !== undefined) return Promise.resolve(ready);
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

  /**
   * The server bundle of `name` (`entry.server`), read once per build and checked against its
   * integrity: what production renders islands with, no esbuild involved.
   * @throws BundleError when the file is missing, leads outside, or does not match
   */
  readServer(name: string, server: { file: string; integrity: string }): Promise<PrebuiltBundle> {
    const generation = this.#fresh();
    let pending = generation.servers.get(name);
    if (pending === undefined) {
      pending = this.#readServer(name, server);
      generation.servers.set(name, pending);
      pending.then(
        (bundle) => {
          if (generation.servers.get(name) === pending) generation.serversReady.set(name, bundle);
        },
        () => {
          if (generation.servers.get(name) === pending) generation.servers.delete(name);
        },
      );
    }
    return pending;
  }

  /**
   * The server bundle of `name` when the build in use lists it and it is already read into
   * memory, else undefined: the synchronous fast path of {@link readServer}, which a warm
   * render takes.
   */
  peekServer(name: string): PrebuiltBundle | undefined {
    return this.#fresh().serversReady.get(name);
  }

  async #readServer(
    name: string,
    server: { file: string; integrity: string },
  ): Promise<PrebuiltBundle> {
    const code = await readFileInside(this.dir, server.file).catch(() => undefined);
    const where = `${server.file}, listed in ${MANIFEST_FILE} as the server bundle of "${name}",`;
    if (code === undefined) {
      throw new BundleError(name, [{ text: `${where} cannot be read` }]);
    }
    const [algorithm, digest] = server.integrity.split("-", 2) as [string, string];
    if (createHash(algorithm).update(code).digest("base64") !== digest) {
      throw new BundleError(name, [
        { text: `${where} does not match its integrity; rebuild with svc build` },
      ]);
    }
    const hash = contentHash(code);
    return { name, code, hash, dependencies: [], stylesheets: [] };
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
    if (!matchesContentHash(code, entry.hash)) {
      throw new BundleError(name, [
        {
          text: `${entry.file} does not match its hash ${entry.hash} in ${MANIFEST_FILE}; rebuild with svc build`,
        },
      ]);
    }
    return {
      name,
      code,
      hash: entry.hash,
      dependencies: entry.dependencies ?? [],
      // The bundle imports them relative to itself: `bundles/card-….css` → `card-….css`.
      stylesheets: (entry.css ?? []).map(({ file }) => ({
        path: posix.relative(posix.dirname(entry.file), file),
      })),
    };
  }

  /**
   * The current generation, re-read when `manifest.json` has been replaced or rewritten.
   * Checked at most once per turn of the event loop (see `loopTurn.ts`).
   */
  #fresh(): Generation {
    const turn = currentTurn();
    if (this.#checkedTurn === turn) return this.#current;
    this.#checkedTurn = turn;
    return this.#check();
  }

  /**
   * Whether a bundle request may leave the manifest to its watch this turn: not stat-checked
   * this turn, and nothing heard since the last check confirmed it (less than a second ago).
   * Then {@link vouched}, after the poll phase, gives the generation to answer from.
   */
  leftToWatch(): boolean {
    return this.#checkedTurn !== currentTurn() && this.#watch?.quiet() === true;
  }

  /**
   * After a poll phase that began after the request ({@link afterPoll}): `name`'s bundle as
   * {@link read} gives it, from the generation the watch still vouches for, or else from a
   * stat check's (which records no turn: the next turn's requests may be newer).
   */
  vouched(name: string): Promise<PrebuiltBundle> | undefined {
    return this.#read(this.#watch?.quiet() === true ? this.#current : this.#check(), name);
  }

  /** `manifest.json` checked by stats now; the watch (set on the first check) learns of it. */
  #check(): Generation {
    if (this.#watch === undefined) {
      this.#watch =
        watchRecord([{ path: this.dir, names: [MANIFEST_FILE], listing: false }]) ?? null;
    }
    // Before the stat: a change after it is heard by the watch.
    this.#watch?.mark();
    const stamp = stampOf(this.#manifestPath);
    // Absent for a moment (a deploy that replaces the whole directory): keep what we have.
    if (
      stamp === undefined ||
      sameStamp(stamp, this.#current.stamp) ||
      (this.#refused !== undefined && sameStamp(stamp, this.#refused))
    ) {
      if (stamp !== undefined) this.#watch?.confirm();
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
    this.#watch?.confirm();
    return this.#current;
  }

  #load(): Generation {
    const stamp = stampOf(this.#manifestPath);
    const { bytes, manifest } = readManifestFile(this.dir);
    return {
      stamp,
      manifest,
      bytes,
      bundles: new Map(),
      ready: new Map(),
      servers: new Map(),
      serversReady: new Map(),
    };
  }
}
