export type {
  KnownName,
  PropsFor,
  PropsParameters,
  SvcComponentName,
  SvcComponents,
  SvcProps,
} from "./components.ts";
export {
  type BrowserErrorKind,
  ComponentNotFoundError,
  ERROR_STATUS,
  type ErrorBody,
  errorBodyOf,
  InvalidComponentNameError,
  InvalidPropsError,
  isErrorBody,
  isSvcError,
  isWireErrorKind,
  parseComponentName,
  SvcError,
  type SvcErrorKind,
  type SvcErrorOptions,
  statusOf,
  type ToolErrorKind,
  type WireErrorKind,
} from "./errors.ts";
export {
  EVENTS_PATH,
  type LiveErrorEvent,
  type LiveErrorLocation,
  type LiveEvent,
} from "./events.ts";
export {
  contentHashOf,
  etagOf,
  HASH_LENGTH,
  HASH_SOURCE,
  integrityOf,
  isContentHash,
  STYLESHEET_FILE,
  VENDOR_FILE,
} from "./hashes.ts";
export {
  formatImportTable,
  IMPORT_TABLE_PREFIX,
  type ImportClause,
  type ImportRecord,
  isStatic,
  RESERVED_LINE,
  type ReexportClause,
  readImportTable,
  type TabledModule,
} from "./importTable.ts";
export {
  DEFAULT_HYDRATE,
  type HydrateStrategy,
  ISLAND_ATTRIBUTES,
  parseHydrate,
} from "./islands.ts";
export {
  MANIFEST_FILE,
  type Manifest,
  type ManifestEntry,
  type ManifestFile,
  type ManifestModule,
} from "./manifest.ts";
export type {
  BundleListEntry,
  ComponentMetadata,
  PropertyMap,
  PropsSchema,
} from "./metadata.ts";
export {
  IMPORT_MAP_MODULES,
  type ImportMapModuleName,
  ON_DEMAND_MODULES,
  type OnDemandModuleName,
  SHARED_MODULES,
  type SharedModuleName,
  vendorStem,
} from "./modules.ts";
export {
  type ComponentName,
  componentNameProblem,
  fileSafeName,
  fromFileSafeName,
  isValidName,
  isValidSegment,
  joinName,
  MAX_NAME_LENGTH,
} from "./names.ts";
export { MAX_PROPS_DEPTH, type PropsShapeIssue, propsShapeIssue } from "./props.ts";
export {
  BUNDLE_FILES_PATH,
  bundlePath,
  DEV_LOADER_PATH,
  ESM_LOADER_PATH,
  HEALTH_PATH,
  ISLANDS_PATH,
  ISLANDS_SCRIPT_FILE,
  ISLANDS_SCRIPT_PATH,
  islandPath,
  LIST_PATH,
  LOADER_EXTRAS_FILE,
  LOADER_EXTRAS_PATH,
  LOADER_PATH,
  metadataPath,
  parseBundleQuery,
  parseRoute,
  type Route,
  routeTemplate,
  STATIC_PATH,
  stylesheetPath,
  URL_VARIANT,
  VENDOR_PATH,
} from "./routes.ts";
