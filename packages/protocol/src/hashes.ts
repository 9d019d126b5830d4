/**
 * The content-hash rule, written once: a file svc serves or builds is named by the first 12
 * hex characters of the SHA-256 of its exact bytes. The server computes digests (Node's
 * crypto); everything that names, matches or compares a hash takes it from here.
 */

/** Hex characters of a content hash. */
export const HASH_LENGTH = 12;

/** A content hash, as a pattern to put inside others. */
export const HASH_SOURCE = `[0-9a-f]{${HASH_LENGTH}}`;

const HASH = new RegExp(`^${HASH_SOURCE}$`);

/** The content hash of bytes whose SHA-256 is `hexDigest` (lowercase hex). */
export function contentHashOf(hexDigest: string): string {
  return hexDigest.slice(0, HASH_LENGTH);
}

/** Whether `value` is a content hash (12 lowercase hex characters). */
export function isContentHash(value: string): boolean {
  return HASH.test(value);
}

/** A stylesheet svc writes next to a bundle: `<stem>-<hash>.css`. */
export const STYLESHEET_FILE = new RegExp(`^[A-Za-z0-9_.]+-${HASH_SOURCE}\\.css$`);

/** A vendor module of the import map: `<name>.<hash>.js`. */
export const VENDOR_FILE = new RegExp(`^[a-z0-9-]+\\.${HASH_SOURCE}\\.js$`);

/** The strong ETag of a content hash (or of a hash and a variant: `"<hash>-url"`). */
export function etagOf(hash: string, variant?: string): string {
  return variant === undefined ? `"${hash}"` : `"${hash}-${variant}"`;
}

/** Subresource Integrity of a SHA-384 digest in base64 (what the manifest's `integrity` holds). */
export function integrityOf(base64Digest: string): string {
  return `sha384-${base64Digest}`;
}
