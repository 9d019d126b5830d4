// Two parts only some pages need have entry points of their own, so that what imports this
// one (the standalone loader, which puts all of it in the page's module registry) does not
// carry them: `@svc/runtime/islands` (`whenToHydrate`, `readIsland`) and `@svc/runtime/live`
// (`followEvents`, and the development error overlay `showErrorOverlay`).
export { assertComponentName, componentNameProblem, fileSafeName } from "./componentName.ts";
export { createSvcClient, getComponentExport } from "./createSvcClient.ts";
export {
  BundleLoadError,
  type BundleLoadErrorOptions,
  ComponentNotFoundError,
  ExportNotFoundError,
  IntegrityError,
  InvalidComponentNameError,
  isSvcError,
  ModuleNotFoundError,
  type PropIssue,
  RenderError,
  SchemaValidationError,
  SvcError,
  type SvcErrorKind,
  type SvcErrorOptions,
  UNAVAILABLE_TEXT,
} from "./errors.ts";
export { type ComponentModule, importCode } from "./importCode.ts";
export { verifyIntegrity } from "./integrity.ts";
export {
  getModuleRegistry,
  installModules,
  type ModuleRegistry,
  RUNTIME_MODULE_NAMES,
  type RuntimeModuleName,
} from "./moduleRegistry.ts";
export {
  type RewriteImportsOptions,
  type RewrittenModule,
  rewriteImports,
  rewriteModule,
} from "./rewriteImports.ts";
export {
  adoptStylesheets,
  type ComponentStylesheet,
  stylesheetsOf,
} from "./stylesheets.ts";
export type {
  ComponentMetadata,
  LoadOptions,
  Manifest,
  ManifestEntry,
  SvcClient,
  SvcClientOptions,
} from "./svcClient.ts";
