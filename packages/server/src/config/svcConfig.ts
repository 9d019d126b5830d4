/**
 * The shape of `svc.config.*`, written once: this schema checks a config file (with the
 * messages `checkConfig` prints) and gives the TypeScript types `SvcConfig` and `ConfigFlags`.
 */
import * as v from "valibot";
import {
  choice,
  flag,
  isPlainObject,
  KEY,
  section,
  stringList,
  text,
  wholeNumber,
} from "./schemaParts.ts";

/** The origin a Vite dev server uses; `svc serve` lets it call the API by default. */
export const DEFAULT_DEV_ORIGIN = "http://localhost:5173";

/** How `svc serve` logs requests. */
export const REQUEST_LOGS = ["text", "json", "off"] as const;
export type RequestLog = (typeof REQUEST_LOGS)[number];

/** Where islands render. */
export const RENDER_ISOLATIONS = ["worker", "none"] as const;

const PORT = `${KEY} must be an integer from 0 to 65535`;
/** A TCP port; 0 picks a free one. */
export const portSchema = v.pipe(
  v.number(PORT),
  v.integer(PORT),
  v.minValue(0, PORT),
  v.maxValue(65535, PORT),
);

/** One component source directory. */
const sourceSchema = section(
  {
    /** Directory, relative to the config file. */
    dir: v.string(),
    /** Names from this source become `<prefix>:<name>`. Default: none. */
    prefix: v.optional(text()),
  },
  `${KEY} must be a directory or { dir, prefix }`,
  (value) => isPlainObject(value) && typeof value.dir === "string",
);

const buildSchema = section(
  {
    /** Output directory of `svc build`. */
    output: v.optional(text()),
    /** Default: true. */
    minify: v.optional(flag()),
    /** Default: false. */
    sourcemap: v.optional(flag()),
    /** Write `.gz` and `.br` siblings. Default: false. */
    compress: v.optional(flag()),
    /** Also build every component for Node, to render islands without esbuild. Default: true. */
    ssr: v.optional(flag()),
    /** Write `vendor/`, `loader.esm.js` and `importmap.json` (the no-blob CSP mode). Default: true. */
    importMap: v.optional(flag()),
  },
  `"${KEY}" must be an object`,
);

const serveSchema = section(
  {
    /** Default: "0.0.0.0". */
    host: v.optional(text()),
    /** Default: 8000. */
    port: v.optional(portSchema),
    /** Origins allowed cross-origin GET access. Default: ["http://localhost:5173"]. */
    corsOrigins: v.optional(stringList(`${KEY} must be an array of origins`)),
    /**
     * `Host` names answered besides IP addresses and `localhost` (`.example.com`: it and its
     * subdomains); `true` answers any (then pages elsewhere can read your sources through DNS
     * rebinding). Default: none.
     */
    allowedHosts: v.optional(
      v.union(
        [v.literal(true), stringList("", (host) => typeof host === "string" && host !== "")],
        `${KEY} must be an array of host names, or true`,
      ),
    ),
    /** How long one build may take before it answers a `BundleError`, in ms. Default: 30 000. */
    buildTimeoutMs: v.optional(
      wholeNumber(1, `${KEY} must be a whole number of milliseconds above 0`),
    ),
    /** Serve pre-built bundles from this `svc build` output when it holds a manifest. */
    buildDir: v.optional(text()),
    /** Static mode: the bundle endpoint answers 404. Default: false. */
    static: v.optional(flag()),
    /**
     * Where islands render: `"worker"`, a pool of worker threads (a component that loops or
     * exhausts memory loses its worker, never the server); `"none"`, the server's own thread.
     * Default: `"worker"`.
     */
    renderIsolation: v.optional(choice(RENDER_ISOLATIONS)),
    /** Render workers. Default: the machine's cores (`availableParallelism`). */
    renderWorkers: v.optional(wholeNumber(1)),
    /** Renders that may wait for a worker; past that, 503 Overloaded. Default: 1024. */
    renderQueue: v.optional(wholeNumber(0)),
    /** Each render worker's heap limit, in MiB. Default: 512. */
    renderMemoryMb: v.optional(wholeNumber(1)),
    /** How long one island render may take, in ms. Default: 5000. */
    renderTimeoutMs: v.optional(wholeNumber(1)),
    /** Request log: a line of text per request, a JSON line per request, or none. Default: "text". */
    log: v.optional(choice(REQUEST_LOGS)),
    /** Open connections one client address may hold. Default: 64. */
    maxConnectionsPerAddress: v.optional(wholeNumber(1)),
    /** Live-reload streams open at once. Default: 256. */
    maxEventClients: v.optional(wholeNumber(1)),
  },
  `"${KEY}" must be an object`,
);

/** The contents of `svc.config.{ts,js,json}`. Relative paths are relative to the file. */
export const svcConfigSchema = section(
  {
    /**
     * Component source directories, each a path or `{ dir, prefix }`. Later sources win name
     * collisions. Default: `./components` when it exists, else the built-in examples.
     */
    sources: v.optional(
      v.array(
        v.lazy((source) => (typeof source === "string" ? v.string() : sourceSchema)),
        `"${KEY}" must be an array`,
      ),
    ),
    /**
     * Glob(s) of application directories (e.g. `"apps/*"`). Every match holding a `components/`
     * directory adds it as a source prefixed with the application's directory name.
     */
    apps: v.optional(
      v.union([v.string(), stringList("")], `"${KEY}" must be a glob or an array of globs`),
    ),
    /**
     * The declaration file of the components' props that `svc types` writes and `svc serve`
     * keeps current (e.g. `"svc-env.d.ts"`). Default: none — `svc serve` writes no types, and
     * `svc types` writes `svc-env.d.ts`.
     */
    types: v.optional(text()),
    /**
     * The URL at which browsers reach svc's API: `http://127.0.0.1:8000/api` when pages come from
     * another origin, `/svc` or `https://shop.example/svc` behind a proxy that maps it to svc's
     * `/api`. Every URL svc writes for a browser starts with it. Default: `/api` (same origin).
     * Also `SVC_PUBLIC_URL`, `svc serve --public-url`.
     */
    publicUrl: v.optional(text()),
    /**
     * Where browsers reach the build directory in static mode (a CDN's URL, say). Default:
     * `{publicUrl}/static`, where `svc serve` serves it.
     */
    staticUrl: v.optional(text()),
    build: v.optional(buildSchema),
    serve: v.optional(serveSchema),
  },
  "the config must be an object",
);

/** The contents of `svc.config.{ts,js,json}`. Relative paths are relative to the file. */
export type SvcConfig = v.InferInput<typeof svcConfigSchema>;

/** One component source directory. */
export type SourceConfig = v.InferInput<typeof sourceSchema>;

type BuildConfig = v.InferInput<typeof buildSchema>;
type ServeConfig = v.InferInput<typeof serveSchema>;

/** Command-line flags; each one given overrides the config file. */
export interface ConfigFlags
  extends Pick<SvcConfig, "types" | "publicUrl">,
    BuildConfig,
    Pick<
      ServeConfig,
      "host" | "port" | "buildDir" | "static" | "renderIsolation" | "renderWorkers" | "log"
    > {
  componentsDir?: string;
  prefix?: string;
  corsOrigins?: readonly string[];
  allowedHosts?: readonly string[];
}

/** Types a config file: `export default defineConfig({ … })`. */
export function defineConfig(config: SvcConfig): SvcConfig {
  return config;
}
