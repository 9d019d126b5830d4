/**
 * Which paths a bundle's record holds, worked out from a finished build: what esbuild read and
 * how each import resolved (the rule, numbered as here: `bundleInputs.ts`).
 */
import { readFileSync } from "node:fs";
import { dirname, isAbsolute, join, resolve, sep } from "node:path";
import type { Component } from "../components/componentRegistry.ts";
import { type FileStamp, stampOf } from "../util/fileStamp.ts";

/** One import as esbuild resolved it. */
export interface Resolution {
  /** Absolute path of the importing file. */
  importer: string;
  /** The specifier as written (`./lib`, `pkg/sub`). */
  specifier: string;
  /** Absolute path it resolved to; undefined for externals. */
  path: string | undefined;
}

/**
 * How a recorded path is compared: `content` compares the whole stamp (a file's bytes, a
 * directory's listing); `identity` only whether the same inode is there (a directory that may
 * gain siblings' entries, a link that may be re-pointed).
 */
export type Compare = "content" | "identity";

/** A path of a record, and how it is checked. */
export interface RecordedPath {
  readonly path: string;
  /** Stamp the link itself (`lstat`), not what it points to. */
  readonly link: boolean;
  compare: Compare;
}

/**
 * The paths of one bundle's record, in the order found, each with the strictest comparison
 * asked for. While they are collected each path is stat'ed once: the walks up the tree (is
 * there a package.json here?) and the record's own stamps ({@link stamp}) share the answers.
 */
export class RecordCollector {
  readonly #paths = new Map<string, RecordedPath>();
  readonly #stamps = new Map<string, FileStamp | null>();

  constructor(component: Component, inputs: readonly string[], resolutions: readonly Resolution[]) {
    const dirs = new Set<string>([component.dir]);
    // 1. every file read
    for (const input of inputs) {
      this.#add(input, false, "content");
      dirs.add(dirname(input));
    }
    // 2. how every import resolved
    for (const { importer, specifier, path } of resolutions) {
      if (path === undefined) continue; // external: provided by the page
      const from = dirname(importer);
      dirs.add(from);
      this.#add(dirname(path), false, "content");
      if (isPathSpecifier(specifier)) {
        for (const dir of walkedDirectories(from, specifier)) this.#add(dir, false, "content");
      } else if (!specifier.startsWith("#")) {
        this.#addPackageLookup(from, specifier);
      }
    }
    // 4. the component's own path, then 3. the configuration of every directory seen
    this.#addComponent(component);
    this.#addConfigFiles(dirs);
  }

  /** The paths recorded. */
  paths(): IterableIterator<RecordedPath> {
    return this.#paths.values();
  }

  /** Whether `path` is recorded (`link`: as the link itself). */
  has(path: string, link: boolean): boolean {
    return this.#paths.has(keyOf(path, link));
  }

  /** The stamp of `path`, taken once while the record is collected. */
  stamp(path: string, link: boolean): FileStamp | undefined {
    const key = keyOf(path, link);
    const known = this.#stamps.get(key);
    if (known !== undefined) return known ?? undefined;
    const stamp = stampOf(path, { link });
    this.#stamps.set(key, stamp ?? null);
    return stamp;
  }

