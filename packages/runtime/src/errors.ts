/**
 * Errors raised in the browser. They extend the one `SvcError` of `@svc/protocol` (shared with
 * the server): each carries a stable `kind` (for code) and the `component` it concerns; `name`
 * is the class name (for people reading logs). The name errors, `ComponentNotFoundError` and
 * `InvalidComponentNameError`, are the protocol's own.
 */
import {
  type LiveErrorLocation,
  ON_DEMAND_MODULES,
  SvcError,
  type SvcErrorOptions,
} from "@svc/protocol";

/**
 * What a page shows in production where a component failed: the details go to the console
 * only, never to the page's visitors.
 */
export const UNAVAILABLE_TEXT = "This component could not be shown";

export {
  ComponentNotFoundError,
  InvalidComponentNameError,
  isSvcError,
  SvcError,
  type SvcErrorKind,
  type SvcErrorOptions,
} from "@svc/protocol";

export interface BundleLoadErrorOptions extends Omit<SvcErrorOptions, "component"> {
  /** HTTP status of the failed response, when there was one. */
  status?: number;
  /** URL that was fetched, when there was one. */
  url?: string;
  /** Where a build failed (the development server's `BundleError`, with code frames). */
  locations?: readonly LiveErrorLocation[];
}

/** Fetching, parsing, verifying or evaluating a bundle failed. */
export class BundleLoadError extends SvcError {
  declare readonly kind: "BundleLoad" | "ModuleNotFound" | "IntegrityMismatch";
  readonly status: number | undefined;
  readonly url: string | undefined;
  /** Where the build failed, when the development server said (else empty). */
  readonly locations: readonly LiveErrorLocation[];

  constructor(component: string, message: string, options: BundleLoadErrorOptions = {}) {
    super(BundleLoadError.kindOf(new.target), message, { component, cause: options.cause });
    this.name = "BundleLoadError";
    this.status = options.status;
    this.url = options.url;
    this.locations = options.locations ?? [];
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
      (ON_DEMAND_MODULES as readonly string[]).includes(module)
        ? // The server sends these beside the bundle when it finds them installed.
          `Component "${component}" imports "${module}", which svc could not provide: install it ` +
            `in the app that runs @svc/server (npm install ${module === "@svc/react" ? "@svc/react @tanstack/react-query" : module}), then restart the server or run svc build again.`
        : `Component "${component}" imports "${module}", which is not in window.__MODULES__ ` +
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
      module === undefined
        ? `Component "${component}" has no export "${exportName}" (exports: ${list}).`
        : `Component "${component}" imports "${exportName}" from "${module}", which does not export it.`,
      { component },
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
      `Invalid props for component "${component}": ${issues
        .map((issue) => (issue.prop ? `${issue.prop}: ${issue.message}` : issue.message))
        .join("; ")}`,
      { component },
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
      `Component "${component}" threw: ${cause instanceof Error ? cause.message : String(cause)}`,
      { component, cause },
    );
    this.name = "RenderError";
  }
}
