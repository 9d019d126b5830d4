/** Largest image an upload may carry: 5 MB. */
export const MAX_IMAGE_BYTES = 5 * 1024 * 1024;

export interface ImageType {
  /** Media type, e.g. `image/png`. */
  type: string;
  /** File extension without the dot. */
  ext: string;
}

const ascii = (bytes: Uint8Array, start: number, text: string) =>
  text.split("").every((char, i) => bytes[start + i] === char.charCodeAt(0));

/**
 * The image format of `bytes`, read from their first bytes (never from the file name or the
 * type the browser claimed). PNG, JPEG, GIF and WebP only: SVG can carry scripts, so uploads
 * never are SVG.
 */
export function sniffImage(bytes: Uint8Array): ImageType | undefined {
  if (
    bytes.length >= 8 &&
    [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a].every((b, i) => bytes[i] === b)
  ) {
    return { type: "image/png", ext: "png" };
  }
  if (bytes.length >= 3 && bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) {
    return { type: "image/jpeg", ext: "jpg" };
  }
  if (bytes.length >= 6 && (ascii(bytes, 0, "GIF87a") || ascii(bytes, 0, "GIF89a"))) {
    return { type: "image/gif", ext: "gif" };
  }
  if (bytes.length >= 12 && ascii(bytes, 0, "RIFF") && ascii(bytes, 8, "WEBP")) {
    return { type: "image/webp", ext: "webp" };
  }
  return undefined;
}

/** Media types of the files under `/media/`, by extension (the seed images are SVG). */
export const MEDIA_TYPES: Readonly<Record<string, string>> = {
  png: "image/png",
  jpg: "image/jpeg",
  gif: "image/gif",
  webp: "image/webp",
  svg: "image/svg+xml",
};

export function toDataUrl(bytes: Uint8Array, type: string): string {
  return `data:${type};base64,${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")}`;
}
