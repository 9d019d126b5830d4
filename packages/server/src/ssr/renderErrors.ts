import { SvcError } from "@svc/protocol";

/** The component threw while it rendered on the server. */
export class RenderError extends SvcError {
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
  constructor(name: string, ms: number) {
    super(
      "RenderTimeout",
      `Component "${name}" did not finish rendering on the server within ${ms / 1000} s — does it wait on something that never comes?`,
      { component: name },
    );
    this.name = "RenderTimeoutError";
  }
}
