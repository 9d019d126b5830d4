export type {
  KnownName,
  PropsFor,
  PropsParameters,
  SvcComponentName,
  SvcComponents,
  SvcProps,
} from "@svc/protocol";
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
export {
  type HydratedRoot,
  type HydrateIslandOptions,
  hydrateIsland,
} from "./hydrateIsland.ts";
export { installReactModules } from "./installReactModules.ts";
export { svcQueryKeys } from "./queryKeys.ts";
export {
  type ReloadComponentOptions,
  reloadComponent,
  showComponentFailure,
} from "./reloadComponent.ts";
export { ServerComponent, type ServerComponentProps } from "./ServerComponent.ts";
export {
  type ErrorFallback,
  SvcErrorBoundary,
  type SvcErrorBoundaryProps,
  SvcErrorMessage,
} from "./SvcErrorBoundary.ts";
export { SvcProvider, type SvcProviderProps } from "./SvcProvider.ts";
export { type SvcContextValue, useSvc } from "./svcContext.ts";
export { type UseComponentOptions, useComponent } from "./useComponent.ts";
export { type PropsSchema, validateProps } from "./validateProps.ts";
