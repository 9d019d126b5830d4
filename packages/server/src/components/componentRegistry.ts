import { type Dirent, readdirSync, realpathSync, type Stats, statSync } from "node:fs";
import { readdir, realpath, stat } from "node:fs/promises";
import { join, resolve } from "node:path";
import {
  type ComponentName,
  componentNameProblem,
  isValidName,
  isValidSegment,
  joinName,
  MAX_NAME_LENGTH,
} from "@svc/protocol";
import { consoleLogger, type Logger } from "../logger.ts";
import { isInside } from "../util/paths.ts";
import { findProjectRoot } from "./projectRoot.ts";

/** One discovered component. */
export interface Component {
  /** `ui.button` or `app:ui.button`. */
  readonly name: ComponentName;
  /** Absolute path of the component directory. */
  readonly dir: string;
  /** Absolute path of `index.tsx` (preferred) or `index.ts`. */
  readonly entry: string;
  /** The source root the component was found under. */
  readonly source: ComponentSource;
}

export interface ComponentSource {
  /** Absolute path of the source root. */
  readonly dir: string;
  /** Names from this source are `<prefix>:<dotted path>`; empty means no prefix. */
  readonly prefix: string;
  /**
   * The project root: bundles of this source read files only below it, links included (see
   * `findProjectRoot`).
   */
  readonly root: string;
}

export interface SourceOptions {
  /** Names from this source become `<prefix>:<dotted path>`. Default: no prefix. */
  prefix?: string;
}

export interface RegistryOptions extends SourceOptions {
  /** Where warnings (skipped directories, collisions, missing sources) go. Default: console. */
  logger?: Logger;
  /**
   * Follow symbolic links that lead outside their source root during discovery.
   * Default: false — links inside the source are followed, links out of it are skipped.
   */
  followExternalSymlinks?: boolean;
  /**
   * The project root bundles may read files from (symbolic links are followed only inside
   * it). Default: found from each source directory by `findProjectRoot` — the workspace or
   * repository root, else the nearest directory with a `package.json`.
   */
  root?: string;
}

const ENTRY_FILES = ["index.tsx", "index.ts"] as const;

/**
 * Discovers component directories (those holding `index.tsx` or `index.ts`) under one or
 * more source roots.
 *
 * - {@link refresh} re-scans everything synchronously (start-up, `svc build`);
 *   {@link refreshAsync} does the same without blocking the event loop (a listing request,
 *   the live-reload check).
 * - {@link probe} looks up one unknown name on disk with a stat or two per source, so a
 *   request for a name that does not exist never walks the tree.
 * - {@link revalidate} re-checks one known component (still there? `index.tsx` added next to
 *   `index.ts`?) before it is built again.
 */
export class ComponentRegistry {
  readonly #sources: ComponentSource[] = [];
  readonly #logger: Logger;
  readonly #followExternalSymlinks: boolean;
  readonly #root: string | undefined;
  #components = new Map<ComponentName, Component>();
  /** Real paths of the registered components' directories (to tell an alias by a link). */
  #realDirs = new Set<string>();
  /** Whether {@link #components} needs sorting before it is listed (after a probe). */
  #unsorted = false;
  /** Paths already warned about, so a refresh does not repeat the same warning. */
  readonly #warned = new Set<string>();
  /** Scans are numbered as they start; a result older than the one applied is dropped. */
  #scanCount = 0;
  #applied = 0;
  #running: Promise<void> | undefined;
  #queued: Promise<void> | undefined;

  constructor(dir?: string, options: RegistryOptions = {}) {
    this.#logger = options.logger ?? consoleLogger;
    this.#followExternalSymlinks = options.followExternalSymlinks ?? false;
    this.#root = options.root === undefined ? undefined : resolve(options.root);
    if (dir !== undefined) this.addSource(dir, { prefix: options.prefix });
  }

  /**
   * Adds a source root and discovers its components. A missing or non-directory path is
   * reported through the logger and not recorded. Returns whether the source was added.
   */
  addSource(dir: string, options: SourceOptions = {}): boolean {
    const prefix = options.prefix ?? "";
    if (prefix !== "" && !isValidSegment(prefix)) {
      throw new TypeError(
        `Invalid prefix ${JSON.stringify(prefix)}: a prefix is an identifier ([A-Za-z_][A-Za-z0-9_]*) or kebab-case (product-card).`,
      );
    }
    const absolute = resolve(dir);
    const info = statSync(absolute, { throwIfNoEntry: false });
    if (info === undefined) {
      this.#logger.warn(`component source ${dir} does not exist; it was not added`);
      return false;
    }
    if (!info.isDirectory()) {
      this.#logger.warn(`component source ${dir} is not a directory; it was not added`);
      return false;
    }
    const root = this.#root ?? findProjectRoot(realOrSelf(absolute));
    this.#sources.push({ dir: absolute, prefix, root: realOrSelf(root) });
    this.refresh();
    return true;
  }

  /** The registered source roots, in the order they were added. */
  get sources(): readonly ComponentSource[] {
    return this.#sources;
  }

