import { promisify } from "node:util";
import { brotliCompress, gzipSync, constants as zlib } from "node:zlib";

const brotliAsync = promisify(brotliCompress);

/** `bytes` gzipped at level 9, the same bytes on every machine (see {@link normalizeGzipHeader}). */
export function gzip(bytes: Uint8Array): Uint8Array {
  return normalizeGzipHeader(gzipSync(bytes, { level: zlib.Z_BEST_COMPRESSION }));
}

/**
 * `bytes` compressed with brotli at its best quality: files are compressed once, at build
 * time, and served many times. Runs on the thread pool, as it is slow and CPU-bound.
 */
export function brotli(bytes: Uint8Array): Promise<Uint8Array> {
  return brotliAsync(bytes, {
    params: {
      [zlib.BROTLI_PARAM_MODE]: zlib.BROTLI_MODE_TEXT,
      [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY,
      [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength,
    },
  });
}

/** Files worth compressing: stylesheets and text assets (images and fonts are compressed already). */
export function isText(path: string): boolean {
  return /\.(?:css|svg|json|txt)$/i.test(path);
}

/**
 * gzip's header records the operating system it was made on; pin it to "Unix" so the `.gz`
 * files are byte-identical wherever the build runs (the header carries no checksum).
 */
function normalizeGzipHeader(bytes: Uint8Array): Uint8Array {
  if (bytes.byteLength > 9) bytes[9] = 3;
  return bytes;
}
