/**
 * The one table of request → expected response cases every transport must answer alike.
 * Paths are raw (sent byte for byte, no URL normalisation) and relative to the mount prefix.
 */

import type { Fixture } from "./fixture.ts";
import type { WireErrorKind as ErrorKind } from "./svc.ts";

/**
 * Which server a case runs against (see `suite.ts` for the options of each): live bundling,
 * a build directory with live fallback, static mode, and live bundling answering only the
 * `Host` names it is told (as `svc serve` does).
 */
export type Config = "dev" | "prebuilt" | "static" | "guarded";

export interface Expected {
  status: number;
  /** A JSON error body `{ error, message, name? }` of this kind. */
  error?: ErrorKind;
  /** The `name` field of the error body. */
  name?: string;
  /** Exact header values; `null` means the header must be absent. */
  contentType?: string | null;
  cacheControl?: string | null;
  /** An exact ETag, or "present". */
  etag?: string | "present" | null;
  /** The exact JSON body, or a subset of its fields (objects). */
  json?: unknown;
  jsonSubset?: Record<string, unknown>;
  /** The exact body bytes. */
  body?: Buffer;
  bodyIncludes?: string;
  bodyExcludes?: string;
  /** Other headers: an exact value, a pattern, or `null` for absent. */
  headers?: Record<string, string | RegExp | null>;
}

export interface Case {
  title: string;
  config?: Config;
  method?: "GET" | "HEAD" | "POST" | "OPTIONS";
  path: string;
  headers?: Record<string, string>;
  /** The request body, sent with `Content-Type: application/json` unless `bodyType` says. */
  body?: string;
  /** The body's `Content-Type` instead of `application/json`; `null` sends none. */
  bodyType?: string | null;
  /**
   * On a transport whose framework parses bodies before svc sees them, whatever the app does
   * (NestJS on Fastify: see `Driver.parsesBodiesFirst`), the status it answers this body with,
   * in its own error body: then only the status is compared.
   */
  frameworkAnswers?: number;
  /** First GET the path, then send it again with `If-None-Match: <its ETag>`. */
  revalidate?: boolean;
  /** First GET the path, then send it again with `?<its ETag's hash>` as the query. */
  ownHash?: boolean;
  expect: Expected;
  /**
   * What a transport that normalises dot segments must answer instead (see `hasDotSegment`),
   * when the shortened path is a legitimate one. Default: one of svc's 4xx JSON errors.
   */
  whenNormalised?: { path: string; expect: Expected };
}

export const JSON_TYPE = "application/json; charset=utf-8";
export const JS_TYPE = "application/javascript; charset=utf-8";
export const CSS_TYPE = "text/css; charset=utf-8";
export const IMMUTABLE = "public, max-age=31536000, immutable";
export const CORS_ORIGIN = "http://app.example";
/** The one name besides IP addresses and localhost the "guarded" server answers. */
export const ALLOWED_HOST = "app.example";

/**
 * The malformed names of the foundation issue. `raw` is the name as written into the path;
 * `encoded` percent-encodes every character of `raw`. A NUL byte cannot be written raw in an
 * HTTP request line (servers reject the request before any framework sees it), so its raw
 * form is `%00`, the encoding a client must use; `%2500` is that text encoded once more.
 */
export const MALFORMED_NAMES: readonly { label: string; raw: string }[] = [
  { label: "..", raw: ".." },
  { label: "a..b", raw: "a..b" },
  { label: ".a", raw: ".a" },
  { label: "a/b", raw: "a/b" },
  { label: "%2e%2e", raw: "%2e%2e" },
  { label: "a:b:c", raw: "a:b:c" },
  { label: "1000 characters", raw: "a".repeat(1000) },
  { label: "a NUL byte", raw: "%00" },
  // Kebab-case done wrong, and the one reserved shape: a last part of 12 hex digits.
  { label: "-a", raw: "-a" },
  { label: "a-", raw: "a-" },
  { label: "a--b", raw: "a--b" },
  { label: "A-b", raw: "A-b" },
  { label: "a_b-c", raw: "a_b-c" },
  { label: "card-0123456789ab", raw: "card-0123456789ab" },
];

