/**
 * Component names, as the protocol defines them for server and browser alike (see
 * `@svc/protocol`): dot-joined identifiers, optionally behind `prefix:`.
 */
export {
  type ComponentName,
  componentNameProblem,
  fileSafeName,
  fromFileSafeName,
  isValidName,
  isValidSegment,
  joinName,
  MAX_NAME_LENGTH,
  parseComponentName,
} from "@svc/protocol";
