import { readdirSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { InvalidComponentNameError } from "../errors.ts";
import { consoleLogger, type Logger } from "../logger.ts";
import { isValidName, isValidSegment, joinName } from "./names.ts";

/** One discovered component. */
export interface Component {
  /** `ui.button` or `app:ui.button`. */
  readonly name: string;
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
}

const ENTRY_FILES = ["index.tsx", "index.ts"] as const;

/**
 * Discovers component directories (those holding `index.tsx` or `index.ts`) under one or
 * more source roots. Discovery is synchronous and cheap; call {@link refresh} to pick up
 * changes on disk.
 */
export class ComponentRegistry {
  readonly #sources: ComponentSource[] = [];
  readonly #logger: Logger;
  readonly #followExternalSymlinks: boolean;
  #components = new Map<string, Component>();
  /** Paths already warned about, so a refresh does not repeat the same warning. */
  readonly #warned = new Set<string>();

  constructor(dir?: string, options: RegistryOptions = {}) {
    this.#logger = options.logger ?? consoleLogger;
    this.#followExternalSymlinks = options.followExternalSymlinks ?? false;
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
        `Invalid prefix ${JSON.stringify(prefix)}: a prefix is an identifier ([A-Za-z_][A-Za-z0-9_]*).`,
      );
    }
    const absolute = resolve(dir);
    let isDirectory = false;
    try {
      isDirectory = statSync(absolute).isDirectory();
    } catch {
      this.#logger.warn(`component source ${dir} does not exist; it was not added`);
      return false;
    }
    if (!isDirectory) {
      this.#logger.warn(`component source ${dir} is not a directory; it was not added`);
      return false;
    }
    this.#sources.push({ dir: absolute, prefix });
    this.refresh();
    return true;
  }

  /** The registered source roots, in the order they were added. */
  get sources(): readonly ComponentSource[] {
    return this.#sources;
  }

  /** Re-scans every source. Later sources win name collisions; each collision is logged. */
  refresh(): void {
    const found = new Map<string, Component>();
    for (const source of this.#sources) {
      for (const component of this.#discover(source)) {
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
  }

  /**
   * The component called `name`, or `undefined` when none is registered.
   * @throws InvalidComponentNameError when `name` is not a well-formed component name.
   */
  get(name: string): Component | undefined {
    if (!isValidName(name)) throw new InvalidComponentNameError(name);
    return this.#components.get(name);
  }

  /** Every component, sorted by name (code point order). */
  list(): Component[] {
    return [...this.#components.values()];
  }

  get size(): number {
    return this.#components.size;
  }

  *#discover(source: ComponentSource): Generator<Component> {
    const rootReal = realpathOrUndefined(source.dir);
    if (rootReal === undefined) {
      this.#warnOnce(`missing:${source.dir}`, `component source ${source.dir} no longer exists`);
      return;
    }
    // Real paths already walked: a directory reachable twice (through a symlink) is
    // registered once, and symlink cycles end.
    const visited = new Set<string>([rootReal]);
    const stack: { dir: string; segments: string[] }[] = [{ dir: source.dir, segments: [] }];
    while (stack.length > 0) {
      const { dir, segments } = stack.pop() as { dir: string; segments: string[] };
      let entries: import("node:fs").Dirent[];
      try {
        entries = readdirSync(dir, { withFileTypes: true });
      } catch {
        continue; // removed while walking, or unreadable: skip it
      }
      const children: { dir: string; segments: string[] }[] = [];
      for (const entry of entries) {
        const name = entry.name;
        if (name === "node_modules" || name.startsWith(".")) continue;
        const path = join(dir, name);
        if (!entry.isDirectory()) {
          if (!entry.isSymbolicLink()) continue;
          const target = realpathOrUndefined(path);
          if (target === undefined || !isDirectory(target)) continue;
          if (!this.#followExternalSymlinks && !isInside(target, rootReal)) {
            this.#warnOnce(
              `symlink:${path}`,
              `skipped ${path}: it links outside the component source (set followExternalSymlinks to follow it)`,
            );
            continue;
          }
        }
        if (!isValidSegment(name)) {
          this.#warnOnce(
            `invalid:${path}`,
            `skipped ${path}: "${name}" is not a valid name segment (letters, digits and _; not starting with a digit)`,
          );
          continue;
        }
        const real = realpathOrUndefined(path);
        if (real === undefined || visited.has(real)) continue;
        visited.add(real);
        children.push({ dir: path, segments: [...segments, name] });
      }
      // Pop in name order so which alias of a doubly reachable directory wins is stable.
      children.sort((a, b) => compareCodePoints(b.dir, a.dir));
      for (const child of children) {
        const entry = findEntry(child.dir);
        if (entry !== undefined) {
          yield {
            name: joinName(child.segments, source.prefix),
            dir: child.dir,
            entry,
            source,
          };
        }
        stack.push(child);
      }
    }
  }

  #warnOnce(key: string, message: string): void {
    if (this.#warned.has(key)) return;
    this.#warned.add(key);
    this.#logger.warn(message);
  }
}

function findEntry(dir: string): string | undefined {
  for (const file of ENTRY_FILES) {
    const path = join(dir, file);
    try {
      if (statSync(path).isFile()) return path;
    } catch {
      // not there; try the next candidate
    }
  }
  return undefined;
}

function realpathOrUndefined(path: string): string | undefined {
  try {
    return realpathSync(path);
  } catch {
    return undefined;
  }
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

function isInside(path: string, root: string): boolean {
  const rel = relative(root, path);
  return rel === "" || (!rel.startsWith(`..${sep}`) && rel !== ".." && !isAbsolute(rel));
}

export function compareCodePoints(a: string, b: string): number {
  // Component names are ASCII, where UTF-16 order is code point order.
  return a < b ? -1 : a > b ? 1 : 0;
}