export function encodeAll(text: string): string {
  return [...Buffer.from(text)]
    .map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`)
    .join("");
}

/**
 * Whether a WHATWG URL parser (every fetch-based runtime, `new Request`) would remove a
 * segment of this path: `.`/`..`, also written `%2e`.
 */
export function hasDotSegment(path: string): boolean {
  const pathname = path.split("?")[0] ?? "";
  return pathname.split("/").some((segment) => /^(?:\.|%2e){1,2}$/i.test(segment));
}

const jsonOk = { status: 200, contentType: JSON_TYPE, cacheControl: "no-cache", etag: "present" };

function error(status: number, kind: ErrorKind, name?: string): Expected {
  return { status, error: kind, name, contentType: JSON_TYPE, cacheControl: "no-store" };
}

/** The largest body svc reads (`MAX_BODY_BYTES`, 1 MiB): the props of an island. */
export const BODY_LIMIT = 1024 * 1024;

/** Props `{"who":"xx…"}` of exactly `bytes` bytes as JSON, for greeting (`who` is a string). */
export function propsOfSize(bytes: number): string {
  return `{"who":"${"x".repeat(bytes - '{"who":""}'.length)}"}`;
}

export function conformanceCases(fx: Fixture): Case[] {
  const names = [
    "broken",
    "gallery",
    "greeting",
    "plain",
    "stuck",
    "styled",
    "thrower",
    "ui:card",
    "widgets.chart",
  ].map((name) => ({ name }));
  const html = (bodyIncludes: string): Expected => ({
    status: 200,
    contentType: "text/html; charset=utf-8",
    cacheControl: "no-store",
    bodyIncludes,
  });
  const greeting = fx.prebuilt.greeting;
  const card = fx.prebuilt["ui:card"];
  const files = fx.prebuiltFiles;
  const stylesheet = files.stylesheet.slice("bundles/".length);
  const asset = files.asset.slice("bundles/".length);
  // biome-ignore format: one case per line, so the table reads as a table
  const cases: Case[] = [
    // Listing
    { title: "lists the components, sorted", path: "/bundles", expect: { ...jsonOk, json: names } },
    { title: "lists with a trailing slash", path: "/bundles/", expect: { ...jsonOk, json: names } },
    { title: "answers 304 to a listing it already sent", path: "/bundles", revalidate: true, expect: { status: 304, contentType: null, cacheControl: "no-cache", etag: "present" } },

    // Bundles, built live
    { title: "bundles a component; without its hash in the URL, it revalidates", path: "/bundles/greeting.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", bodyIncludes: "Hello, " } },
    { title: "is immutable under its own hash only", path: "/bundles/greeting.js", ownHash: true, expect: { status: 200, contentType: JS_TYPE, cacheControl: IMMUTABLE, etag: "present", bodyIncludes: "Hello, " } },
    { title: "revalidates under another (stale) hash", path: "/bundles/greeting.js?abc123abc123", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", bodyIncludes: "Hello, " } },
    { title: "bundles a prefixed name (raw colon)", path: "/bundles/ui:card.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", bodyIncludes: "card" } },
    { title: "bundles a prefixed name (encoded colon)", path: "/bundles/ui%3Acard.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", bodyIncludes: "card" } },
    { title: "bundles a nested (dotted) name", path: "/bundles/widgets.chart.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", bodyIncludes: "svg" } },
    { title: "sends no Link header for a bundle that asks for no component", path: "/bundles/greeting.js", expect: { status: 200, headers: { link: null } } },
    { title: "preloads the components a bundle asks for that exist, then the on-demand vendor files it imports, dependencies first (Link, relative to the bundle)", path: "/bundles/gallery.js", expect: { status: 200, contentType: JS_TYPE, headers: { link: /^<\.\/greeting\.js\?[0-9a-f]{12}>; rel=modulepreload, <\.\/ui:card\.js\?[0-9a-f]{12}>; rel=modulepreload, <\.\.\/vendor\/tanstack-react-query\.[0-9a-f]{12}\.js>; rel=modulepreload, <\.\.\/vendor\/svc-react\.[0-9a-f]{12}\.js>; rel=modulepreload$/ } } },
    { title: "keeps the Link header on a 304", path: "/bundles/gallery.js", revalidate: true, expect: { status: 304, headers: { link: /^<\.\/greeting\.js\?[0-9a-f]{12}>; rel=modulepreload, / } } },
    { title: "answers 304 to a bundle the client has", path: "/bundles/greeting.js", revalidate: true, expect: { status: 304, contentType: null, cacheControl: "no-cache", etag: "present" } },
    { title: "answers HEAD like GET, without a body", method: "HEAD", path: "/bundles/greeting.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", body: Buffer.alloc(0) } },

    // Stylesheets and assets
    { title: "gives a component's whole stylesheet; without its hash in the URL, it revalidates", path: "/bundles/styled.css", expect: { status: 200, contentType: CSS_TYPE, cacheControl: "no-cache", etag: "present", bodyIncludes: ".styled {\n  color: rgb(1, 2, 3);" } },
    { title: "gives a stylesheet that is immutable under its own hash only", path: "/bundles/styled.css", ownHash: true, expect: { status: 200, contentType: CSS_TYPE, cacheControl: IMMUTABLE, etag: "present", bodyIncludes: ".styled" } },
    { title: "answers 304 to a stylesheet the client has", path: "/bundles/styled.css", revalidate: true, expect: { status: 304, contentType: null, cacheControl: "no-cache", etag: "present" } },
    { title: "gives an empty stylesheet for a component without CSS", path: "/bundles/greeting.css", expect: { status: 200, contentType: CSS_TYPE, cacheControl: "no-cache", body: Buffer.alloc(0) } },
    { title: "404 ComponentNotFound for the stylesheet of an unknown component", path: "/bundles/missing.css", expect: error(404, "ComponentNotFound", "missing") },
    { title: "500 BundleError for the stylesheet of a component that does not bundle", path: "/bundles/broken.css", expect: error(500, "BundleError", "broken") },
    { title: "422 InvalidComponentName for the stylesheet of a malformed name", path: "/bundles/a..b.css", expect: error(422, "InvalidComponentName") },
    { title: "404 NotFound for a stylesheet of a bundle the server does not hold", path: "/bundles/card-0123456789ab.css", expect: error(404, "NotFound") },
    { title: "404 ComponentNotFound for the stylesheet of an unknown kebab-case name (a name, not a bundle's file)", path: "/bundles/product-card.css", expect: error(404, "ComponentNotFound", "product-card") },
    { title: "404 ComponentNotFound for the stylesheet of a kebab-case name whose last part is no 12-digit hash", path: "/bundles/ui:card-0123456789a.css", expect: error(404, "ComponentNotFound", "ui:card-0123456789a") },
    { title: "422 InvalidComponentName for a percent-encoded name shaped like a bundle's stylesheet file", path: "/bundles/card%2D0123456789ab.css", expect: error(422, "InvalidComponentName") },
    { title: "404 NotFound for an asset the server does not hold", path: "/bundles/assets/logo-ABCD2345.png", expect: error(404, "NotFound") },
    { title: "404 NotFound for an asset path leaving the assets", path: "/bundles/assets/..%2F..%2Fmanifest.json", expect: error(404, "NotFound") },

    // Metadata
    { title: "gives metadata from schema.json", path: "/bundles/greeting/metadata", expect: { ...jsonOk, jsonSubset: { name: "greeting", title: "Greeting", description: "Says hello.", version: "1.0.0" } } },
    { title: "gives minimal metadata without schema.json", path: "/bundles/plain/metadata", expect: { ...jsonOk, jsonSubset: { name: "plain", title: "plain", description: "", properties: {} } } },
    { title: "gives metadata of a prefixed name", path: "/bundles/ui:card/metadata", expect: { ...jsonOk, jsonSubset: { name: "ui:card" } } },
    { title: "lists the components a bundle asks for by a literal name in metadata", path: "/bundles/gallery/metadata", expect: { ...jsonOk, jsonSubset: { name: "gallery", dependencies: ["greeting", "missing", "ui:card"] } } },
    { title: "lists no dependencies for a component that asks for none", path: "/bundles/plain/metadata", expect: { ...jsonOk, jsonSubset: { dependencies: [] } } },
    { title: "answers 304 to metadata the client has", path: "/bundles/greeting/metadata", revalidate: true, expect: { status: 304, contentType: null, cacheControl: "no-cache", etag: "present" } },

    // Errors
    { title: "404 ComponentNotFound for an unknown bundle", path: "/bundles/missing.js", expect: error(404, "ComponentNotFound", "missing") },
    { title: "404 ComponentNotFound for unknown metadata", path: "/bundles/missing/metadata", expect: error(404, "ComponentNotFound", "missing") },
    { title: "404 ComponentNotFound suggests the registered name that differs only in case", path: "/bundles/Greeting.js", expect: { ...error(404, "ComponentNotFound", "Greeting"), jsonSubset: { message: 'No component named "Greeting" is registered — did you mean "greeting"?' } } },
    { title: "404 ComponentNotFound suggests the closest registered name (one edit) for metadata", path: "/bundles/greting/metadata", expect: { ...error(404, "ComponentNotFound", "greting"), jsonSubset: { message: 'No component named "greting" is registered — did you mean "greeting"?' } } },
    { title: "404 ComponentNotFound suggests nothing when no registered name is close", path: "/bundles/missing.js", expect: { ...error(404, "ComponentNotFound", "missing"), jsonSubset: { message: 'No component named "missing" is registered.' } } },
    { title: "404 ComponentNotFound for an unknown kebab-case name (a valid name)", path: "/bundles/product-card.js", expect: error(404, "ComponentNotFound", "product-card") },
    { title: "404 ComponentNotFound for unknown metadata of a dotted, prefixed kebab-case name", path: "/bundles/my-shop:ui.product-card/metadata", expect: error(404, "ComponentNotFound", "my-shop:ui.product-card") },
    { title: "500 BundleError naming file, line and column", path: "/bundles/broken.js", expect: { ...error(500, "BundleError", "broken"), bodyIncludes: "Impl.tsx:2:" } },
    { title: "500 BundleError for metadata of a component that does not bundle", path: "/bundles/broken/metadata", expect: error(500, "BundleError", "broken") },
    { title: "404 NotFound for a path that is no endpoint", path: "/nothing-here", expect: error(404, "NotFound") },
    { title: "404 NotFound for a bundle path without .js", path: "/bundles/greeting", expect: error(404, "NotFound") },
    { title: "405 MethodNotAllowed for POST", method: "POST", path: "/bundles", expect: { ...error(405, "MethodNotAllowed") } },

    // Islands: components rendered on the server
    { title: "renders an island with its props", method: "POST", path: "/bundles/greeting/html", body: '{"who":"svc"}', expect: html('data-svc-component="greeting" data-svc-props=\'{"who":"svc"}\' data-svc-ssr="" data-svc-hash="') },
    { title: "renders the island's HTML inside its container", method: "POST", path: "/bundles/greeting/html", body: '{"who":"svc"}', expect: html("<p>Hello, <!-- -->svc<!-- --> <!-- -->0</p>") },
    { title: "renders with the hydration strategy asked for", method: "POST", path: "/bundles/greeting/html?hydrate=visible", body: "{}", expect: html('data-svc-hydrate="visible"') },
    { title: "renders a prefixed name", method: "POST", path: "/bundles/ui%3Acard/html", body: "{}", expect: html("<div>card</div>") },
    { title: "400 InvalidProps for a body that is not JSON", method: "POST", path: "/bundles/greeting/html", body: "{oops", frameworkAnswers: 400, expect: error(400, "InvalidProps", "greeting") },
    { title: "400 InvalidProps for JSON that is not an object", method: "POST", path: "/bundles/greeting/html", body: "[1,2]", expect: error(400, "InvalidProps", "greeting") },
    { title: "400 InvalidProps for an unknown hydration strategy", method: "POST", path: "/bundles/greeting/html?hydrate=sometimes", body: "{}", expect: error(400, "InvalidProps", "greeting") },
    { title: "422 InvalidProps for props that fail schema.json", method: "POST", path: "/bundles/greeting/html", body: '{"who":5}', expect: { ...error(422, "InvalidProps", "greeting"), bodyIncludes: "who: " } },
    { title: "500 RenderError for a component that throws while rendering", method: "POST", path: "/bundles/thrower/html", body: "{}", expect: { ...error(500, "RenderError", "thrower"), bodyIncludes: "thrown on purpose" } },
    { title: "500 RenderTimeout for a render that does not finish in time", method: "POST", path: "/bundles/stuck/html", body: "{}", expect: error(500, "RenderTimeout", "stuck") },
    { title: "404 ComponentNotFound for an island of no component", method: "POST", path: "/bundles/missing/html", body: "{}", expect: error(404, "ComponentNotFound", "missing") },
    { title: "404 ComponentNotFound for an island of an unknown kebab-case name, suggesting the closest", method: "POST", path: "/bundles/gallery-x/html", body: "{}", expect: { ...error(404, "ComponentNotFound", "gallery-x"), jsonSubset: { message: 'No component named "gallery-x" is registered — did you mean "gallery"?' } } },
    { title: "500 BundleError for an island of a component that does not bundle", method: "POST", path: "/bundles/broken/html", body: "{}", expect: error(500, "BundleError", "broken") },
    { title: "405 MethodNotAllowed for a body POSTed to another endpoint", method: "POST", path: "/bundles/greeting.js", body: "{}", expect: { ...error(405, "MethodNotAllowed"), headers: { allow: "GET, HEAD, OPTIONS" } } },

    // Islands: the body rule, alike on every transport (JSON, up to 1 MiB)
    { title: "415 UnsupportedMediaType for props sent as text/plain (what a page of another origin can send without a preflight)", method: "POST", path: "/bundles/greeting/html", body: '{"who":"svc"}', bodyType: "text/plain;charset=UTF-8", expect: { ...error(415, "UnsupportedMediaType", "greeting"), bodyIncludes: "Content-Type: application/json" } },
    { title: "415 UnsupportedMediaType for props sent as a form", method: "POST", path: "/bundles/greeting/html", body: "who=svc", bodyType: "application/x-www-form-urlencoded", expect: error(415, "UnsupportedMediaType", "greeting") },
    { title: "415 UnsupportedMediaType for props without a Content-Type", method: "POST", path: "/bundles/greeting/html", body: '{"who":"svc"}', bodyType: null, frameworkAnswers: 415, expect: { ...error(415, "UnsupportedMediaType", "greeting"), bodyIncludes: "no Content-Type" } },
    { title: "renders props sent as application/json; charset=utf-8", method: "POST", path: "/bundles/greeting/html", body: '{"who":"svc"}', bodyType: "application/json; charset=utf-8", expect: html("<p>Hello, <!-- -->svc<!-- -->") },
    { title: "reads the Content-Type in any case (Application/JSON)", method: "POST", path: "/bundles/greeting/html", body: '{"who":"svc"}', bodyType: "Application/JSON", expect: html("<p>Hello, <!-- -->svc<!-- -->") },
    { title: "renders an empty JSON body as no props ({})", method: "POST", path: "/bundles/greeting/html", body: "", frameworkAnswers: 400, expect: html("<p>Hello, <!-- -->world<!-- -->") },
    { title: "renders 200 KB of props (over the 100 kb many body parsers default to)", method: "POST", path: "/bundles/greeting/html", body: propsOfSize(200 * 1024), expect: html('data-svc-component="greeting"') },
    { title: "renders props of exactly 1 MiB, the limit", method: "POST", path: "/bundles/greeting/html", body: propsOfSize(BODY_LIMIT), expect: html('data-svc-component="greeting"') },
    { title: "413 PayloadTooLarge for a body one byte over 1 MiB", method: "POST", path: "/bundles/greeting/html", body: propsOfSize(BODY_LIMIT + 1), frameworkAnswers: 413, expect: { ...error(413, "PayloadTooLarge"), bodyIncludes: "1 MiB" } },
    { title: "415 before 413: a large body of another type is refused for its type", method: "POST", path: "/bundles/greeting/html", body: "x".repeat(BODY_LIMIT + 1), bodyType: "text/plain", frameworkAnswers: 413, expect: error(415, "UnsupportedMediaType", "greeting") },
    { title: "405 MethodNotAllowed with Allow: POST for GET of an island", path: "/bundles/greeting/html", expect: { ...error(405, "MethodNotAllowed") } },

    // CORS (the dev server is configured to allow CORS_ORIGIN)
    { title: "allows the configured origin", path: "/bundles", headers: { origin: CORS_ORIGIN }, expect: { ...jsonOk, json: names } },
    { title: "lets the configured origin read a bundle's Link header", path: "/bundles/gallery.js", headers: { origin: CORS_ORIGIN }, expect: { status: 200, headers: { "access-control-allow-origin": CORS_ORIGIN, "access-control-expose-headers": "Link" } } },
    { title: "answers a CORS preflight", method: "OPTIONS", path: "/bundles/greeting.js", headers: { origin: CORS_ORIGIN, "access-control-request-method": "GET" }, expect: { status: 204 } },
    { title: "lets the configured origin POST JSON props to an island (preflight: POST, Content-Type)", method: "OPTIONS", path: "/bundles/greeting/html", headers: { origin: CORS_ORIGIN, "access-control-request-method": "POST", "access-control-request-headers": "content-type" }, expect: { status: 204, headers: { "access-control-allow-origin": CORS_ORIGIN, "access-control-allow-methods": "POST", "access-control-allow-headers": "content-type" } } },
    { title: "lets the configured origin read the island it POSTed for", method: "POST", path: "/bundles/greeting/html", headers: { origin: CORS_ORIGIN }, body: '{"who":"svc"}', expect: { ...html("<p>Hello, <!-- -->svc<!-- -->"), headers: { "access-control-allow-origin": CORS_ORIGIN } } },
    { title: "allows no other origin to POST JSON props to an island (preflight without CORS headers)", method: "OPTIONS", path: "/bundles/greeting/html", headers: { origin: "http://other.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" }, expect: { status: 204, headers: { "access-control-allow-origin": null, "access-control-allow-methods": null, "access-control-allow-headers": null, vary: "Origin" } } },

    // The loader script
    { title: "serves the loader script", path: "/loader.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", body: fx.loaderCode } },
    { title: "answers 304 to a loader script the client has", path: "/loader.js?v=1", revalidate: true, expect: { status: 304, contentType: null, cacheControl: "no-cache", etag: "present" } },
    { title: "serves the development loader script", path: "/loader.dev.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", body: fx.devLoaderCode } },
    { title: "serves what the loader fetches for islands", path: "/loader.extras.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", body: fx.loaderExtrasCode } },
    { title: "serves what the loader fetches for live reload", path: "/loader.live.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", body: fx.loaderLiveCode } },
    { title: "serves the islands start, which fetches the loader when a first island hydrates", path: "/islands.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: "present", body: fx.islandsScriptCode } },

    // No build directory: nothing static
    { title: "404 NotFound for static files without a build directory", path: "/static/manifest.json", expect: error(404, "NotFound") },

    // Pre-built bundles from a build directory, live fallback
    { config: "prebuilt", title: "serves a pre-built bundle from the manifest", path: `/bundles/greeting.js?${greeting.hash}`, expect: { status: 200, contentType: JS_TYPE, cacheControl: IMMUTABLE, etag: `"${greeting.hash}"`, body: greeting.code } },
    { config: "prebuilt", title: "serves a pre-built bundle without its hash, to revalidate", path: "/bundles/greeting.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", etag: `"${greeting.hash}"`, body: greeting.code } },
    { config: "prebuilt", title: "serves a pre-built prefixed bundle", path: `/bundles/ui%3Acard.js?${card.hash}`, expect: { status: 200, contentType: JS_TYPE, cacheControl: IMMUTABLE, etag: `"${card.hash}"`, body: card.code } },
    { config: "prebuilt", title: "falls back to live bundling for a name the manifest lacks", path: "/bundles/plain.js", expect: { status: 200, contentType: JS_TYPE, cacheControl: "no-cache", bodyIncludes: '"plain"', bodyExcludes: "prebuilt" } },
    { config: "prebuilt", title: "404 ComponentNotFound suggests a name of the manifest", path: "/bundles/ui:Card/metadata", expect: { ...error(404, "ComponentNotFound", "ui:Card"), jsonSubset: { message: 'No component named "ui:Card" is registered — did you mean "ui:card"?' } } },
    { config: "prebuilt", title: "gives the manifest's hash in metadata", path: "/bundles/greeting/metadata", expect: { ...jsonOk, jsonSubset: { name: "greeting", title: "Greeting", hash: greeting.hash } } },
    { config: "prebuilt", title: "gives the manifest's dependencies in metadata", path: "/bundles/greeting/metadata", expect: { ...jsonOk, jsonSubset: { dependencies: ["gone", "ui:card"] } } },
    { config: "prebuilt", title: "preloads the manifest's dependencies that exist, with their hashes", path: `/bundles/greeting.js?${greeting.hash}`, expect: { status: 200, headers: { link: `<./ui:card.js?${card.hash}>; rel=modulepreload` } } },
    { config: "prebuilt", title: "serves manifest.json as a static file", path: "/static/manifest.json", expect: { status: 200, contentType: JSON_TYPE, cacheControl: "no-cache", etag: "present", jsonSubset: { greeting: { file: greeting.file, hash: greeting.hash } } } },
    { config: "prebuilt", title: "serves a hashed bundle file", path: `/static/${greeting.file}`, expect: { status: 200, contentType: JS_TYPE, cacheControl: IMMUTABLE, etag: "present", body: greeting.code } },
    { config: "prebuilt", title: "serves a file-safe named bundle file", path: `/static/${card.file}`, expect: { status: 200, contentType: JS_TYPE, cacheControl: IMMUTABLE, body: card.code } },
    { config: "prebuilt", title: "answers 304 to a static file the client has", path: `/static/${greeting.file}`, revalidate: true, expect: { status: 304, contentType: null, cacheControl: IMMUTABLE, etag: "present" } },
    { config: "prebuilt", title: "gives a pre-built component's stylesheet from its files", path: "/bundles/greeting.css", expect: { status: 200, contentType: CSS_TYPE, cacheControl: "no-cache", etag: "present", body: files.css } },
    { config: "prebuilt", title: "serves a pre-built stylesheet under the API, immutable", path: `/bundles/${stylesheet}`, expect: { status: 200, contentType: CSS_TYPE, cacheControl: IMMUTABLE, etag: "present", body: files.css } },
    { config: "prebuilt", title: "serves a pre-built asset under the API, immutable", path: `/bundles/${asset}`, expect: { status: 200, contentType: "image/svg+xml", cacheControl: IMMUTABLE, etag: "present", body: files.svg } },
    { config: "prebuilt", title: "serves a stylesheet file", path: `/static/${files.stylesheet}`, expect: { status: 200, contentType: CSS_TYPE, cacheControl: IMMUTABLE, etag: "present", body: files.css } },
    { config: "prebuilt", title: "serves an asset file", path: `/static/${files.asset}`, expect: { status: 200, contentType: "image/svg+xml", cacheControl: IMMUTABLE, etag: "present", body: files.svg } },
    { config: "prebuilt", title: "404 NotFound for a static file that does not exist", path: "/static/bundles/nope.js", expect: error(404, "NotFound") },
    { config: "prebuilt", title: "404 NotFound for a static path with ..", path: "/static/../manifest.json", expect: error(404, "NotFound") },
    { config: "prebuilt", title: "404 NotFound for a static path with .. inside the build directory", path: "/static/bundles/../manifest.json", expect: error(404, "NotFound"), whenNormalised: { path: "/static/manifest.json", expect: { status: 200, contentType: JSON_TYPE, cacheControl: "no-cache" } } },
    { config: "prebuilt", title: "404 NotFound for a static path with %2e%2e", path: "/static/%2e%2e/build/manifest.json", expect: error(404, "NotFound") },
    { config: "prebuilt", title: "404 NotFound for a static path with an encoded slash", path: "/static/bundles%2F..%2Fmanifest.json", expect: error(404, "NotFound") },
    { config: "prebuilt", title: "404 NotFound for a static path with an encoded backslash", path: "/static/bundles%5C..%5Cmanifest.json", expect: error(404, "NotFound") },
    { config: "prebuilt", title: "404 NotFound for a static path with a NUL byte", path: "/static/manifest.json%00", expect: error(404, "NotFound") },

    // Static mode
    { config: "static", title: "404 StaticMode for a bundle in static mode", path: "/bundles/greeting.js", expect: error(404, "StaticMode", "greeting") },
    { config: "static", title: "still gives metadata (with the manifest hash) in static mode", path: "/bundles/greeting/metadata", expect: { ...jsonOk, jsonSubset: { name: "greeting", hash: greeting.hash } } },
    { config: "static", title: "still serves static files in static mode", path: `/static/${greeting.file}`, expect: { status: 200, contentType: JS_TYPE, cacheControl: IMMUTABLE, body: greeting.code } },
    { config: "static", title: "404 StaticMode for a stylesheet in static mode", path: "/bundles/greeting.css", expect: error(404, "StaticMode", "greeting") },
    { config: "static", title: "serves the build's asset under the API in static mode (islands refer to it there)", path: `/bundles/${asset}`, expect: { status: 200, contentType: "image/svg+xml", cacheControl: IMMUTABLE, etag: "present", body: files.svg } },
    { config: "static", title: "serves the build's stylesheet under the API in static mode (islands link it there)", path: `/bundles/${stylesheet}`, expect: { status: 200, contentType: CSS_TYPE, cacheControl: IMMUTABLE, etag: "present", body: files.css } },
    { config: "static", title: "404 StaticMode for a file under the API the build does not hold", path: "/bundles/assets/nope-ABCD2345.svg", expect: error(404, "StaticMode") },
    { config: "static", title: "still serves stylesheets and assets as static files", path: `/static/${files.stylesheet}`, expect: { status: 200, contentType: CSS_TYPE, cacheControl: IMMUTABLE, body: files.css } },
    { config: "static", title: "422 before 404 StaticMode for a malformed name", path: "/bundles/a..b.js", expect: error(422, "InvalidComponentName") },
    { method: "HEAD", title: "HEAD of the live-reload stream: its headers, no body", path: "/events", expect: { status: 200, contentType: "text/event-stream; charset=utf-8", cacheControl: "no-cache, no-transform", body: Buffer.alloc(0) } },
    { config: "static", title: "204 for the live-reload stream in static mode (an EventSource stops)", path: "/events", expect: { status: 204, cacheControl: "no-store", body: Buffer.alloc(0) } },

    // The Host guard of a development server (DNS-rebinding protection)
    { config: "guarded", title: "403 HostNotAllowed for a Host it was not told", path: "/bundles/greeting.js", headers: { host: "rebind.attacker.example" }, expect: error(403, "HostNotAllowed") },
    { config: "guarded", title: "403 HostNotAllowed for the listing too", path: "/bundles", headers: { host: "rebind.attacker.example:8000" }, expect: error(403, "HostNotAllowed") },
    { config: "guarded", title: "answers a Host it was told", path: "/bundles", headers: { host: `${ALLOWED_HOST}:8000` }, expect: { ...jsonOk, json: names } },
    { config: "guarded", title: "answers localhost", path: "/bundles", headers: { host: "localhost:8000" }, expect: { ...jsonOk, json: names } },
    { config: "guarded", title: "answers an IP address", path: "/bundles", headers: { host: "127.0.0.1:8000" }, expect: { ...jsonOk, json: names } },
  ];

  for (const { label, raw } of MALFORMED_NAMES) {
    for (const [form, text] of [
      ["raw", raw],
      ["percent-encoded", encodeAll(raw)],
    ] as const) {
      // biome-ignore format: one case per line
      cases.push(
        { title: `422 InvalidComponentName for bundle of ${label} (${form})`, path: `/bundles/${text}.js`, expect: error(422, "InvalidComponentName") },
        { title: `422 InvalidComponentName for metadata of ${label} (${form})`, path: `/bundles/${text}/metadata`, expect: error(422, "InvalidComponentName") },
      );
    }
  }
  return cases;
}
