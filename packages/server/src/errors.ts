/**
 * Every error the server reports carries a stable `kind`. Kinds become HTTP statuses in
 * exactly one place: {@link STATUS_BY_KIND} (used by `toErrorResponse`).
 */

export const STATUS_BY_KIND = {
  ComponentNotFound: 404,
  InvalidComponentName: 422,
  BundleError: 500,
  InvalidSchema: 500,
  StaticMode: 404,
  NotFound: 404,
  MethodNotAllowed: 405,
  InternalError: 500,
} as const;

export type ErrorKind = keyof typeof STATUS_BY_KIND;

/** The JSON body of every error response. */
export interface ErrorBody {
  error: ErrorKind;
  message: string;
  name?: string;
}

export class SvcError extends Error {
  readonly kind: ErrorKind;
  /** The component the error is about, when there is one. */
  readonly component: string | undefined;

  constructor(kind: ErrorKind, message: string, component?: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.kind = kind;
    this.component = component;
  }

  get status(): number {
    return STATUS_BY_KIND[this.kind];
  }

  toJSON(): ErrorBody {
    return this.component === undefined
      ? { error: this.kind, message: this.message }
      : { error: this.kind, message: this.message, name: this.component };
  }
}

export class ComponentNotFoundError extends SvcError {
  constructor(name: string) {
    super("ComponentNotFound", `No component named "${name}" is registered.`, name);
  }
}

export class InvalidComponentNameError extends SvcError {
  constructor(name: string) {
    super(
      "InvalidComponentName",
      `Invalid component name ${JSON.stringify(truncate(name))}: use dot-separated identifiers ` +
        '([A-Za-z_][A-Za-z0-9_]*), optionally behind one "prefix:".',
    );
  }
}

/** A bundler failure; `message` carries esbuild's `file:line:column: text` lines. */
export class BundleError extends SvcError {
  readonly errors: readonly BundleErrorLocation[];

  constructor(name: string, errors: readonly BundleErrorLocation[], options?: ErrorOptions) {
    super("BundleError", formatBundleErrors(name, errors), name, options);
    this.errors = errors;
  }
}

export interface BundleErrorLocation {
  /** Path relative to the component directory (`index.tsx`, `../shared/x.ts`). */
  file?: string;
  line?: number;
  column?: number;
  text: string;
  /** The offending source line, when esbuild reports one. */
  lineText?: string;
}

/** A `schema.json` that is not valid JSON or not a JSON object. */
export class InvalidSchemaError extends SvcError {
  constructor(name: string, file: string, problem: string) {
    super("InvalidSchema", `${file}: ${problem}`, name);
  }
}

export class StaticModeError extends SvcError {
  constructor(name: string) {
    super(
      "StaticMode",
      "Static mode is on: bundles are served as static files listed in manifest.json, not by this endpoint.",
      name,
    );
  }
}

export function formatBundleErrors(name: string, errors: readonly BundleErrorLocation[]): string {
  const lines = errors.map((e) => {
    const where = e.file === undefined ? "" : `${e.file}:${e.line ?? 0}:${(e.column ?? 0) + 1}: `;
    return `${where}${e.text}`;
  });
  return `Could not bundle "${name}": ${lines.join("\n")}`;
}

/** Turns any thrown value into the status and JSON body the HTTP layer sends. */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (error instanceof SvcError) return { status: error.status, body: error.toJSON() };
  return {
    status: STATUS_BY_KIND.InternalError,
    body: { error: "InternalError", message: "Internal server error." },
  };
}

function truncate(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}
