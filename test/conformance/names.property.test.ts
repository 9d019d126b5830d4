/**
 * Server and browser agree on names: for any string, the browser's client refuses it as an
 * invalid name exactly when the server answers `422 InvalidComponentName` for it — both read
 * the grammar from `@svc/protocol`, and this shows the whole way (URL encoding, routing,
 * decoding) keeps them together.
 */
import { createSvcClient, isSvcError } from "@svc/runtime";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ComponentRegistry,
  createHandlers,
  createRequestHandler,
  MAX_NAME_LENGTH,
  silentLogger,
} from "./svc.ts";

const core = createRequestHandler(
  createHandlers(new ComponentRegistry(undefined, { logger: silentLogger }), {
    logger: silentLogger,
  }),
);

/** What the browser makes of `name`: the error kind of loading it against the core. */
async function browserVerdict(name: string): Promise<string> {
  const client = createSvcClient({
    apiBase: "",
    fetch: async (input) => {
      const response = await core({
        method: "GET",
        url: String(input),
        header: () => undefined,
      });
      return new Response(response.body as string, {
        status: response.status,
        headers: response.headers,
      });
    },
  });
  try {
    await client.load(name);
    return "loaded";
  } catch (error) {
    return isSvcError(error) ? error.kind : "other";
  }
}

/** What the server makes of `name`, requested as a client would put it in a URL. */
async function serverVerdict(name: string): Promise<string> {
  const response = await core({
    method: "GET",
    url: `/bundles/${encodeURIComponent(name)}.js`,
    header: () => undefined,
  });
  return (JSON.parse(String(response.body)) as { error: string }).error;
}

const nameLike = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."ab_Z09.:-/\\% ".split("")), maxLength: 24 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc
    .array(fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/), { minLength: 1, maxLength: 4 })
    .map((segments) => segments.join(".")),
  fc.integer({ min: MAX_NAME_LENGTH - 2, max: MAX_NAME_LENGTH + 2 }).map((n) => "a".repeat(n)),
);

describe("names: server and browser agree", () => {
  it("the browser refuses a name exactly when the server answers 422", async () => {
    await fc.assert(
      fc.asyncProperty(nameLike, async (name) => {
        const [browser, server] = await Promise.all([browserVerdict(name), serverVerdict(name)]);
        const browserInvalid = browser === "InvalidComponentName";
        const serverInvalid = server === "InvalidComponentName";
        expect([name, browserInvalid]).toEqual([name, serverInvalid]);
        // A valid name reaches the server, which knows no such component.
        if (!serverInvalid) expect([name, browser]).toEqual([name, "ComponentNotFound"]);
      }),
      { numRuns: 400 },
    );
  });
});
