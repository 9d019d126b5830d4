import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { writeFile } from "node:fs/promises";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, gzipSync, constants as zlib } from "node:zlib";
import { SvcError } from "@svc/protocol";
import type * as esbuild from "esbuild";
import { createEsbuildOptions, finishOutput, runEsbuild } from "../bundling/bundler.ts";
import type { Component, ComponentRegistry } from "../components/componentRegistry.ts";
import { compareCodePoints } from "../components/componentRegistry.ts";
import { fileSafeName } from "../components/names.ts";
import { isInside } from "../util/paths.ts";
import {
  emptyManifest,
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  parseManifest,
} from "./manifest.ts";

const brotliAsync = promisify(brotliCompress);

export interface BuildOptions {
  /** The components to build: every component the registry lists. */
  registry: ComponentRegistry;
  /** Output directory; replaced as a whole when the build succeeds. */
  outDir: string;
  /** Minify the bundles. Default: true. */
  minify?: boolean;
  /** Append an inline source map to every bundle. Default: false. */
  sourcemap?: boolean;
  /** Also write `.gz` and `.br` siblings of every bundle. Default: false. */
  compress?: boolean;
  /** Called with a short line whenever the build moves on (bundling, writing n/total). */
  onProgress?: (message: string) => void;
}

/** One component of a finished build. */
export interface BuiltBundle extends Required<ManifestEntry> {
  name: string;
  /** Size of the bundle after gzip (level 9), in bytes. */
  gzipSize: number;
}

export interface BuildResult {
  /** The output directory (absolute). */
  outDir: string;
  manifest: Manifest;
  /** Every bundle, sorted by component name. */
  bundles: BuiltBundle[];
  /** Wall-clock time of the whole build, in milliseconds. */
  durationMs: number;
}

/** One error reported by esbuild, located relative to the component it belongs to. */
export interface BuildFailure {
  /** The component whose directory holds `file`; undefined for a file shared by several. */
  component?: string;
  /**
   * Path of the offending file relative to the component directory; for a file outside
   * every component, relative to the common root of the sources.
   */
  file?: string;
  /** 1-based line. */
  line?: number;
  /** 1-based column. */
  column?: number;
  text: string;
}

/** esbuild failed on at least one component: nothing was written. */
export class BuildFailedError extends SvcError {
  override name = "BuildFailedError";
  readonly failures: readonly BuildFailure[];

  constructor(failures: readonly BuildFailure[]) {
    const components = new Set(failures.map((f) => f.component ?? "(shared file)"));
    super(
      "BuildFailed",
      `build failed: ${failures.length} error${failures.length === 1 ? "" : "s"} in ${components.size} component${components.size === 1 ? "" : "s"}; the previous output was left untouched\n${failures.map((f) => `  ${formatFailure(f)}`).join("\n")}`,
    );
    this.failures = failures;
  }
}

/** The build cannot start as asked (output directory refused, nothing to build). */
export class BuildSetupError extends SvcError {
  override name = "BuildSetupError";

  constructor(message: string) {
    super("BuildSetup", message);
  }
}

/**
 * The output could not be written (disk full, read-only or immutable directory): nothing
 * was replaced, and what the build had written so far was removed.
 */
export class BuildOutputError extends SvcError {
  override name = "BuildOutputError";
  /** The file-system error code, e.g. `ENOSPC`, `EROFS`, `EPERM`. */
  readonly code: string;

  constructor(outDir: string, cause: NodeJS.ErrnoException & { code: string }) {
    // Node's messages read "ENOSPC: no space left on device, write …": keep the middle part.
    const reason = /^[A-Z0-9_]+: ([^,]+)/.exec(cause.message)?.[1] ?? cause.message;
    super(
      "BuildOutput",
      `build failed: cannot write the build to ${outDir}: ${reason} (${cause.code}); the previous output was left untouched`,
      { cause },
    );
    this.code = cause.code;
  }
}

/** `<component>: <file>:<line>:<column>: <text>`. */
export function formatFailure(failure: BuildFailure): string {
  const where =
    failure.file === undefined
      ? ""
      : `${failure.file}:${failure.line ?? 0}:${failure.column ?? 0}: `;
  return `${failure.component ?? "(shared file)"}: ${where}${failure.text}`;
}

