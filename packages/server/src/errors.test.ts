import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  BundleError,
  ComponentNotFoundError,
  InvalidComponentNameError,
  STATUS_BY_KIND,
  toErrorResponse,
} from "./errors.ts";

describe("errors", () => {
  it("keeps the README's table of error kinds and the code in step", () => {
    const readme = readFileSync(new URL("../../../README.md", import.meta.url), "utf8");
    const section = readme.slice(readme.indexOf("**Errors**"));
    const documented = Object.fromEntries(
      [...section.matchAll(/^\| `(\w+)` +\| (\d{3}) +\|/gm)].map((m) => [m[1], Number(m[2])]),
    );
    expect(documented).toEqual(STATUS_BY_KIND);
  });

  it("turns svc errors into their status and JSON body, and anything else into a bare 500", () => {
    expect(toErrorResponse(new ComponentNotFoundError("x"))).toEqual({
      status: 404,
      body: {
        error: "ComponentNotFound",
        message: 'No component named "x" is registered.',
        name: "x",
      },
    });
    expect(toErrorResponse(new InvalidComponentNameError("a/b")).status).toBe(422);
    expect(
      toErrorResponse(new BundleError("x", [{ file: "a.ts", line: 1, column: 0, text: "bad" }])),
    ).toEqual({
      status: 500,
      body: { error: "BundleError", message: 'Could not bundle "x": a.ts:1:1: bad', name: "x" },
    });
    // Development: the locations with their code frames, for the browser's error overlay.
    const located = {
      file: "a.ts",
      line: 2,
      column: 4,
      text: "bad",
      lineText: "let x = ;",
      frame: { start: 1, lines: ["// a", "let x = ;", ""] },
    };
    expect(toErrorResponse(new BundleError("x", [located, { text: "no place" }])).body).toEqual({
      error: "BundleError",
      message: 'Could not bundle "x": a.ts:2:5: bad\nno place',
      name: "x",
      locations: [located],
    });
    const secret = new Error("/home/me/secret path");
    expect(toErrorResponse(secret)).toEqual({
      status: 500,
      body: { error: "InternalError", message: "Internal server error." },
    });
  });
});
