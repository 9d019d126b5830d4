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
} from "./build.ts";
export {
  type BundleOptions,
  type BundleOutput,
  type Bundler,
  contentHash,
  createEsbuildOptions,
  EXTERNALS,
  esbuildBundler,
} from "./bundler.ts";
export {
  type Component,
  ComponentRegistry,
  type ComponentSource,
  type RegistryOptions,
  type SourceOptions,
} from "./componentRegistry.ts";
export {
  CONFIG_FILES,
  type ConfigFlags,
  createRegistry,
  defineConfig,
  loadConfigFile,
  type ResolveConfigOptions,
  type ResolvedConfig,
  resolveConfig,
  type SourceConfig,
  type SvcConfig,
  UsageError,
} from "./config.ts";
export {
  DEFAULT_DEV_ORIGIN,
  type DevServer,
  type DevServerOptions,
  STATIC_PREFIX,
  startDevServer,
} from "./devServer.ts";
export {
  BundleError,
  type BundleErrorLocation,
  ComponentNotFoundError,
  type ErrorBody,
  type ErrorKind,
  InvalidComponentNameError,
  InvalidSchemaError,
  STATUS_BY_KIND,
  StaticModeError,
  SvcError,
  toErrorResponse,
} from "./errors.ts";
export { createFetchHandler, type FetchHandlerOptions } from "./fetch.ts";
export {
  type BundleListEntry,
  type BundleResult,
  createHandlers,
  type HandlerOptions,
  type Handlers,
} from "./handlers.ts";
export {
  createLiveReload,
  type LiveErrorEvent,
  type LiveEvent,
  type LiveReload,
  type LiveReloadOptions,
} from "./liveReload.ts";
export { loaderScriptPath } from "./loaderScript.ts";
export { consoleLogger, type Logger, silentLogger } from "./logger.ts";
export {
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  ManifestError,
  PrebuiltBundles,
  parseManifest,
  readManifest,
  resolveBuildDir,
} from "./manifest.ts";
export { type ComponentMetadata, type ComponentSchema, parseSchema } from "./metadata.ts";
export { fileSafeName, fromFileSafeName, isValidName, MAX_NAME_LENGTH } from "./names.ts";
export { createNodeHandler, type NodeHandler, type NodeHandlerOptions } from "./node.ts";
export {
  type BridgeOptions,
  type CorsOptions,
  createBridgeHandler,
  createRequestHandler,
  type RequestHandler,
  type RequestHandlerOptions,
  type SvcRequest,
  type SvcResponse,
} from "./requestHandler.ts";
export {
  createStaticFiles,
  IMMUTABLE_CACHE_CONTROL,
  MANIFEST_CACHE_CONTROL,
  type StaticFile,
  type StaticFiles,
  type StaticFilesOptions,
} from "./staticFiles.ts";
export { escapeHtml, renderWidget, type WidgetOptions } from "./widget.ts";
