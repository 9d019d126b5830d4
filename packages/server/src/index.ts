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
export { type BuildOptions, build } from "./build/build.ts";
export {
  BuildFailedError,
  type BuildFailure,
  BuildOutputError,
  BuildSetupError,
} from "./build/buildErrors.ts";
export { formatBuildReport } from "./build/buildReport.ts";
export type { BuildResult, BuiltBundle } from "./build/buildResult.ts";
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
export { createRegistry } from "./config/createRegistry.ts";
export { CONFIG_FILES, loadConfigFile } from "./config/loadConfigFile.ts";
export {
  type ResolveConfigOptions,
  type ResolvedConfig,
  resolveConfig,
} from "./config/resolveConfig.ts";
export {
  type ConfigFlags,
  DEFAULT_DEV_ORIGIN,
  defineConfig,
  type SourceConfig,
  type SvcConfig,
} from "./config/svcConfig.ts";
export { UsageError } from "./config/usageError.ts";
export {
  createLiveReload,
  type LiveErrorEvent,
  type LiveEvent,
  type LiveReload,
  type LiveReloadOptions,
} from "./dev/liveReload.ts";
export { STATIC_PREFIX } from "./devServer/devRoutes.ts";
export {
  type DevServer,
  type DevServerOptions,
  startDevServer,
} from "./devServer/startDevServer.ts";
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
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  ManifestError,
  parseManifest,
  readManifest,
  resolveBuildDir,
} from "./served/manifest.ts";
export { type PrebuiltBundle, PrebuiltBundles } from "./served/prebuiltBundles.ts";
export {
  createStaticFiles,
  IMMUTABLE_CACHE_CONTROL,
  MANIFEST_CACHE_CONTROL,
  type StaticFile,
  type StaticFiles,
  type StaticFilesOptions,
} from "./served/staticFiles.ts";
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
  type GenerateTypesOptions,
  generateTypes,
  TYPES_FILE,
  writeTypesFile,
} from "./types/typesFile.ts";
export {
  devLoaderScriptPath,
  islandsScriptPath,
  loaderExtrasPath,
  loaderLivePath,
  loaderScriptPath,
} from "./util/loaderFiles.ts";
