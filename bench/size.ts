/**
 * Size of the standalone loader (issue 18): `loader.js` as `npm run build -w @svc/loader`
 * builds it — React, ReactDOM, `@svc/runtime` and the loader: all a page whose bundles import
 * no on-demand module gets — against React + ReactDOM (`react`, `react/jsx-runtime`, `react-dom`,
 * `react-dom/client`: what the loader bundles) of the version installed here, built the same
 * way (esbuild, one IIFE, es2020, minified, `NODE_ENV` "production", no legal comments).
 * Sizes are exact, so one build each; gzip is zlib's default level, as servers send it.
 * Target: the loader at most 10 kB (10,000 bytes) gzip above React + ReactDOM. This row fails
 * `npm run bench` (exit 1) when it misses. `npm run bench -- size`.
 *
 * `islands.js`, which a page of server-rendered islands starts with instead (it fetches
 * `loader.js` when a first island is to hydrate), has a budget of its own:
 * {@link ISLANDS_BUDGET_BYTES} gzip, also a failing row when missed.
 *
 * What `loader.js` fetches on demand is reported in rows of its own: `loader.extras.js`
 * (island hydration strategies), only for a page with an island; `loader.live.js` (the
 * live-reload client, the error overlay), only for a page following live reload; the vendor files (`ON_DEMAND_MODULES`: `@svc/react` with TanStack Query, goober),
 * only for a bundle that imports them, as the server builds them (`buildVendorModules`,
 * esbuild, minified ES modules).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { buildLoader } from "../packages/loader/build.ts";
import { ON_DEMAND_MODULES } from "../packages/protocol/src/index.ts";
import { buildVendorModules } from "../packages/server/src/bundling/vendorModules.ts";
import type { Row } from "./lib.ts";

/** Bytes the loader may add to React + ReactDOM, gzip. */
export const LOADER_BUDGET_BYTES = 10_000;

/** What `islands.js` may weigh, gzip: all a page of islands fetches until one hydrates. */
export const ISLANDS_BUDGET_BYTES = 1_500;

const require = createRequire(import.meta.url);

async function reactAlone(): Promise<Uint8Array> {
  const result = await esbuild.build({
    stdin: {
      contents: [
        'import * as a from "react";',
        'import * as b from "react/jsx-runtime";',
        'import * as c from "react-dom";',
        'import * as d from "react-dom/client";',
        "window.__react = [a, b, c, d];",
      ].join("\n"),
      resolveDir: join(import.meta.dirname, "../packages/loader"),
    },
    bundle: true,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    legalComments: "none",
    define: { "process.env.NODE_ENV": '"production"' },
    write: false,
    logLevel: "warning",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("esbuild produced no React build");
  return output.contents;
}

const kB = (bytes: number) => bytes / 1000;

export async function benchLoaderSize(): Promise<Row[]> {
  const dir = mkdtempSync(join(tmpdir(), "svc-loader-size-"));
  try {
    const built = await buildLoader({ outdir: dir });
    const loader = readFileSync(built.production);
    const react = await reactAlone();
    const version = (require("react/package.json") as { version: string }).version;
    const loaderGzip = gzipSync(loader).length;
    const reactGzip = gzipSync(react).length;
    const vendor = await buildVendorModules({
      resolveDir: join(import.meta.dirname, "../packages/server/src/bundling"),
    });
    const gzipOf = (module: string) => {
      const body = vendor.modules.get(module as never)?.body;
      if (body === undefined) throw new Error(`no vendor file for ${module}`);
      return gzipSync(body).length;
    };
    const sizes = ON_DEMAND_MODULES.map((module) => `${module} ${kB(gzipOf(module)).toFixed(1)}`);
    const svcReact = gzipOf("@svc/react") + gzipOf("@tanstack/react-query");
    const extras = readFileSync(built.extras);
    const live = readFileSync(built.live);
    const islandsGzip = gzipSync(readFileSync(built.islands)).length;
    return [
      {
        name: `loader.js minified (React ${version} + ReactDOM alone as baseline)`,
        value: kB(loader.length),
        unit: "kB",
        baseline: kB(react.length),
        ratio: loader.length / react.length,
      },
      {
        name: `loader.js gzip (React ${version} + ReactDOM alone as baseline)`,
        value: kB(loaderGzip),
        unit: "kB",
        baseline: kB(reactGzip),
        ratio: loaderGzip / reactGzip,
        target: `≤ baseline + ${kB(LOADER_BUDGET_BYTES)} kB`,
        ok: loaderGzip <= reactGzip + LOADER_BUDGET_BYTES,
        gate: true,
      },
      {
        name: "islands.js gzip: all a page of server-rendered islands fetches until a first island hydrates",
        value: kB(islandsGzip),
        unit: "kB",
        target: `≤ ${kB(ISLANDS_BUDGET_BYTES)} kB`,
        ok: islandsGzip <= ISLANDS_BUDGET_BYTES,
        gate: true,
      },
      {
        name: "loader.extras.js gzip, fetched only for a page with an island",
        value: kB(gzipSync(extras).length),
        unit: "kB",
      },
      {
        name: "loader.live.js gzip, fetched only for a page following live reload (development)",
        value: kB(gzipSync(live).length),
        unit: "kB",
      },
      {
        name: `on-demand vendor files gzip, fetched only when a bundle imports one (${sizes.join(" kB, ")} kB); value: @svc/react + TanStack Query`,
        value: kB(svcReact),
        unit: "kB",
      },
      {
        name: "loader.js + the vendor files of a page whose bundles import @svc/react, gzip",
        value: kB(loaderGzip + svcReact),
        unit: "kB",
        baseline: kB(reactGzip),
        ratio: (loaderGzip + svcReact) / reactGzip,
      },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