  /** Re-scans every source now. Later sources win name collisions; each is logged. */
  refresh(): void {
    const ticket = ++this.#scanCount;
    this.#apply(
      ticket,
      this.#sources.map((source) => runSync(this.#walk(source))),
    );
  }

  /**
   * Re-scans every source without blocking the event loop. Concurrent callers share a scan;
   * a call made while one is running waits for the next, which starts after it (so the result
   * reflects the disk as it was when the call was made).
   */
  refreshAsync(): Promise<void> {
    if (this.#running === undefined) {
      const ticket = ++this.#scanCount;
      const scan = Promise.all(this.#sources.map((source) => runAsync(this.#walk(source))));
      this.#running = scan
        .then((found) => this.#apply(ticket, found))
        .finally(() => {
          this.#running = undefined;
        });
      return this.#running;
    }
    this.#queued ??= this.#running
      .catch(() => {})
      .then(() => {
        this.#queued = undefined;
        return this.refreshAsync();
      });
    return this.#queued;
  }

  /** The component called `name`, or `undefined` when none is registered. */
  get(name: ComponentName): Component | undefined {
    return this.#components.get(name);
  }

  /**
   * `name` looked up on disk when it is not registered (created since the last scan): its
   * directory in each source whose prefix it carries, later sources first, by the same rules
   * as a scan. Costs a stat or two per source, however many components there are.
   */
  probe(name: ComponentName): Component | undefined {
    const known = this.#components.get(name);
    if (known !== undefined) return known;
    const colon = name.indexOf(":");
    const prefix = colon === -1 ? "" : name.slice(0, colon);
    const segments = name.slice(colon + 1).split(".");
    if (segments.includes("node_modules")) return undefined;
    for (const source of [...this.#sources].reverse()) {
      if (source.prefix !== prefix) continue;
      const dir = join(source.dir, ...segments);
      if (statSync(dir, { throwIfNoEntry: false })?.isDirectory() !== true) continue;
      const real = realOrUndefined(dir);
      const rootReal = realOrUndefined(source.dir);
      if (real === undefined || rootReal === undefined) continue;
      if (!this.#followExternalSymlinks && !isInside(real, rootReal)) continue;
      const entry = runSync(entryOf(dir));
      // The same directory registered under another name (through a link): a scan keeps that.
      if (entry === undefined || this.#realDirs.has(real)) continue;
      const component: Component = { name, dir, entry, source };
      this.#components.set(name, component);
      this.#realDirs.add(real);
      this.#unsorted = true;
      return component;
    }
    return undefined;
  }

  /**
   * Re-checks a registered component on disk: undefined (and forgotten) when its directory no
   * longer holds an entry; updated when the entry changed (`index.tsx` added next to
   * `index.ts`, or removed); unknown names are {@link probe}d.
   */
  revalidate(name: ComponentName): Component | undefined {
    const known = this.#components.get(name);
    if (known === undefined) return this.probe(name);
    // The first choice still a file: nothing outranks it, so one stat answers (no listing).
    if (known.entry === join(known.dir, ENTRY_FILES[0]) && isFileNow(known.entry)) return known;
    const entry = runSync(entryOf(known.dir));
    if (entry === undefined) {
      this.#components.delete(name);
      return undefined;
    }
    if (entry === known.entry) return known;
    const updated = { ...known, entry };
    this.#components.set(name, updated);
    return updated;
  }

  /** Every component, sorted by name (code point order). */
  list(): Component[] {
    if (this.#unsorted) {
      this.#components = new Map([...this.#components].sort(([a], [b]) => compareCodePoints(a, b)));
      this.#unsorted = false;
    }
    return [...this.#components.values()];
  }

  get size(): number {
    return this.#components.size;
  }

  #apply(ticket: number, perSource: readonly Found[][]): void {
    if (ticket < this.#applied) return; // a later scan has been applied already
    this.#applied = ticket;
    const found = new Map<ComponentName, Component>();
    this.#realDirs = new Set();
    for (const components of perSource) {
      for (const { component, real } of components) {
        this.#realDirs.add(real);
        const previous = found.get(component.name);
        if (previous && previous.dir !== component.dir) {
          this.#warnOnce(
            `collision:${component.name}:${previous.dir}:${component.dir}`,
            `component "${component.name}" in ${component.dir} replaces the one in ${previous.dir}`,
          );
        }
        found.set(component.name, component);
      }
    }
    this.#components = new Map([...found].sort(([a], [b]) => compareCodePoints(a, b)));
    this.#unsorted = false;
  }

  /**
   * One source's components, as a walk that asks for each file-system operation it needs
   * (see {@link FsOp}) and is run synchronously or asynchronously. One `readdir` per
   * directory; a `realpath` and `stat` only for symbolic links.
   */
  *#walk(source: ComponentSource): Generator<FsOp, Found[], unknown> {
    const found: Found[] = [];
    const rootReal = (yield { realpath: source.dir }) as string | undefined;
    if (rootReal === undefined) {
      this.#warnOnce(`missing:${source.dir}`, `component source ${source.dir} no longer exists`);
      return found;
    }
    // Real paths already walked: a directory reachable twice (through a symlink) is
    // registered once, and symlink cycles end.
    const visited = new Set<string>([rootReal]);
    const stack: Walked[] = [{ dir: source.dir, real: rootReal, segments: [] }];
    while (stack.length > 0) {
      const { dir, real, segments } = stack.pop() as Walked;
      const entries = (yield { readdir: dir }) as Dirent[] | undefined;
      if (entries === undefined) continue; // removed while walking, or unreadable
      entries.sort((a, b) => compareCodePoints(a.name, b.name));
      if (segments.length > 0) {
        const entry = yield* entryOf(dir, entries);
        const name = joinName(segments, source.prefix);
        if (entry === undefined) {
          // not a component; its subdirectories may hold some
        } else if (isValidName(name)) {
          found.push({ component: { name, dir, entry, source }, real });
        } else {
          // Every segment is valid, so only the length or a reserved last part can be wrong.
          const problem =
            name.length > MAX_NAME_LENGTH
              ? `its name is longer than ${MAX_NAME_LENGTH} characters`
              : `its name ${JSON.stringify(name)} is refused: ${componentNameProblem(name)}`;
          this.#warnOnce(`name:${dir}`, `skipped ${dir}: ${problem}`);
        }
      }
      const children: Walked[] = [];
      for (const entry of entries) {
        const name = entry.name;
        if (name === "node_modules" || name.startsWith(".")) continue;
        const path = join(dir, name);
        let childReal: string;
        if (entry.isDirectory()) {
          childReal = join(real, name);
        } else if (entry.isSymbolicLink()) {
          const target = (yield { realpath: path }) as string | undefined;
          if (target === undefined) continue;
          if (((yield { stat: target }) as Stats | undefined)?.isDirectory() !== true) continue;
          if (!this.#followExternalSymlinks && !isInside(target, rootReal)) {
            this.#warnOnce(
              `symlink:${path}`,
              `skipped ${path}: it links outside the component source (set followExternalSymlinks to follow it)`,
            );
            continue;
          }
          childReal = target;
        } else {
          continue;
        }
        if (!isValidSegment(name)) {
          this.#warnOnce(
            `invalid:${path}`,
            `skipped ${path}: "${name}" is not a valid name segment — use an identifier (letters, digits and _; not starting with a digit) or kebab-case (lowercase letters and digits joined by single hyphens, starting with a letter: product-card)`,
          );
          continue;
        }
        if (visited.has(childReal)) continue;
        visited.add(childReal);
        children.push({ dir: path, real: childReal, segments: [...segments, name] });
      }
      // Pop in name order so which alias of a doubly reachable directory wins is stable.
      for (const child of children.reverse()) stack.push(child);
    }
    return found;
  }

  #warnOnce(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#logger.warn(message);
  }
}

