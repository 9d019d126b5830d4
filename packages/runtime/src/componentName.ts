import { parseComponentName } from "@svc/protocol";

export { componentNameProblem, fileSafeName } from "@svc/protocol";

/** Throws `InvalidComponentNameError` (saying why) unless `name` is a valid component name. */
export function assertComponentName(name: string): void {
  parseComponentName(name);
}
