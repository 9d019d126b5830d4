/**
 * Server and browser agree on names: for any string, the browser's client refuses it as an
 * invalid name exactly when the server answers `422 InvalidComponentName` for it — both read
 * the grammar from `@svc/protocol`, and this shows the whole way (URL encoding, routing,
 * decoding) keeps them together. They also give a name the same file-safe form, which maps
 * back to the name, and a name's stylesheet URL is never taken for a bundle's stylesheet file.
 */
import { fileSafeName as browserFileSafeName, createSvcClient, isSvcError } from "@svc/runtime";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  ComponentRegistry,
  createHandlers,
  createRequestHandler,
  fileSafeName,
  fromFileSafeName,
  isValidName,
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

/** Segments as folders are named: identifiers, kebab-case, and near misses of kebab-case. */
const segmentLike = fc.oneof(
  fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,8}$/),
  fc.stringMatching(/^[a-z][a-z0-9]{0,4}(?:-[a-z0-9]{1,4}){1,3}$/),
  fc.stringMatching(/^[a-zA-Z0-9_-]{1,10}$/),
);

const nameLike = fc.oneof(
  fc.string({ unit: fc.constantFrom(..."ab_Z09.:-/\\% ".split("")), maxLength: 24 }),
  fc.string({ unit: "grapheme", maxLength: 12 }),
  fc
    .tuple(
      fc.option(segmentLike, { nil: undefined }),
      fc.array(segmentLike, { minLength: 1, maxLength: 4 }),
    )
    .map(
      ([prefix, segments]) => `${prefix === undefined ? "" : `${prefix}:`}${segments.join(".")}`,
    ),
  // A last part of 11 to 13 hex digits, or almost: 12 is the shape of a stylesheet file's hash.
  fc
    .tuple(segmentLike, fc.stringMatching(/^[0-9a-g]{11,13}$/))
    .map(([head, tail]) => `${head}-${tail}`),
  fc.integer({ min: MAX_NAME_LENGTH - 2, max: MAX_NAME_LENGTH + 2 }).map((n) => "a".repeat(n)),
);

/** The error kind the server answers for `GET /bundles/<name>.css` (the name as it is). */
async function stylesheetVerdict(name: string): Promise<string> {
  const response = await core({
    method: "GET",
    url: `/bundles/${name}.css`,
    header: () => undefined,
  });
  return (JSON.parse(String(response.body)) as { error: string }).error;
}

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

  it("the browser and the server give a valid name one file-safe form, which maps back to it", () => {
    fc.assert(
      fc.property(nameLike, (name) => {
        fc.pre(isValidName(name));
        const safe = browserFileSafeName(name);
        expect(safe).toBe(fileSafeName(name));
        expect(safe).not.toContain(":");
        expect(fromFileSafeName(safe)).toBe(name);
      }),
      { numRuns: 1000 },
    );
  });

  it("routes a valid name's .css to its stylesheet, never to a bundle's file", async () => {
    await fc.assert(
      fc.asyncProperty(nameLike, async (name) => {
        fc.pre(isValidName(name) && !name.includes("%"));
        expect([name, await stylesheetVerdict(name)]).toEqual([name, "ComponentNotFound"]);
      }),
      { numRuns: 300 },
    );
  });
});