  #add(path: string, link: boolean, compare: Compare): void {
    const key = keyOf(path, link);
    const existing = this.#paths.get(key);
    if (existing === undefined) this.#paths.set(key, { path, link, compare });
    else if (compare === "content") existing.compare = "content";
  }

  /**
   * Records how node_modules lookup went for `specifier` from `from`: each
   * `node_modules/<name>` nearer than the one found must stay absent, and the one found must
   * stay the same entry (a workspace link re-pointed is another inode). Stops at the first one
   * present, as Node and esbuild do; a package found through tsconfig `paths` instead leaves
   * every one absent.
   */
  #addPackageLookup(from: string, specifier: string): void {
    const name = packageName(specifier);
    if (name === undefined) return;
    for (let dir = from; ; dir = dirname(dir)) {
      if (!dir.endsWith(`${sep}node_modules`)) {
        const candidate = join(dir, "node_modules", name);
        this.#add(candidate, true, "identity");
        if (this.stamp(candidate, true) !== undefined) return;
      }
      if (dirname(dir) === dir) return;
    }
  }

  /** The component's own path: its directories from the source root down, and its entry. */
  #addComponent(component: Component): void {
    const root = component.source.dir;
    for (let dir = component.dir; dir.length > root.length; dir = dirname(dir)) {
      this.#add(dir, true, "identity");
    }
    this.#add(component.entry, true, "identity");
    if (component.entry.endsWith(`${sep}index.ts`)) {
      this.#add(join(component.dir, "index.tsx"), true, "identity");
    }
  }

  /**
   * From each of `dirs` up to the nearest `package.json`, and up to the nearest
   * `tsconfig.json` or `jsconfig.json`: each candidate recorded present or absent. Further up
   * nothing applies.
   */
  #addConfigFiles(dirs: Iterable<string>): void {
    const walked = { package: new Set<string>(), tsconfig: new Set<string>() };
    for (const start of dirs) {
      for (let dir = start; !walked.package.has(dir); dir = dirname(dir)) {
        walked.package.add(dir);
        const file = join(dir, "package.json");
        this.#add(file, false, "content");
        if (this.stamp(file, false) !== undefined || dirname(dir) === dir) break;
      }
      for (let dir = start; !walked.tsconfig.has(dir); dir = dirname(dir)) {
        walked.tsconfig.add(dir);
        let found = false;
        // esbuild reads a directory's jsconfig.json only when it has no tsconfig.json file.
        for (const name of ["tsconfig.json", "jsconfig.json"]) {
          const file = join(dir, name);
          this.#add(file, false, "content");
          const stamp = this.stamp(file, false);
          if (stamp !== undefined) {
            found = true;
            this.#addExtends(file, new Set());
            if (!stamp.isDirectory) break;
          }
        }
        if (found || dirname(dir) === dir) break;
      }
    }
  }

  /** What a tsconfig/jsconfig `extends` (also through further `extends`), when it is there. */
  #addExtends(config: string, seen: Set<string>): void {
    if (seen.has(config) || seen.size > 16) return;
    seen.add(config);
    let text: string;
    try {
      text = readFileSync(config, "utf8");
    } catch {
      return; // absent (recorded as such) or unreadable
    }
    for (const target of extendsOf(text)) {
      const base = dirname(config);
      const candidates = isPathSpecifier(target)
        ? this.#pathConfigCandidates(resolve(base, target))
        : this.#packageConfigCandidates(base, target);
      for (const candidate of candidates) {
        this.#add(candidate, false, "content");
        this.#addExtends(candidate, seen);
      }
    }
  }

  /**
   * The files esbuild may read for an `extends` path: the path, and — only when that is not a
   * file and its name does not end in `.json` — the path with `.json` added. Once the path is
   * a file the other never matters (it would only by a change the path's own stamp shows).
   */
  #pathConfigCandidates(file: string): string[] {
    if (file.endsWith(".json")) return [file];
    const stamp = this.stamp(file, false);
    return stamp !== undefined && !stamp.isDirectory ? [file] : [file, `${file}.json`];
  }

  /** A package's config as `extends` names it (`@tsconfig/node22/tsconfig.json`, `pkg`). */
  #packageConfigCandidates(from: string, target: string): string[] {
    const name = packageName(target);
    if (name === undefined) return [];
    this.#addPackageLookup(from, target);
    for (let dir = from; ; dir = dirname(dir)) {
      const root = join(dir, "node_modules", name);
      if (this.stamp(root, false) !== undefined) {
        const rest = target.slice(name.length).replace(/^\//, "");
        return rest === ""
          ? [join(root, "tsconfig.json"), join(root, "package.json")]
          : [join(root, rest), join(root, `${rest}.json`)];
      }
      if (dirname(dir) === dir) return [];
    }
  }
}

function keyOf(path: string, link: boolean): string {
  return `${link ? "L" : "F"}${path}`;
}

function isPathSpecifier(specifier: string): boolean {
  return (
    specifier.startsWith("./") ||
    specifier.startsWith("../") ||
    specifier === "." ||
    specifier === ".." ||
    isAbsolute(specifier)
  );
}

/**
 * The directories whose listing decides how a path specifier resolves: the one holding each
 * named segment of the path (`./a/b/c` from D: D, D/a, D/a/b).
 */
function walkedDirectories(from: string, specifier: string): string[] {
  const dirs: string[] = [];
  let current = isAbsolute(specifier) ? sep : from;
  for (const segment of specifier.split(/[/\\]/)) {
    if (segment === "" || segment === ".") continue;
    if (segment === "..") {
      current = dirname(current);
      continue;
    }
    dirs.push(current);
    current = join(current, segment);
  }
  return dirs;
}

/** The package name of a bare specifier: `pkg` of `pkg/sub`, `@scope/pkg` of `@scope/pkg/x`. */
function packageName(specifier: string): string | undefined {
  const parts = specifier.split("/");
  const name = specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
  return name === undefined || name === "" || name.includes(":") ? undefined : name;
}

/** The `extends` of a tsconfig's text (JSON with comments): a string or an array of them. */
function extendsOf(text: string): string[] {
  const match = /"extends"\s*:\s*("(?:[^"\\]|\\.)*"|\[[^\]]*\])/.exec(text);
  if (match === null) return [];
  try {
    const value = JSON.parse(match[1] as string) as unknown;
    const list = Array.isArray(value) ? value : [value];
    return list.filter((item): item is string => typeof item === "string" && item !== "");
  } catch {
    return [];
  }
}