/**
 * `svc build`: bundles every component of `registry` in one esbuild pass (the same options
 * as the dev server, through `createEsbuildOptions`), writes
 * `bundles/<file_safe_name>.<hash>.js` and `manifest.json` into a temporary sibling of
 * `outDir`, and swaps it in, so a static server never sees half a build and a failed or
 * killed build leaves the previous output as it was.
 *
 * @throws BuildSetupError when `outDir` is refused or there is nothing to build.
 * @throws BuildFailedError listing every esbuild error, when any component fails.
 * @throws BuildOutputError when the output cannot be written (disk full, read-only).
 */
export async function build(options: BuildOptions): Promise<BuildResult> {
  const started = performance.now();
  const progress = options.onProgress ?? (() => {});
  const outDir = resolveOutDir(options.outDir);
  checkOutDir(outDir);
  recoverLeftovers(outDir);

  const components = options.registry.list();
  if (components.length === 0) {
    const sources = options.registry.sources.map((s) => s.dir).join(", ") || "(no sources)";
    throw new BuildSetupError(
      `no components found in ${sources} — pass --components-dir DIR, or add a directory with an index.tsx`,
    );
  }

  progress(`bundling ${components.length} component${components.length === 1 ? "" : "s"}…`);
  const finished = await bundleAll(components, {
    minify: options.minify ?? true,
    sourcemap: options.sourcemap ?? false,
  });

  const token = `${process.pid}-${randomBytes(4).toString("hex")}`;
  const tmp = `${outDir}.tmp-${token}`;
  try {
    mkdirSync(dirname(outDir), { recursive: true });
    // Not recursive: on a read-only file system a recursive mkdir reports ENOENT, not EROFS.
    mkdirSync(tmp);
    mkdirSync(join(tmp, "bundles"));
    const bundles = await writeBundles(tmp, finished, options.compress ?? false, progress);
    const manifest = emptyManifest();
    for (const { name, file, hash, integrity, size } of bundles) {
      manifest[name] = { file, hash, integrity, size };
    }
    await writeFile(join(tmp, MANIFEST_FILE), `${JSON.stringify(manifest, null, 2)}\n`);
    checkOutDir(outDir); // nothing may have appeared there while we worked
    swapIn(tmp, outDir, token);
    return { outDir, manifest, bundles, durationMs: performance.now() - started };
  } catch (error) {
    try {
      rmSync(tmp, { recursive: true, force: true });
    } catch {
      // cannot even remove it (read-only): the next build deletes it (recoverLeftovers)
    }
    throw isFileSystemError(error) ? new BuildOutputError(outDir, error) : error;
  }
}

function isFileSystemError(error: unknown): error is NodeJS.ErrnoException & { code: string } {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return typeof code === "string" && typeof syscall === "string";
}

interface FinishedBundle {
  name: string;
  code: Uint8Array;
  hash: string;
}

/** One esbuild pass over every entry point; each output mapped back to its component. */
async function bundleAll(
  components: readonly Component[],
  options: { minify: boolean; sourcemap: boolean },
): Promise<FinishedBundle[]> {
  const esbuildOptions = createEsbuildOptions(components, { ...options, mode: "production" });
  const workingDir = esbuildOptions.absWorkingDir as string;
  const outdir = esbuildOptions.outdir as string;
  let result: esbuild.BuildResult<{ write: false; metafile: true }>;
  try {
    result = await runEsbuild(esbuildOptions);
  } catch (error) {
    const messages = (error as esbuild.BuildFailure).errors;
    if (!Array.isArray(messages) || messages.length === 0) throw error;
    throw new BuildFailedError(toFailures(components, workingDir, messages));
  }
  const outputs = new Map(result.outputFiles.map((file) => [file.path, file]));
  return components
    .map((component) => {
      const base = join(outdir, fileSafeName(component.name));
      const js = outputs.get(`${base}.js`);
      if (js === undefined) {
        throw new Error(`esbuild produced no output for ${component.name} (expected ${base}.js)`);
      }
      const map = options.sourcemap ? outputs.get(`${base}.js.map`) : undefined;
      return { name: component.name, ...finishOutput(component, js, map) };
    })
    .sort((a, b) => compareCodePoints(a.name, b.name));
}

