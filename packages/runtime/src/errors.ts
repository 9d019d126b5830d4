/**
 * Errors raised in the browser. Every error carries a stable `kind` (for code) and the
 * `component` it concerns; `name` is the class name (for people reading logs).
 */

// A registered symbol rather than `instanceof`: the loader script and an application can
// each carry their own copy of this module, and errors must be recognised across copies.
const SVC_ERROR: unique symbol = Symbol.for("svc.error") as never;

export type SvcErrorKind =
  | "ComponentNotFound"
  | "InvalidComponentName"
  | "BundleLoad"
  | "ModuleNotFound"
  | "IntegrityMismatch"
  | "ExportNotFound"
  | "SchemaValidation"
  | "Render";

export interface SvcErrorOptions {
  cause?: unknown;
}

export class SvcError extends Error {
  readonly kind: SvcErrorKind;
  /** The component the error concerns. */
  readonly component: string;
  declare readonly [SVC_ERROR]: true;

  constructor(kind: SvcErrorKind, component: string, message: string, options?: SvcErrorOptions) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    // Not `new.target.name`: minifiers rename classes. Each subclass sets its own name.
    this.name = "SvcError";
    this.kind = kind;
    this.component = component;
    Object.defineProperty(this, SVC_ERROR, { value: true });
  }
}

/** True for every error raised by svc's browser packages, whichever copy raised it. */
export function isSvcError(error: unknown): error is SvcError {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { [SVC_ERROR]?: unknown })[SVC_ERROR] === true
  );
}

/** The server (or the manifest) does not know the component. */
export class ComponentNotFoundError extends SvcError {
  constructor(component: string, detail?: string, options?: SvcErrorOptions) {
    super(
      "ComponentNotFound",
      component,
      `Component "${component}" not found${detail ? ` (${detail})` : ""}.`,
      options,
    );
    this.name = "ComponentNotFoundError";
  }
}

/** The name breaks the naming rules, so no request is made. */
export class InvalidComponentNameError extends SvcError {
  readonly reason: string;
  constructor(component: string, reason: string) {
    super("InvalidComponentName", component, `Invalid component name "${component}": ${reason}.`);
    this.name = "InvalidComponentNameError";
    this.reason = reason;
  }
}

export interface BundleLoadErrorOptions extends SvcErrorOptions {
  /** HTTP status of the failed response, when there was one. */
  status?: number;
  /** URL that was fetched, when there was one. */
  url?: string;
}

/** Fetching, parsing, verifying or evaluating a bundle failed. */
export class BundleLoadError extends SvcError {
  declare readonly kind: "BundleLoad" | "ModuleNotFound" | "IntegrityMismatch";
  readonly status: number | undefined;
  readonly url: string | undefined;

  constructor(component: string, message: string, options: BundleLoadErrorOptions = {}) {
    super(BundleLoadError.kindOf(new.target), component, message, options);
    this.name = "BundleLoadError";
    this.status = options.status;
    this.url = options.url;
  }

  private static kindOf(target: unknown): "BundleLoad" | "ModuleNotFound" | "IntegrityMismatch" {
    if (target === ModuleNotFoundError) return "ModuleNotFound";
    if (target === IntegrityError) return "IntegrityMismatch";
    return "BundleLoad";
  }
}

/** A bundle imports a module that `window.__MODULES__` does not provide. */
export class ModuleNotFoundError extends BundleLoadError {
  readonly module: string;
  constructor(component: string, module: string, available: readonly string[]) {
    super(
      component,
      `Component "${component}" imports "${module}", which is not in window.__MODULES__ ` +
        `(available: ${available.length > 0 ? available.join(", ") : "none"}). ` +
        "Bundle it into the component, or add it to the module registry before loading.",
    );
    this.name = "ModuleNotFoundError";
    this.module = module;
  }
}

/** A bundle's bytes do not match the `integrity` given by the manifest. */
export class IntegrityError extends BundleLoadError {
  constructor(component: string, message: string, options: BundleLoadErrorOptions = {}) {
    super(component, message, options);
    this.name = "IntegrityError";
  }
}

/** A module lacks the export that was asked for. */
export class ExportNotFoundError extends SvcError {
  readonly exportName: string;
  /** The runtime module the export was imported from; undefined for the component itself. */
  readonly module: string | undefined;

  constructor(
    component: string,
    exportName: string,
    available: readonly string[],
    module?: string,
  ) {
    const list = available.length > 0 ? available.join(", ") : "none";
    super(
      "ExportNotFound",
      component,
      module === undefined
        ? `Component "${component}" has no export "${exportName}" (exports: ${list}).`
        : `Component "${component}" imports "${exportName}" from "${module}", which does not export it.`,
    );
    this.name = "ExportNotFoundError";
    this.exportName = exportName;
    this.module = module;
  }
}

/** One failing prop of a {@link SchemaValidationError}. */
export interface PropIssue {
  /** Top-level prop name; "" when the problem is with the props object as a whole. */
  prop: string;
  /** JSON pointer into the props, e.g. "#/items/0". */
  path: string;
  /** JSON Schema keyword that failed, e.g. "type". */
  keyword: string;
  message: string;
}

/** Props do not match the component's `schema.json` (checked in development only). */
export class SchemaValidationError extends SvcError {
  readonly issues: readonly PropIssue[];
  constructor(component: string, issues: readonly PropIssue[]) {
    super(
      "SchemaValidation",
      component,
      `Invalid props for component "${component}": ${issues
        .map((issue) => (issue.prop ? `${issue.prop}: ${issue.message}` : issue.message))
        .join("; ")}`,
    );
    this.name = "SchemaValidationError";
    this.issues = issues;
  }
}

/** The component threw while rendering. */
export class RenderError extends SvcError {
  constructor(component: string, cause: unknown) {
    super(
      "Render",
      component,
      `Component "${component}" threw: ${cause instanceof Error ? cause.message : String(cause)}`,
      { cause },
    );
    this.name = "RenderError";
  }
}
