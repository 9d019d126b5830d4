import { describe, expect, it } from "vitest";
import {
  ComponentNotFoundError,
  errorBodyOf,
  InvalidPropsError,
  isErrorBody,
  SvcError,
  statusOf,
} from "./errors.ts";

describe("error bodies", () => {
  it("carry a wire kind's message and component, and nothing of any other kind", () => {
    expect(errorBodyOf(new ComponentNotFoundError("card"))).toEqual({
      error: "ComponentNotFound",
      message: 'No component named "card" is registered.',
      name: "card",
    });
    // A browser or tool kind is not the API's to send: only that something failed.
    const build = new SvcError("BuildFailed", "esbuild crashed in /home/ci/app", {
      component: "card",
    });
    expect(errorBodyOf(build)).toEqual({
      error: "InternalError",
      message: "Internal server error.",
    });
    expect(statusOf(build)).toBe(500);
    expect(statusOf(new InvalidPropsError("card", "not JSON", { malformed: true }))).toBe(400);
  });

  it("are recognised by their shape, whatever the kind: a newer server's kind keeps its message", () => {
    expect(isErrorBody(errorBodyOf(new ComponentNotFoundError("card")))).toBe(true);
    expect(isErrorBody({ error: "SomeNewKind", message: "what happened" })).toBe(true);
    expect(isErrorBody({ error: "ComponentNotFound" })).toBe(false);
    expect(isErrorBody({ error: 404, message: "x" })).toBe(false);
    expect(isErrorBody(null)).toBe(false);
    expect(isErrorBody("ComponentNotFound")).toBe(false);
  });
});