/** esbuild's messages, each attributed to the innermost component directory holding its file. */
function toFailures(
  components: readonly Component[],
  workingDir: string,
  messages: readonly esbuild.Message[],
): BuildFailure[] {
  const byDepth = [...components].sort((a, b) => b.dir.length - a.dir.length);
  return messages.map((message) => {
    const location = message.location;
    if (!location) return { text: message.text };
    const absolute = isAbsolute(location.file) ? location.file : resolve(workingDir, location.file);
    const owner = byDepth.find((c) => isInside(absolute, c.dir));
    const base = owner?.dir ?? workingDir;
    return {
      component: owner?.name,
      file: relative(base, absolute).split(sep).join("/"),
      line: location.line,
      column: location.column + 1,
      text: message.text,
    };
  });
}

/**
 * Writes every bundle (and its compressed siblings) into `dir/bundles`. Small files are
 * written and gzipped synchronously — on the thread pool each would cost more in hand-offs
 * than the work itself — yielding to the event loop now and then; only brotli, slow and
 * CPU-bound, runs on the pool, a few files at a time.
 */
async function writeBundles(
  dir: string,
  finished: readonly FinishedBundle[],
  compress: boolean,
  progress: (message: string) => void,
): Promise<BuiltBundle[]> {
  // Count in tenths on big builds; small ones finish before a count would be read.
  const step = finished.length >= 50 ? Math.ceil(finished.length / 10) : finished.length;
  progress(`writing ${finished.length} bundle${finished.length === 1 ? "" : "s"}…`);
  const bundles: BuiltBundle[] = [];
  for (const [index, { name, code, hash }] of finished.entries()) {
    const file = `bundles/${fileSafeName(name)}.${hash}.js`;
    const gzipped = normalizeGzipHeader(gzipSync(code, { level: zlib.Z_BEST_COMPRESSION }));
    writeFileSync(join(dir, file), code);
    if (compress) writeFileSync(join(dir, `${file}.gz`), gzipped);
    bundles.push({
      name,
      file,
      hash,
      integrity: `sha384-${createHash("sha384").update(code).digest("base64")}`,
      size: code.byteLength,
      gzipSize: gzipped.byteLength,
    });
    const done = index + 1;
    if (done % step === 0 && done < finished.length) {
      progress(`writing bundles ${done}/${finished.length}…`);
    }
    if (done % 32 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  if (compress) {
    progress(
      `compressing ${finished.length} bundle${finished.length === 1 ? "" : "s"} with brotli…`,
    );
    let next = 0;
    const worker = async () => {
      while (next < bundles.length) {
        const { file, size } = bundles[next] as BuiltBundle;
        const { code } = finished[next++] as FinishedBundle;
        const brotli = await brotliAsync(code, {
          params: {
            [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
            [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
            [zlib.BROTLI_PARAM_SIZE_HINT]: size,
          },
        });
        await writeFile(join(dir, `${file}.br`), brotli);
      }
    };
    await Promise.all(Array.from({ length: Math.min(4, bundles.length) }, worker));
  }
  return bundles;
}

/**
 * gzip's header records the operating system it was made on; pin it to "Unix" so the `.gz`
 * files are byte-identical wherever the build runs (the header carries no checksum).
 */
function normalizeGzipHeader(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength > 9) bytes[9] = 3;
  return bytes;
}

/** An existing output directory reached through a symlink is replaced where it really is. */
function resolveOutDir(outDir: string): string {
  const absolute = resolve(outDir);
  try {
    return realpathSync(absolute);
  } catch {
    return absolute;
  }
}

/**
 * Refuses to replace anything that is not certainly a previous build: a directory may be
 * replaced when it is empty, or when it holds nothing but `bundles/` and a `manifest.json`
 * that parses as an svc manifest (a web-app `manifest.json` in `public/` does not).
 */
function checkOutDir(outDir: string): void {
  const stat = statSync(outDir, { throwIfNoEntry: false });
  if (stat === undefined) return;
  const fix = "so it was left untouched — pass --output with a new or empty directory";
  if (!stat.isDirectory()) {
    throw new BuildSetupError(`${outDir} is not a directory, ${fix}`);
  }
  const entries = readdirSync(outDir);
  if (entries.length === 0) return;
  if (!entries.includes(MANIFEST_FILE)) {
    throw new BuildSetupError(
      `${outDir} is not empty and holds no ${MANIFEST_FILE}, so it is not a previous svc build and was left untouched — pass --output with a new or empty directory`,
    );
  }
  try {
    parseManifest(readFileSync(join(outDir, MANIFEST_FILE), "utf8"), MANIFEST_FILE);
  } catch (error) {
    throw new BuildSetupError(
      `${outDir} holds a ${MANIFEST_FILE} that is not an svc manifest (${(error as Error).message}), ${fix}`,
    );
  }
  const foreign = entries.filter((name) => name !== MANIFEST_FILE && name !== "bundles");
  if (foreign.length > 0) {
    const shown = foreign.slice(0, 3).join(", ") + (foreign.length > 3 ? ", …" : "");
    throw new BuildSetupError(`${outDir} holds files svc build does not write (${shown}), ${fix}`);
  }
}

const LEFTOVER = /^\.(tmp|old)-(\d+)-[0-9a-f]+$/;

/**
 * Cleans up after builds that were killed: their temporary directories are deleted, and if
 * one died between moving the previous output aside and moving the new one in, the previous
 * output is put back. Directories of builds still running (their process is alive) are kept.
 */
function recoverLeftovers(outDir: string): void {
  const parent = dirname(outDir);
  const base = basename(outDir);
  let entries: string[];
  try {
    entries = readdirSync(parent);
  } catch {
    return; // the parent does not exist yet: nothing to clean
  }
  for (const entry of entries.sort()) {
    if (!entry.startsWith(base)) continue;
    const match = LEFTOVER.exec(entry.slice(base.length));
    if (match === null || isAlive(Number(match[2]))) continue;
    const path = join(parent, entry);
    if (match[1] === "old" && !existsSync(outDir)) {
      renameSync(path, outDir);
    } else {
      rmSync(path, { recursive: true, force: true });
    }
  }
}

function isAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Replaces `outDir` by `tmp` with two renames (each atomic); the window between them is a
 * few microseconds, and a build killed inside it has its previous output restored by the
 * next build (see {@link recoverLeftovers}).
 */
function swapIn(tmp: string, outDir: string, token: string): void {
  const old = `${outDir}.old-${token}`;
  let moved = false;
  try {
    chmodSync(tmp, statSync(outDir).mode & 0o7777); // keep the permissions servers rely on
    renameSync(outDir, old);
    moved = true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ENOENT") throw error;
  }
  try {
    renameSync(tmp, outDir);
  } catch (error) {
    if (moved) renameSync(old, outDir);
    throw error;
  }
  if (moved) rmSync(old, { recursive: true, force: true });
}

/** `1.23 kB`, as build tools print sizes. */
export function formatSize(bytes: number): string {
  return bytes < 1000 ? `${bytes} B` : `${(bytes / 1000).toFixed(2)} kB`;
}

/** The table `svc build` prints: component, size, gzip size, hash; then the totals. */
export function formatBuildReport(result: BuildResult, cwd = process.cwd()): string {
  const rows = result.bundles.map((b) => [
    b.name,
    formatSize(b.size),
    formatSize(b.gzipSize),
    b.hash,
  ]);
  const header = ["component", "size", "gzip", "hash"];
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? "").length)));
  const line = (cells: string[]) =>
    cells
      .map((cell, i) =>
        i === 1 || i === 2 ? cell.padStart(widths[i] ?? 0) : cell.padEnd(widths[i] ?? 0),
      )
      .join("  ")
      .trimEnd();
  const total = result.bundles.reduce((sum, b) => sum + b.size, 0);
  const totalGzip = result.bundles.reduce((sum, b) => sum + b.gzipSize, 0);
  const shown = relative(cwd, result.outDir) || ".";
  const count = result.bundles.length;
  return [
    line(header),
    ...rows.map(line),
    "",
    `${count} component${count === 1 ? "" : "s"}, ${formatSize(total)} (gzip ${formatSize(totalGzip)}) → ${shown.startsWith("..") ? result.outDir : shown} in ${Math.round(result.durationMs)} ms`,
  ].join("\n");
}
