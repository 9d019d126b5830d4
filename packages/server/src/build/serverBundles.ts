import { fileSafeName } from "@svc/protocol";
import type { FinishedOutput } from "../bundling/bundler.ts";
import { serverBundleOf } from "../bundling/serverBundle.ts";
import { BundleError } from "../errors.ts";
import { integrityOfBytes as integrityOf } from "../util/contentHash.ts";
import { BuildFailedError } from "./buildErrors.ts";
import type { BundleOptions, FinishedBundle } from "./bundleAll.ts";
import { BUNDLES_DIR } from "./outputFiles.ts";
import type { OutputWriter } from "./outputWriter.ts";

/** One component's server bundle (CommonJS, for rendering islands in Node). */
export interface ServerBundle extends FinishedOutput {
  name: string;
}

/**
 * Each server bundle made from its browser bundle, as the dev server makes it: the same code.
 * @throws BuildFailedError when esbuild refuses one.
 */
export function buildServerBundles(
  finished: readonly FinishedBundle[],
  options: BundleOptions,
): Promise<ServerBundle[]> {
  return Promise.all(
    finished.map(async (bundle) => ({
      name: bundle.name,
      ...(await serverBundleOf(bundle, options).catch((error: unknown) => {
        if (!(error instanceof BundleError)) throw error;
        throw new BuildFailedError(
          error.errors.map(({ text }) => ({ component: bundle.name, text })),
        );
      })),
    })),
  );
}

/** Writes each server bundle as `bundles/<file_safe_name>.<hash>.cjs`; never compressed. */
export function writeServerBundles(
  output: OutputWriter,
  servers: readonly ServerBundle[],
): Map<string, { file: string; integrity: string }> {
  const files = new Map<string, { file: string; integrity: string }>();
  for (const { name, code, hash } of servers) {
    const file = `${BUNDLES_DIR}/${fileSafeName(name)}.${hash}.cjs`;
    output.place(file, code);
    files.set(name, {
      file,
      integrity: integrityOf(code),
    });
  }
  return files;
}
