import { fileSafeName, hashedScriptFile, type ManifestFile } from "@svc/protocol";
import { type BundleFile, contentHash } from "../bundling/bundler.ts";
import { withoutStylesheetImports } from "../bundling/stylesheetImports.ts";
import { integrityOfBytes as integrityOf } from "../util/contentHash.ts";
import type { BuiltBundle } from "./buildResult.ts";
import type { FinishedBundle } from "./bundleAll.ts";
import { brotli, gzip, isText } from "./compress.ts";
import { forEachConcurrently } from "./forEachConcurrently.ts";
import { BUNDLES_DIR } from "./outputFiles.ts";
import type { OutputWriter } from "./outputWriter.ts";

/**
 * Writes every bundle (and its compressed siblings) into `bundles/`. Small files are
 * written and gzipped synchronously — on the thread pool each would cost more in hand-offs
 * than the work itself — yielding to the event loop now and then; only brotli, slow and
 * CPU-bound, runs on the pool, a few files at a time.
 */
export async function writeBundles(
  output: OutputWriter,
  finished: readonly FinishedBundle[],
  compress: boolean,
  progress: (message: string) => void,
): Promise<BuiltBundle[]> {
  // Count in tenths on big builds; small ones finish before a count would be read.
  const step = finished.length >= 50 ? Math.ceil(finished.length / 10) : finished.length;
  progress(`writing ${finished.length} bundle${finished.length === 1 ? "" : "s"}…`);
  const writer = new BundleWriter(output, compress);
  const bundles: BuiltBundle[] = [];
  for (const [index, bundle] of finished.entries()) {
    bundles.push(writer.write(bundle));
    const done = index + 1;
    if (done % step === 0 && done < finished.length) {
      progress(`writing bundles ${done}/${finished.length}…`);
    }
    if (done % 32 === 0) await new Promise((resolve) => setImmediate(resolve));
  }
  await writer.compressAll(progress);
  return bundles;
}

/**
 * Places the files of browser bundles: each bundle, the form of it `moduleLoading: "url"`
 * imports, its stylesheets and assets, and with `compress` their `.gz` siblings at once and
 * their `.br` siblings at the end ({@link compressAll}).
 */
class BundleWriter {
  readonly #output: OutputWriter;
  readonly #compress: boolean;
  /** Every file to compress with brotli: bundles, stylesheets, text assets. */
  readonly #compressible: { file: string; bytes: Uint8Array }[] = [];
  /** Stylesheets and assets by path: a file several components share is written once. */
  readonly #shared = new Map<string, ManifestFile>();

  constructor(output: OutputWriter, compress: boolean) {
    this.#output = output;
    this.#compress = compress;
  }

  write({ name, code, hash, stylesheets, assets, dependencies }: FinishedBundle): BuiltBundle {
    const file = `${BUNDLES_DIR}/${hashedScriptFile(fileSafeName(name), hash)}`;
    const gzipped = gzip(code);
    this.#placeText(file, code, gzipped);
    // The form `moduleLoading: "url"` imports: the same bytes the API answers for `?url`.
    const variant = withoutStylesheetImports(
      code,
      stylesheets.map((sheet) => sheet.path),
    );
    let urlModule: ManifestFile | undefined;
    if (variant !== code) {
      urlModule = {
        file: `${BUNDLES_DIR}/${hashedScriptFile(fileSafeName(name), contentHash(variant))}`,
        integrity: integrityOf(variant),
      };
      this.#placeText(urlModule.file, variant);
    }
    return {
      urlModule,
      name,
      file,
      hash,
      integrity: integrityOf(code),
      size: code.byteLength,
      gzipSize: gzipped.byteLength,
      dependencies,
      modules: [],
      css: stylesheets.map((sheet) => this.#placeShared(sheet)),
      assets: assets.map((asset) => this.#placeShared(asset)),
    };
  }

  /** Brotli for every file {@link write} placed as text: the slow part, a few at a time. */
  async compressAll(progress: (message: string) => void): Promise<void> {
    if (!this.#compress) return;
    const files = this.#compressible;
    progress(`compressing ${files.length} file${files.length === 1 ? "" : "s"} with brotli…`);
    await forEachConcurrently(files, 4, async ({ file, bytes }) => {
      this.#output.place(`${file}.br`, await brotli(bytes));
    });
  }

  /** Places a text file, and with `compress` its `.gz` now (`gzipped` when known) and its `.br` later. */
  #placeText(file: string, bytes: Uint8Array, gzipped?: Uint8Array): void {
    this.#output.place(file, bytes);
    if (this.#compress) {
      this.#output.place(`${file}.gz`, gzipped ?? gzip(bytes));
      this.#compressible.push({ file, bytes });
    }
  }

  /** Places a stylesheet or asset beside the bundles, once however many bundles use it. */
  #placeShared(file: BundleFile): ManifestFile {
    const path = `${BUNDLES_DIR}/${file.path}`;
    let listed = this.#shared.get(path);
    if (listed === undefined) {
      listed = { file: path, integrity: integrityOf(file.bytes) };
      this.#shared.set(path, listed);
      if (isText(file.path)) this.#placeText(path, file.bytes);
      else this.#output.place(path, file.bytes);
    }
    return listed;
  }
}
