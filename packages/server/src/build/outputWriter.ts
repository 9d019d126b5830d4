import { randomBytes } from "node:crypto";
import {
  mkdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  statSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { dirname, join } from "node:path";
import { VENDOR_DIR } from "../bundling/vendorModules.ts";
import { ASSETS_PATH, BUNDLES_DIR } from "./outputFiles.ts";

/**
 * Writes files into the output directory under their final names without a reader ever
 * seeing half of one (a temporary name, then a rename), and remembers what it added so a
 * failed build can take it back.
 */
export class OutputWriter {
  readonly dir: string;
  /** Paths (relative to `dir`) this build lists: written now, or already there, identical. */
  readonly written = new Set<string>();
  readonly #token = `${process.pid}-${randomBytes(4).toString("hex")}`;
  /** What did not exist before this build: removed again if it fails. */
  readonly #created: string[] = [];
  readonly #temporary = new Set<string>();

  constructor(dir: string) {
    this.dir = dir;
  }

  /** Creates the directory, `bundles/` and `extra` directories where missing. */
  prepare(extra: readonly string[] = []): void {
    const parent = dirname(this.dir);
    if (statSync(parent, { throwIfNoEntry: false }) === undefined) {
      mkdirSync(parent, { recursive: true });
    }
    // Not recursive: on a read-only file system a recursive mkdir reports ENOENT, not EROFS.
    for (const dir of [this.dir, ...[BUNDLES_DIR, ...extra].map((d) => join(this.dir, d))]) {
      this.#makeDir(dir);
    }
  }

  #makeDir(dir: string): void {
    if (statSync(dir, { throwIfNoEntry: false }) !== undefined) return;
    mkdirSync(dir);
    this.#created.push(dir);
  }

  /**
   * Puts `bytes` at `file` (relative to the directory). A file already there with the same
   * bytes is left alone (a bundle's name carries its hash, so this is the usual case for
   * unchanged components); anything else is written aside and renamed over.
   */
  place(file: string, bytes: Uint8Array): void {
    const path = join(this.dir, file);
    this.written.add(file);
    if (file.startsWith(`${ASSETS_PATH}/`)) this.#makeDir(join(this.dir, ASSETS_PATH));
    const existing = readIfFile(path);
    if (existing !== undefined && Buffer.from(bytes).equals(existing)) return;
    const slash = file.lastIndexOf("/");
    const temporary = join(
      this.dir,
      `${file.slice(0, slash + 1)}.tmp-${this.#token}.${file.slice(slash + 1)}`,
    );
    this.#temporary.add(temporary);
    writeFileSync(temporary, bytes);
    renameSync(temporary, path);
    this.#temporary.delete(temporary);
    if (existing === undefined) this.#created.push(path);
  }

  /**
   * Takes back what this build added (its temporary files, new files, directories it made),
   * as far as the file system lets it: what is left is removed by the next build.
   */
  undo(): void {
    for (const path of [...this.#temporary, ...this.#created.reverse()]) {
      try {
        if (
          path === this.dir ||
          [BUNDLES_DIR, ASSETS_PATH, VENDOR_DIR].some((d) => path === join(this.dir, d))
        ) {
          rmdirSync(path);
        } else unlinkSync(path);
      } catch {
        // read-only, or no longer empty: recoverLeftovers and removeOldFiles see to it
      }
    }
  }
}

/** The bytes of the regular file at `path`, or undefined when there is none. */
function readIfFile(path: string): Buffer | undefined {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT" || code === "EISDIR") return undefined;
    throw error;
  }
}
