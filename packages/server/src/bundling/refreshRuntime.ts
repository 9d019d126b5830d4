/**
 * `refresh.js`, served below the API prefix: React's Fast Refresh runtime
 * (`react-refresh/runtime`) for one page, as a script that is a classic script and an ES
 * module alike (it imports and exports nothing). It hooks into the page's React — before
 * react-dom is evaluated when the page loads it first (a `<script src>` before the app's), or
 * through the hook `loader.dev.js` sets up for it — and installs `globalThis.__svcRefresh`
 * (`RefreshGlobal` of `@svc/protocol`), which development bundles register their components
 * with (`refreshTransform.ts`). Built with esbuild on first request, then kept.
 */
import { fileURLToPath } from "node:url";
import { REFRESH_GLOBAL } from "@svc/protocol";
import * as esbuild from "esbuild";
import { etagOfBytes } from "../util/contentHash.ts";

/** The built file and its ETag (what the request handler serves, as it serves the loaders). */
export interface RefreshRuntimeFile {
  body: Uint8Array;
  etag: string;
}

/**
 * The runtime's entry. `update` follows React's rules: a module whose exports are all
 * components is refreshed in place (React itself remounts one whose hooks changed); any other
 * export, or a refresh that throws, and the host remounts.
 */
const ENTRY = `
import * as Runtime from "react-refresh/runtime";
if (globalThis.${REFRESH_GLOBAL} === undefined && typeof window !== "undefined") {
  Runtime.injectIntoGlobalHook(window);
  globalThis.${REFRESH_GLOBAL} = {
    register: Runtime.register,
    signature: Runtime.createSignatureFunctionForTransform,
    familyOf: Runtime.getFamilyByType,
    update(module) {
      const values = Object.keys(module).map((key) => module[key]);
      if (values.length === 0 || !values.every((value) => Runtime.isLikelyComponentType(value))) {
        return false;
      }
      try {
        Runtime.performReactRefresh();
      } catch (error) {
        console.error("svc: Fast Refresh failed, remounting:", error);
        return false;
      }
      return values.every((value) => Runtime.getFamilyByType(value) !== undefined);
    },
  };
}
`;

/** `refresh.js`, built on first use and kept (a failed build is tried again next time). */
export function createRefreshRuntimeFile(): () => Promise<RefreshRuntimeFile> {
  let built: Promise<RefreshRuntimeFile> | undefined;
  return () => {
    built ??= buildRefreshRuntime().catch((error: unknown) => {
      built = undefined;
      throw error;
    });
    return built;
  };
}

async function buildRefreshRuntime(): Promise<RefreshRuntimeFile> {
  const result = await esbuild.build({
    stdin: {
      contents: ENTRY,
      loader: "js",
      // Where `react-refresh` resolves from: this package's dependencies.
      resolveDir: fileURLToPath(new URL(".", import.meta.url)),
      sourcefile: "svc-refresh-runtime.js",
    },
    bundle: true,
    write: false,
    format: "iife",
    platform: "browser",
    target: "es2020",
    minify: true,
    define: { "process.env.NODE_ENV": '"development"' },
    legalComments: "none",
    logLevel: "silent",
  });
  const output = result.outputFiles[0];
  if (output === undefined) throw new Error("svc: esbuild produced no refresh.js");
  const body = output.contents;
  return { body, etag: etagOfBytes(body) };
}
