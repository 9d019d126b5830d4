import { createHash } from "node:crypto";

/** The Subresource Integrity value of `bytes`, as the manifest and import map list it. */
export function integrityOf(bytes: Uint8Array): string {
  return `sha384-${createHash("sha384").update(bytes).digest("base64")}`;
}
