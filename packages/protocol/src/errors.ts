/**
 * Errors, defined once for server and browser. Every error svc raises is an {@link SvcError}
 * with a stable `kind`; the kinds the HTTP API can answer with map to a status in exactly one
 * table, {@link ERROR_STATUS}, and travel as an {@link ErrorBody}.
 */

import type { LiveErrorLocation } from "./events.ts";
import type { ComponentName } from "./names.ts";
import { componentNameProblem, isValidName } from "./names.ts";

/** Every kind an HTTP answer of svc can carry, with its status. */
export const ERROR_STATUS = {
  /** No component of that name. */
  ComponentNotFound: 404,
  /** The name breaks the grammar (see `names.ts`). */
  InvalidComponentName: 422,
  /** esbuild failed; the message lists `file:line:column: text`. */
  BundleError: 500,
  /** `schema.json` is not valid JSON, not an object, or nested too deep. */
  InvalidSchema: 500,
  /** Static mode is on: bundles come from the build's files, not from the API. */
  StaticMode: 404,
  /** No svc endpoint at that path. */
  NotFound: 404,
  /** A method the endpoint does not answer (the `Allow` header says which do). */
  MethodNotAllowed: 405,
  /** The dev server refuses the request's `Host` (DNS-rebinding protection). */
  HostNotAllowed: 403,
  /**
   * Props to render a component with that fail its `schema.json` (422), or a body that is not
   * a JSON object at all (400: see {@link InvalidPropsError}).
   */
  InvalidProps: 422,
  /** A request body over the limit. */
  PayloadTooLarge: 413,
  /** A body of another type than the endpoint reads (`POST …/html` reads `application/json`). */
  UnsupportedMediaType: 415,
  /** The component threw while rendering on the server. */
  RenderError: 500,
  /** Rendering on the server took longer than its limit. */
  RenderTimeout: 500,
  /** The server is at one of its bounds on clients; `Retry-After` says when to try again. */
  Overloaded: 503,
  /** Anything unexpected; the server logs it once and says nothing of its internals. */
  InternalError: 500,
} as const;

/** A kind the HTTP API answers with. */
export type WireErrorKind = keyof typeof ERROR_STATUS;

/** Kinds raised in the browser only. */
export type BrowserErrorKind =
  | "BundleLoad"
  | "ModuleNotFound"
  | "IntegrityMismatch"
  | "ExportNotFound"
  | "SchemaValidation"
  | "Render";

/** Kinds of the build and the command line (never sent over HTTP). */
export type ToolErrorKind =
  | "BuildFailed"
  | "BuildSetup"
  | "BuildOutput"
  | "InvalidManifest"
  | "Usage";

export type SvcErrorKind = WireErrorKind | BrowserErrorKind | ToolErrorKind;

/** The JSON body of every error answer. */
export interface ErrorBody {
  error: WireErrorKind;
  message: string;
  /** The component the error is about, when there is one. */
  name?: string;
  /**
   * Development only, for a `BundleError`: where each error is, with the lines around it (the
   * error overlay's code frame). Paths are relative to the component's directory.
   */
  locations?: LiveErrorLocation[];
}

/** Every key an error body may have: {@link ErrorBody}'s. */
export const ERROR_BODY_KEYS = [
  "error",
  "message",
  "name",
  "locations",
] as const satisfies readonly (keyof ErrorBody)[];

export interface SvcErrorOptions {
  /** The component the error is about. */
  component?: string;
  cause?: unknown;
}

// A registered symbol rather than `instanceof` alone: a page (or a server) can hold two copies
// of this module (the loader's and an application's), and errors must be recognised across.
const SVC_ERROR: unique symbol = Symbol.for("svc.error") as never;

export class SvcError extends Error {
  readonly kind: SvcErrorKind;
  /** The component the error is about, when there is one. */
  readonly component: string | undefined;
  declare readonly [SVC_ERROR]: true;