interface Found {
  component: Component;
  /** The real path of its directory. */
  real: string;
}

interface Walked {
  dir: string;
  real: string;
  segments: string[];
}

/** A file-system operation a walk asks for; answered with the result, or undefined on error. */
type FsOp = { readdir: string } | { realpath: string } | { stat: string };

/** The entry file of `dir` (`index.tsx` before `index.ts`; a file or a link to one). */
function* entryOf(dir: string, listed?: Dirent[]): Generator<FsOp, string | undefined, unknown> {
  const entries = listed ?? ((yield { readdir: dir }) as Dirent[] | undefined) ?? [];
  for (const file of ENTRY_FILES) {
    const entry = entries.find((e) => e.name === file);
    if (entry === undefined) continue;
    const path = join(dir, file);
    if (entry.isFile()) return path;
    if (entry.isSymbolicLink() && ((yield { stat: path }) as Stats | undefined)?.isFile()) {
      return path;
    }
  }
  return undefined;
}

/** Whether `path` is a file (or a link to one) now. */
function isFileNow(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

function runSync<T>(walk: Generator<FsOp, T, unknown>): T {
  let step = walk.next();
  while (!step.done) step = walk.next(doSync(step.value));
  return step.value;
}

async function runAsync<T>(walk: Generator<FsOp, T, unknown>): Promise<T> {
  let step = walk.next();
  while (!step.done) step = walk.next(await doAsync(step.value));
  return step.value;
}

function doSync(op: FsOp): unknown {
  try {
    if ("readdir" in op) return readdirSync(op.readdir, { withFileTypes: true });
    if ("realpath" in op) return realpathSync.native(op.realpath);
    return statSync(op.stat);
  } catch {
    return undefined;
  }
}

async function doAsync(op: FsOp): Promise<unknown> {
  try {
    if ("readdir" in op) return await readdir(op.readdir, { withFileTypes: true });
    if ("realpath" in op) return await realpath(op.realpath);
    return await stat(op.stat);
  } catch {
    return undefined;
  }
}

function realOrUndefined(path: string): string | undefined {
  try {
    return realpathSync.native(path);
  } catch {
    return undefined;
  }
}

function realOrSelf(path: string): string {
  return realOrUndefined(path) ?? path;
}

export function compareCodePoints(a: string, b: string): number {
  // Component names are ASCII, where UTF-16 order is code point order.
  return a < b ? -1 : a > b ? 1 : 0;
}
