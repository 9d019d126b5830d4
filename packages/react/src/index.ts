export {
  adoptStylesheets,
  assertComponentName,
  BundleLoadError,
  type ComponentMetadata,
  type ComponentModule,
  ComponentNotFoundError,
  type ComponentStylesheet,
  createSvcClient,
  ExportNotFoundError,
  getModuleRegistry,
  IntegrityError,
  InvalidComponentNameError,
  installModules,
  isSvcError,
  type Manifest,
  type ManifestEntry,
  ModuleNotFoundError,
  type ModuleRegistry,
  type PropIssue,
  RenderError,
  RUNTIME_MODULE_NAMES,
  SchemaValidationError,
  type SvcClient,
  type SvcClientOptions,
  SvcError,
  type SvcErrorKind,
  stylesheetsOf,
} from "@svc/runtime";
export {
  type ComponentQueryOptionsInput,
  componentMetadataQueryOptions,
  componentQueryOptions,
} from "./componentQueryOptions.ts";
export {
  type ConnectLiveOptions,
  connectLive,
  type LiveErrorLocation,
  type LiveEvent,
  type LiveOptions,
  type LiveStatus,
} from "./connectLive.ts";
export { installReactModules } from "./installReactModules.ts";
export { svcQueryKeys } from "./queryKeys.ts";
export { type ReloadComponentOptions, reloadComponent } from "./reloadComponent.ts";
export { ServerComponent, type ServerComponentProps } from "./ServerComponent.tsx";
export {
  type ErrorFallback,
  SvcErrorBoundary,
  type SvcErrorBoundaryProps,
  SvcErrorMessage,
} from "./SvcErrorBoundary.tsx";
export { SvcProvider, type SvcProviderProps } from "./SvcProvider.tsx";
export { type SvcContextValue, useSvc } from "./svcContext.ts";
export { type UseComponentOptions, useComponent } from "./useComponent.ts";