  constructor(kind: SvcErrorKind, message: string, options: SvcErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    // Not `new.target.name`: minifiers rename classes. Each subclass sets its own name.
    this.name = "SvcError";
    this.kind = kind;
    this.component = options.component;
    Object.defineProperty(this, SVC_ERROR, { value: true });
  }
}

/** True for every error raised by svc, whichever copy of this module raised it. */
export function isSvcError(error: unknown): error is SvcError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { [SVC_ERROR]?: unknown })[SVC_ERROR] === true
  );
}

export function isWireErrorKind(kind: unknown): kind is WireErrorKind {
  return typeof kind === "string" && Object.hasOwn(ERROR_STATUS, kind);
}

/**
 * The status of an error answer: the table's, else 500 — and 400 for the one refinement the
 * table cannot say, `InvalidProps` of a body that is not JSON at all.
 */
export function statusOf(error: unknown): number {
  if (!isSvcError(error) || !isWireErrorKind(error.kind)) return 500;
  if (error.kind === "InvalidProps" && (error as { malformed?: unknown }).malformed === true) {
    return 400;
  }
  return ERROR_STATUS[error.kind];
}

/**
 * The body an HTTP answer carries for `error`: its kind, message and component; a kind outside
 * the table says only InternalError (the server logs the rest).
 */
export function errorBodyOf(error: SvcError): ErrorBody {
  const wire = isWireErrorKind(error.kind);
  const body: ErrorBody = {
    error: wire ? error.kind : "InternalError",
    message: wire ? error.message : "Internal server error.",
  };
  if (wire && error.component !== undefined) body.name = error.component;
  return body;
}

/**
 * Whether `value` looks like an {@link ErrorBody} (e.g. a parsed answer): a string `error` and
 * `message`. The kind is not checked against this version's table: a newer server's new kind
 * still brings its message (and the page needs no copy of the table).
 */
export function isErrorBody(value: unknown): value is ErrorBody {
  if (typeof value !== "object" || value === null) return false;
  const { error, message } = value as Record<string, unknown>;
  return typeof error === "string" && typeof message === "string";
}

/** No component of that name is registered (or listed in the manifest). */
export class ComponentNotFoundError extends SvcError {
  constructor(name: string, detail?: string, options: Omit<SvcErrorOptions, "component"> = {}) {
    super(
      "ComponentNotFound",
      detail === undefined
        ? `No component named "${name}" is registered.`
        : `No component named "${name}" was found: ${detail}.`,
      { ...options, component: name },
    );
    this.name = "ComponentNotFoundError";
  }
}

/** The name breaks the naming rules; no component can have it. */
export class InvalidComponentNameError extends SvcError {
  /** Why the name is invalid. */
  readonly reason: string;

  constructor(name: string, reason = componentNameProblem(name) ?? "it is not a valid name") {
    super(
      "InvalidComponentName",
      `Invalid component name ${JSON.stringify(truncate(name))}: ${reason}.`,
    );
    this.name = "InvalidComponentNameError";
    this.reason = reason;
  }
}

/**
 * Props a component cannot be rendered with: `malformed` when the body is not a JSON object
 * (HTTP 400), else they fail the component's `schema.json` (HTTP 422) and `message` says how.
 */
export class InvalidPropsError extends SvcError {
  readonly malformed: boolean;

  constructor(name: string, problem: string, options: { malformed?: boolean } = {}) {
    super("InvalidProps", `Invalid props for component "${name}": ${problem}`, {
      component: name,
    });
    this.name = "InvalidPropsError";
    this.malformed = options.malformed ?? false;
  }
}

/**
 * `value` as a {@link ComponentName}: the one check a name gets where it enters.
 * @throws InvalidComponentNameError saying why it is not one
 */
export function parseComponentName(value: string): ComponentName {
  if (isValidName(value)) return value;
  throw new InvalidComponentNameError(value);
}

function truncate(value: string): string {
  return value.length > 60 ? `${value.slice(0, 60)}…` : value;
}
