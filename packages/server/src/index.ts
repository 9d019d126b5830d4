// Names and the errors the browser shares, as `@svc/protocol` defines them.
// First: on an older Node, one clear line instead of a failure further in.
import "./util/nodeVersion.ts";

export {
  type ComponentName,
  ComponentNotFoundError,
  componentNameProblem,
  ERROR_STATUS,
  type ErrorBody,
  fileSafeName,
  fromFileSafeName,
  InvalidComponentNameError,
  isSvcError,
  isValidName,
  type KnownName,
  MAX_NAME_LENGTH,
  parseComponentName,
  type SvcComponentName,
  type SvcComponents,
  SvcError,
  type SvcErrorKind,
  type SvcProps,
  type WireErrorKind,
} from "@svc/protocol";
export {
  type BundleOptions,
  type BundleOutput,
  type Bundler,
  contentHash,
  createEsbuildOptions,
  EXTERNALS,
  esbuildBundler,
} from "./bundling/bundler.ts";
export {
  CONFIG_FILES,
  type ConfigFlags,
  createRegistry,
  DEFAULT_DEV_ORIGIN,
  defineConfig,
  loadConfigFile,
  type ResolveConfigOptions,
  type ResolvedConfig,
  resolveConfig,
  type SourceConfig,
  type SvcConfig,
  UsageError,
} from "./cli/config.ts";
export {
  type DevServer,
  type DevServerOptions,
  STATIC_PREFIX,
  startDevServer,
} from "./cli/devServer.ts";
export {
  type Component,
  ComponentRegistry,
  type ComponentSource,
  type RegistryOptions,
  type SourceOptions,
} from "./components/componentRegistry.ts";
export {
  type ComponentMetadata,
  type ComponentSchema,
  parseSchema,
} from "./components/metadata.ts";
export {
  createLiveReload,
  type LiveErrorEvent,
  type LiveEvent,
  type LiveReload,
  type LiveReloadOptions,
} from "./dev/liveReload.ts";
export {
  BundleError,
  type BundleErrorLocation,
  HostNotAllowedError,
  InvalidSchemaError,
  MethodNotAllowedError,
  NotFoundError,
  OverloadedError,
  PayloadTooLargeError,
  STATUS_BY_KIND,
  StaticModeError,
  toErrorResponse,
  UnsupportedMediaTypeError,
} from "./errors.ts";
export { type EventStreamOptions, eventStream, type LiveSource } from "./http/eventStream.ts";
export { isHostAllowed } from "./http/hostCheck.ts";
export {
  createImportMap,
  type ImportMap,
  type ImportMapOptions,
  renderImportMap,
} from "./http/importMap.ts";
export { createIslands, type SvcIslands } from "./http/islands.ts";
export {
  type CorsOptions,
  createRequestHandler,
  errorResponse,
  type RequestHandler,
  type RequestHandlerOptions,
  type SvcRequest,
  type SvcResponse,
} from "./http/requestHandler.ts";
export { escapeHtml, renderWidget, type WidgetOptions } from "./http/widget.ts";
export { consoleLogger, type Logger, silentLogger } from "./logger.ts";
export {
  BuildFailedError,
  type BuildFailure,
  type BuildOptions,
  BuildOutputError,
  type BuildResult,
  BuildSetupError,
  type BuiltBundle,
  build,
  formatBuildReport,
} from "./production/build.ts";
export {
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  ManifestError,
  parseManifest,
  readManifest,
  resolveBuildDir,
} from "./production/manifest.ts";
export { type PrebuiltBundle, PrebuiltBundles } from "./production/prebuiltBundles.ts";
export {
  createStaticFiles,
  IMMUTABLE_CACHE_CONTROL,
  MANIFEST_CACHE_CONTROL,
  type StaticFile,
  type StaticFiles,
  type StaticFilesOptions,
} from "./production/staticFiles.ts";
export {
  type GenerateTypesOptions,
  generateTypes,
  TYPES_FILE,
  writeTypesFile,
} from "./production/typesFile.ts";
export type { HandlerOptions } from "./service/handlerOptions.ts";
export { createHandlers } from "./service/handlers.ts";
export type {
  BundleListEntry,
  BundleResult,
  GetBundleOptions,
  HandlerObserver,
  Handlers,
  Health,
} from "./service/handlerTypes.ts";
export {
  type IslandOptions,
  RenderError,
  type RenderIsolation,
  RenderTimeoutError,
} from "./ssr/islandRenderer.ts";
export {
  type BridgeHandler,
  type BridgeOptions,
  createBridgeHandler,
  type SvcClosable,
} from "./transports/bridgeHandler.ts";
export {
  createFetchHandler,
  type FetchHandler,
  type FetchHandlerOptions,
} from "./transports/fetch.ts";
export { createNodeHandler, type NodeHandler, type NodeHandlerOptions } from "./transports/node.ts";
export {
  devLoaderScriptPath,
  islandsScriptPath,
  loaderExtrasPath,
  loaderScriptPath,
} from "./util/loaderFiles.ts";
