export { assertComponentName, componentNameProblem, fileSafeName } from "./componentName.ts";
export {
  type ComponentMetadata,
  createSvcClient,
  getComponentExport,
  type LoadOptions,
  type Manifest,
  type ManifestEntry,
  type SvcClient,
  type SvcClientOptions,
} from "./createSvcClient.ts";
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
} from "./errors.ts";
export { followEvents, type LiveStatus } from "./followEvents.ts";
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
export { readIsland, whenToHydrate } from "./whenToHydrate.ts";
