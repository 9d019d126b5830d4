/**
 * The server's errors. Each carries a stable `kind`; kinds become HTTP statuses in exactly one
 * place, `ERROR_STATUS` of `@svc/protocol` (through {@link toErrorResponse}); the body is
 * the protocol's `errorBodyOf`, which the browser's client reads.
 */
import {
  ERROR_STATUS,
  type ErrorBody,
  errorBodyOf,
  isSvcError,
  type LiveErrorLocation,
  SvcError,
  type SvcErrorOptions,
  statusOf,
} from "@svc/protocol";

export {
  ComponentNotFoundError,
  ERROR_STATUS,
  type ErrorBody,
  InvalidComponentNameError,
  isSvcError,
  SvcError,
  type SvcErrorKind,
  type WireErrorKind,
} from "@svc/protocol";

/** @deprecated Use `ERROR_STATUS` (the same table, shared with the browser). */
export const STATUS_BY_KIND = ERROR_STATUS;

/** A bundler failure; `message` carries esbuild's `file:line:column: text` lines. */
export class BundleError extends SvcError {
  readonly errors: readonly BundleErrorLocation[];

  constructor(name: string, errors: readonly BundleErrorLocation[], options?: ErrorOptions) {
    super("BundleError", formatBundleErrors(name, errors), { component: name, ...options });
    this.name = "BundleError";
    this.errors = errors;
  }
}

/**
 * Where esbuild failed: `file` relative to the component directory (`index.tsx`,
 * `../shared/x.ts`), `line` 1-based, `column` 0-based, and in development the lines around it.
 */
export type BundleErrorLocation = LiveErrorLocation;

/** A `schema.json` that is not valid JSON, not a JSON object, or nested too deep. */
export class InvalidSchemaError extends SvcError {
  constructor(name: string, file: string, problem: string) {
    super("InvalidSchema", `${file}: ${problem}`, { component: name });
    this.name = "InvalidSchemaError";
  }
}

export class StaticModeError extends SvcError {
  /** @param name the component asked for, if any (a stylesheet or asset names none). */
  constructor(name?: string) {
    super(
      "StaticMode",
      "Static mode is on: bundles are served as static files listed in manifest.json, not by this endpoint.",
      name === undefined ? {} : { component: name },
    );
    this.name = "StaticModeError";
  }
}

/** No svc endpoint (or no file) at a path. */
export class NotFoundError extends SvcError {
  constructor(what: string, options?: SvcErrorOptions) {
    super("NotFound", what, options);
    this.name = "NotFoundError";
  }
}

/** A method an endpoint does not answer; `allow` lists those it does. */
export class MethodNotAllowedError extends SvcError {
  readonly allow: string;

  constructor(method: string, allow: string) {
    super("MethodNotAllowed", `${method} is not allowed here; use ${allow}.`);
    this.name = "MethodNotAllowedError";
    this.allow = allow;
  }
}

/** A request body over the limit svc reads. */
export class PayloadTooLargeError extends SvcError {
  constructor(limit: number) {
    super(
      "PayloadTooLarge",
      `The request body is over ${limit / 1024 / 1024} MiB; send less (an island's props are JSON).`,
    );
    this.name = "PayloadTooLargeError";
  }
}

/**
 * A request body of another type than the endpoint reads: an island's props are JSON, sent as
 * `application/json`, which a page of another origin cannot send without a CORS preflight.
 */
export class UnsupportedMediaTypeError extends SvcError {
  constructor(name: string | undefined, contentType: string | undefined) {
    super(
      "UnsupportedMediaType",
      `The props of an island are JSON: send them with Content-Type: application/json (${
        contentType === undefined
          ? "the request has no Content-Type"
          : `not ${JSON.stringify(contentType.slice(0, 100))}`
      }).`,
      { component: name },
    );
    this.name = "UnsupportedMediaTypeError";
  }
}

/**
 * The server is at one of its bounds on clients (event streams, connections from one
 * address); `retryAfter` is when to try again, in seconds (the `Retry-After` header).
 */
export class OverloadedError extends SvcError {
  readonly retryAfter: number;

  constructor(problem: string, retryAfter: number) {
    super("Overloaded", `${problem}; try again in ${retryAfter} s.`);
    this.name = "OverloadedError";
    this.retryAfter = retryAfter;
  }
}

/** The development server refused the request's `Host` (see `isHostAllowed`). */
export class HostNotAllowedError extends SvcError {
  constructor(host: string) {
    super(
      "HostNotAllowed",
      `Blocked request for host ${JSON.stringify(host.slice(0, 100))}: this development server answers IP addresses, localhost and the names it is told — to allow this one, pass --allowed-host ${host.replace(/:\d+$/, "").slice(0, 100)} (or list it in serve.allowedHosts).`,
    );
    this.name = "HostNotAllowedError";
  }
}

export function formatBundleErrors(name: string, errors: readonly BundleErrorLocation[]): string {
  const lines = errors.map((e) => {
    const where = e.file === undefined ? "" : `${e.file}:${e.line ?? 0}:${(e.column ?? 0) + 1}: `;
    return `${where}${e.text}`;
  });
  return `Could not bundle "${name}": ${lines.join("\n")}`;
}

/**
 * Turns any thrown value into the status and JSON body the HTTP layer sends: an svc error of
 * a wire kind as itself (a development `BundleError` with its locations and code frames),
 * anything else as a bare 500 `InternalError` that reveals nothing.
 */
export function toErrorResponse(error: unknown): { status: number; body: ErrorBody } {
  if (isSvcError(error)) {
    const body = errorBodyOf(error);
    // Frames are only read in development (see `toBundleErrorLocations`): the overlay's.
    if (error instanceof BundleError && error.errors.some((e) => e.frame !== undefined)) {
      body.locations = error.errors.filter((e) => e.file !== undefined);
    }
    return { status: statusOf(error), body };
  }
  return {
    status: ERROR_STATUS.InternalError,
    body: { error: "InternalError", message: "Internal server error." },
  };
}
