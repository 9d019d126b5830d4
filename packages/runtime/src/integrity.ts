import { IntegrityError } from "./errors.ts";

const ALGORITHMS = { sha256: "SHA-256", sha384: "SHA-384", sha512: "SHA-512" } as const;
type Algorithm = keyof typeof ALGORITHMS;
const STRENGTH: readonly Algorithm[] = ["sha256", "sha384", "sha512"];

/**
 * Checks `bytes` against a Subresource Integrity value (`sha384-<base64>`, several may be
 * given separated by spaces; as in SRI, only the strongest algorithm present counts).
 * Fails closed: an integrity that cannot be checked is an error, never a pass.
 *
 * @throws IntegrityError on a mismatch, an unusable value, or no `crypto.subtle`
 */
export async function verifyIntegrity(
  bytes: BufferSource,
  integrity: string,
  component: string,
  url?: string,
  /** What the bytes are, for the message. Default: `"bundle"`. */
  what = "bundle",
): Promise<void> {
  const expected = new Map<Algorithm, string[]>();
  for (const token of integrity.trim().split(/\s+/)) {
    const dash = token.indexOf("-");
    const algorithm = token.slice(0, dash).toLowerCase();
    if (dash === -1 || !Object.hasOwn(ALGORITHMS, algorithm)) continue;
    const digest = token.slice(dash + 1).split("?")[0] ?? "";
    const list = expected.get(algorithm as Algorithm) ?? [];
    list.push(digest);
    expected.set(algorithm as Algorithm, list);
  }
  const strongest = [...STRENGTH].reverse().find((algorithm) => expected.has(algorithm));
  const where = url === undefined ? "" : ` (${url})`;
  if (strongest === undefined) {
    throw new IntegrityError(
      component,
      `Component "${component}": unsupported integrity value "${integrity}"; expected sha256-, sha384- or sha512-<base64>.`,
      { url },
    );
  }
  const subtle = globalThis.crypto?.subtle;
  if (subtle === undefined) {
    throw new IntegrityError(
      component,
      `Component "${component}": cannot check the ${what}'s integrity because crypto.subtle is unavailable (the page is not a secure context; serve it over HTTPS or from localhost).`,
      { url },
    );
  }
  const digest = new Uint8Array(await subtle.digest(ALGORITHMS[strongest], bytes));
  let binary = "";
  for (const byte of digest) binary += String.fromCharCode(byte);
  const actual = btoa(binary);
  if (!(expected.get(strongest) ?? []).includes(actual)) {
    throw new IntegrityError(
      component,
      `Component "${component}": the ${what}${where} does not match its integrity ${strongest}-${expected.get(strongest)?.[0]} (got ${strongest}-${actual}); it was refused.`,
      { url },
    );
  }
}
