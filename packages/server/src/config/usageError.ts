import { SvcError } from "@svc/protocol";

/**
 * A mistake in how svc was invoked or configured (flags, `svc.config.*`): the CLI prints it
 * as one line and exits with code 2.
 */
export class UsageError extends SvcError {
  override name = "UsageError";

  constructor(message: string) {
    super("Usage", message);
  }
}
