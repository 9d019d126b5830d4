import { SvcError } from "@svc/protocol";
import { compareCodePoints } from "../components/componentRegistry.ts";

/**
 * One reason a build failed, located relative to the component it belongs to: an esbuild
 * error, a `schema.json` that is no valid schema, an entry without a default export.
 */
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

/** At least one component cannot ship (see {@link BuildFailure}): nothing was written. */
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

/** `<component>: <file>:<line>:<column>: <text>` (`<file>: <text>` for a whole file). */
export function formatFailure(failure: BuildFailure): string {
  const where =
    failure.file === undefined
      ? ""
      : failure.line === undefined
        ? `${failure.file}: `
        : `${failure.file}:${failure.line}:${failure.column ?? 0}: `;
  return `${failure.component ?? "(shared file)"}: ${where}${failure.text}`;
}

/** `failures` grouped by component (in name order), each component's in the order found. */
export function byComponent(failures: readonly BuildFailure[]): BuildFailure[] {
  return [...failures].sort((a, b) =>
    compareCodePoints(a.component ?? "\u{10ffff}", b.component ?? "\u{10ffff}"),
  );
}

/**
 * Whether `error` came from the file system (it has a `code` and a `syscall`): those become a
 * {@link BuildOutputError}; anything else is a bug and goes out as it is.
 */
export function isFileSystemError(
  error: unknown,
): error is NodeJS.ErrnoException & { code: string } {
  const { code, syscall } = (error ?? {}) as NodeJS.ErrnoException;
  return typeof code === "string" && typeof syscall === "string";
}
