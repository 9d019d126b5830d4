/**
 * The bytes' side of `@svc/protocol`'s hash rule: Node's crypto computes the digests, the
 * protocol says which digest, how long, and how it is written.
 */
import { createHash } from "node:crypto";
import {
  contentHashOf,
  ETAG_ALGORITHM,
  etagOfDigest,
  HASH_ALGORITHM,
  INTEGRITY_ALGORITHM,
  integrityOf,
} from "@svc/protocol";

/** The content hash of `bytes`: what names a bundle, stylesheet or vendor file. */
export function contentHash(bytes: Uint8Array | string): string {
  return contentHashOf(createHash(HASH_ALGORITHM).update(bytes).digest("hex"));
}

/** Whether `bytes` are those `hash` names (a content hash, or any longer start of the digest). */
export function matchesContentHash(bytes: Uint8Array, hash: string): boolean {
  return createHash(HASH_ALGORITHM).update(bytes).digest("hex").startsWith(hash);
}

/** The Subresource Integrity value of `bytes`, as the manifest and import map list it. */
export function integrityOfBytes(bytes: Uint8Array): string {
  return integrityOf(createHash(INTEGRITY_ALGORITHM).update(bytes).digest("base64"));
}

/** The strong ETag of bytes that carry no content hash of their own. */
export function etagOfBytes(bytes: Uint8Array | string): string {
  return etagOfDigest(createHash(ETAG_ALGORITHM).update(bytes).digest("base64url"));
}
