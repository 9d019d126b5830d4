/**
 * Types of what svc components import besides code, as svc bundles them, and of what they read
 * of their environment. In the components' tsconfig: `"types": ["@svc/server/client"]` (or
 * `/// <reference types="@svc/server/client" />`). `.json` is not here: it is imported as
 * data, as TypeScript's `resolveJsonModule` types it.
 */

/**
 * `import.meta.env` in a component: replaced when the bundle is built (`svc serve` and
 * `svc build` alike, and the server bundles islands render), never read at run time.
 */
interface ImportMetaEnv {
  /** `"production"` in `svc build`, `"development"` in `svc serve`. */
  readonly MODE: "development" | "production";
  /** `MODE === "development"`. */
  readonly DEV: boolean;
  /** `MODE === "production"`. */
  readonly PROD: boolean;
  /**
   * Environment variables whose names start with `SVC_PUBLIC_`, as they were when the bundle
   * was built; nothing else of the server's environment reaches a bundle.
   */
  readonly [key: `SVC_PUBLIC_${string}`]: string | undefined;
}

interface ImportMeta {
  readonly env: ImportMetaEnv;
}

/** A CSS module: its class names, each mapped to the scoped name to use in `className`. */
declare module "*.module.css" {
  const classes: { readonly [className: string]: string };
  export default classes;
}

/** Plain CSS, imported for its effect: applied while the component is mounted. */
declare module "*.css" {}

/** Imported files: the URL svc serves the file at (or a `data:` URL for small ones). */
declare module "*.png" {
  const url: string;
  export default url;
}
declare module "*.jpg" {
  const url: string;
  export default url;
}
declare module "*.jpeg" {
  const url: string;
  export default url;
}
declare module "*.gif" {
  const url: string;
  export default url;
}
declare module "*.webp" {
  const url: string;
  export default url;
}
declare module "*.avif" {
  const url: string;
  export default url;
}
declare module "*.svg" {
  const url: string;
  export default url;
}
declare module "*.woff" {
  const url: string;
  export default url;
}
declare module "*.woff2" {
  const url: string;
  export default url;
}
declare module "*.ttf" {
  const url: string;
  export default url;
}
declare module "*.mp4" {
  const url: string;
  export default url;
}
declare module "*.webm" {
  const url: string;
  export default url;
}
declare module "*.txt" {
  const url: string;
  export default url;
}
