/**
 * Writing `svc init`'s plan all or nothing: everything that can be checked is checked before
 * the first write, and should a write fail anyway, what was created is removed again.
 */
import { randomBytes } from "node:crypto";
import {
  accessSync,
  chmodSync,
  chownSync,
  closeSync,
  constants,
  lstatSync,
  mkdirSync,
  openSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { UsageError } from "../config/usageError.ts";
import { isInside, toPosix } from "../util/paths.ts";

/** What `init` will write, paths relative to the project, in the order written. */
export interface InitPlan {
  /** Directories to create (each inside the one before, or the project). */
  dirs: string[];
  /** New files and their text. */
  files: [path: string, contents: string][];
  /** The new text of `package.json`, when it changes. */
  packageJson: string | undefined;
}

/**
 * Checks everything `apply` needs before anything is written: the project takes new files,
 * no path to create is a link (which `wx` and `mkdir` would refuse halfway), and
 * `package.json`, when it changes, is a writable file inside the project (its link followed).
 * Returns the real path of `package.json`.
 * @throws UsageError saying what is in the way and how to clear it.
 */
export function preflight(cwd: string, plan: InitPlan): string {
  const pkgFile = join(cwd, "package.json");
  const project = realOrSelf(cwd);
  const target = realOrSelf(pkgFile);
  const creates = [...plan.dirs, ...plan.files.map(([path]) => path)];
  for (const path of creates) {
    const link = linkAt(join(cwd, path));
    if (link !== undefined) {
      throw new UsageError(
        `${path} is a link to ${link}, which does not exist — remove the link (or create what it points to) and run svc init again`,
      );
    }
  }
  if (creates.length > 0) assertWritable(cwd, "this directory");
  if (plan.packageJson === undefined) return target;
  if (!isInside(target, project)) {
    throw new UsageError(
      `package.json is a link to ${target}, outside this project — svc init writes only inside it; run it where that file is, or add the scripts "svc:serve": "svc serve" and "svc:build": "svc build" yourself`,
    );
  }
  // Root may write any file; a file nobody may write is still one to leave alone.
  if ((statSync(target).mode & 0o222) === 0) {
    throw new UsageError(
      "package.json is read-only — make it writable (chmod u+w package.json) and run svc init again",
    );
  }
  assertWritable(target, "package.json");
  assertWritable(dirname(target), `the directory of ${basename(target)}`);
  return target;
}

/** The target of the link at `path` when it points to nothing, else undefined. */
function linkAt(path: string): string | undefined {
  const info = lstatSync(path, { throwIfNoEntry: false });
  return info?.isSymbolicLink() ? readlinkSync(path) : undefined;
}

function assertWritable(path: string, what: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot write to ${what} (${code}) — fix its permissions and run svc init again`,
    );
  }
}

/**
 * Writes the plan: directories and files first, each new (`wx`), then `package.json` — the
 * only file changed — through a temporary file renamed over it, so it is never half written.
 * Should a write fail, what this run created is removed before the error is thrown.
 */
export function apply(cwd: string, plan: InitPlan, pkgTarget: string): void {
  const created: { path: string; dir: boolean }[] = [];
  let current = "";
  try {
    for (const dir of plan.dirs) {
      current = dir;
      mkdirSync(join(cwd, dir));
      created.push({ path: join(cwd, dir), dir: true });
    }
    for (const [file, contents] of plan.files) {
      current = file;
      writeNewFile(join(cwd, file), contents, (path) => created.push({ path, dir: false }));
    }
    if (plan.packageJson !== undefined) {
      current = "package.json";
      replaceFile(pkgTarget, plan.packageJson);
    }
  } catch (error) {
    const left = undo(created).map((path) => toPosix(relative(cwd, path)));
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(
      left.length === 0
        ? `cannot write ${current} (${code}) — svc init removed what it had created, so nothing changed`
        : `cannot write ${current} (${code}) — svc init could not remove ${left.join(", ")}; remove them before running it again`,
    );
  }
}

/** Removes `created`, newest first; returns what could not be removed. */
function undo(created: readonly { path: string; dir: boolean }[]): string[] {
  const left: string[] = [];
  for (const { path, dir } of [...created].reverse()) {
    try {
      if (dir) rmdirSync(path);
      else rmSync(path);
    } catch {
      left.push(path);
    }
  }
  return left;
}

/**
 * Creates `file` (never one that exists, nor through a link) and writes `text` into it.
 * `onCreated` hears of the file as soon as it exists: a write can fail after that (a full
 * disk), leaving a file to remove.
 */
function writeNewFile(file: string, text: string, onCreated: (file: string) => void): void {
  const fd = openSync(file, "wx");
  onCreated(file);
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` with `text` through a temporary file beside it, keeping its mode (and, when
 * run as root, its owner).
 */
function replaceFile(file: string, text: string): void {
  const { mode, uid, gid } = statSync(file);
  const temporary = join(
    dirname(file),
    `.${basename(file)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
  );
  let created = false;
  try {
    writeNewFile(temporary, text, () => {
      created = true;
    });
    chmodSync(temporary, mode & 0o7777);
    if (process.getuid?.() === 0 && (uid !== 0 || gid !== 0)) chownSync(temporary, uid, gid);
    renameSync(temporary, file);
  } catch (error) {
    if (created) rmSync(temporary, { force: true });
    throw error;
  }
}

/** The real path of `path`, or `path` itself when it does not resolve. */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
