export { type ResolveStoreConfigOptions, resolveStoreConfig, type StoreConfig } from "./config.ts";
export { CSRF_COOKIE, CSRF_FIELD } from "./csrf.ts";
export { type Product, ProductDatabase } from "./database.ts";
export { escapeHtml, html, SafeHtml, trusted } from "./html.ts";
export {
  FormTooLargeError,
  FormUnreadableError,
  type IncomingRequest,
  MAX_FORM_BYTES,
  type RunningApp,
  readForm,
  runningApp,
  type StartOptions,
  type StoreResponse,
  toWebResponse,
} from "./http.ts";
export { MAX_IMAGE_BYTES, sniffImage } from "./images.ts";
export { MEDIA_URL } from "./media.ts";
export { API_BASE, PLACEHOLDER_URL, STATIC_SVC_URL } from "./pages.ts";
export { COMPONENTS_DIR, DEFAULT_BUILD_DIR, DEFAULT_DATA_DIR } from "./paths.ts";
export { type PreviewProps, type PreviewResult, previewProduct, REQUIRED } from "./preview.ts";
export { checkPrice, formatPrice, parsePrice } from "./price.ts";
export { checkProductForm, type ProductFormCheck } from "./productForm.ts";
export { COMPONENT_PREFIX, DATABASE_FILE, openStore, type Store } from "./store.ts";
