/**
 * The content-hash rule, written once: a file svc serves or builds is named by the first 12
 * hex characters of the SHA-256 of its exact bytes. The server computes digests (Node's
 * crypto); everything that names, matches or compares a hash takes it from here.
 */

/** The digest a content hash is cut from (Node's `createHash` name). */
export const HASH_ALGORITHM = "sha256";

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

/** The name of a stylesheet svc writes next to a bundle ({@link STYLESHEET_FILE}). */
export function stylesheetFile(stem: string, hash: string): string {
  return `${stem}-${hash}.css`;
}

/** A vendor module of the import map: `<name>.<hash>.js`. */
export const VENDOR_FILE = new RegExp(`^[a-z0-9-]+\\.${HASH_SOURCE}\\.js$`);

/** The name of a vendor module ({@link VENDOR_FILE}), or of a built bundle: `<stem>.<hash>.js`. */
export function hashedScriptFile(stem: string, hash: string): string {
  return `${stem}.${hash}.js`;
}

/** The strong ETag of a content hash (or of a hash and a variant: `"<hash>-url"`). */
export function etagOf(hash: string, variant?: string): string {
  return variant === undefined ? `"${hash}"` : `"${hash}-${variant}"`;
}

/** The digest an ETag of bytes without a content hash is cut from (base64url). */
export const ETAG_ALGORITHM = "sha256";

/** Characters of an ETag cut from a base64url digest: 132 bits, as unlikely to collide. */
export const ETAG_DIGEST_LENGTH = 22;

/** The strong ETag of bytes whose {@link ETAG_ALGORITHM} digest is `base64urlDigest`. */
export function etagOfDigest(base64urlDigest: string): string {
  return `"${base64urlDigest.slice(0, ETAG_DIGEST_LENGTH)}"`;
}

/** The digest of Subresource Integrity (Node's `createHash` name). */
export const INTEGRITY_ALGORITHM = "sha384";

/** Subresource Integrity of a SHA-384 digest in base64 (what the manifest's `integrity` holds). */
export function integrityOf(base64Digest: string): string {
  return `${INTEGRITY_ALGORITHM}-${base64Digest}`;
}
