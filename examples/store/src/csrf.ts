import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";

export const CSRF_COOKIE = "store_csrf";
export const CSRF_FIELD = "csrf_token";

const ID = /^[A-Za-z0-9_-]{43}$/;

/**
 * CSRF protection for the admin forms, signed double submit: a random id in an HttpOnly,
 * SameSite=Strict cookie, and in each form the HMAC of that id under a server secret. A
 * cross-site page can neither read the cookie nor compute the token, and a cookie planted by
 * a sibling subdomain is useless without the secret.
 */
export class Csrf {
  readonly #key: Buffer;

  constructor(secret: string | undefined) {
    this.#key = secret === undefined ? randomBytes(32) : Buffer.from(secret, "utf8");
  }

  /** The token for the page's form, and a `Set-Cookie` value when the browser has no id yet. */
  issue(cookieHeader: string | undefined): { token: string; setCookie?: string } {
    const existing = readCookie(cookieHeader);
    if (existing !== undefined) return { token: this.#sign(existing) };
    const id = randomBytes(32).toString("base64url");
    return {
      token: this.#sign(id),
      setCookie: `${CSRF_COOKIE}=${id}; Path=/admin; HttpOnly; SameSite=Strict`,
    };
  }

  /** Whether `token` (the form field) belongs to the id in the request's cookie. */
  verify(cookieHeader: string | undefined, token: unknown): boolean {
    const id = readCookie(cookieHeader);
    if (id === undefined || typeof token !== "string") return false;
    const expected = Buffer.from(this.#sign(id));
    const given = Buffer.from(token);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }

  #sign(id: string): string {
    return createHmac("sha256", this.#key).update(id).digest("base64url");
  }
}

function readCookie(header: string | undefined): string | undefined {
  for (const part of (header ?? "").split(";")) {
    const [key, value] = part.trim().split("=", 2);
    if (key === CSRF_COOKIE && value !== undefined && ID.test(value)) return value;
  }
  return undefined;
}
