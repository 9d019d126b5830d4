import { SvcError } from "@svc/protocol";

/**
 * What a `RenderError` was made of when its stack still had frames of server bundles built
 * without a source map (`svc-server:<name>@<hash>.cjs:…`, left out of its message): the island
 * renderer maps them and makes the error again (see `IslandSources.mapServerStack`).
 */
const unmapped = new WeakMap<
  RenderError,
  { name: string; message: string; stack: string; cause: unknown }
>();

/** See {@link unmapped}. */
export function unmappedOf(
  error: unknown,
): { name: string; message: string; stack: string; cause: unknown } | undefined {
  return error instanceof RenderError ? unmapped.get(error) : undefined;
}

/** The component threw while it rendered on the server. */
export class RenderError extends SvcError {
  /** What it was made of: a render worker sends these, and the server's thread makes it again. */
  readonly thrown: { name: string; message: string; stack?: string };
  constructor(name: string, message: string, stack: string | undefined, cause?: unknown) {
    // Only frames in the component's own files: nothing of the machine's layout.
    const frames = (stack ?? "")
      .split("\n")
      .filter((line) => line.includes("component://"))
      .join("\n");
    super(
      "RenderError",
      `Component "${name}" threw while rendering on the server: ${message}${frames ? `\n${frames}` : ""}`,
      {
        component: name,
        cause,
      },
    );
    this.name = "RenderError";
    this.thrown = stack === undefined ? { name, message } : { name, message, stack };
    if (stack?.includes("svc-server:")) unmapped.set(this, { name, message, stack, cause });
  }
}

/**
 * Rendering on the server cannot start: a package it needs is not installed. A `RenderError`
 * (500) whose message is the one line that says what to install.
 */
export class RenderSetupError extends SvcError {
  constructor(name: string, message: string, cause?: unknown) {
    super("RenderError", message, { component: name, cause });
    this.name = "RenderSetupError";
  }
}

export class RenderTimeoutError extends SvcError {
  readonly ms: number;
  constructor(name: string, ms: number) {
    super(
      "RenderTimeout",
      `Component "${name}" did not finish rendering on the server within ${ms / 1000} s — does it wait on something that never comes?`,
      { component: name },
    );
    this.name = "RenderTimeoutError";
    this.ms = ms;
  }
}
