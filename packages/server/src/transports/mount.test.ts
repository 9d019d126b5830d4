import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { belowDepth, belowPrefix, createPatternMount, mountDepth, resolvePrefix } from "./mount.ts";

const belowPattern = createPatternMount();

/** What `belowDepth` must answer, written the slow, obvious way. */
function reference(url: string, depth: number): string {
  let rest = url;
  for (let i = 0; i < depth && rest.startsWith("/"); i++) {
    const end = rest.slice(1).search(/[/?]/);
    rest = end === -1 ? "" : rest.slice(end + 1);
  }
  if (rest === "") return "/";
  return rest.startsWith("/") ? rest : `/${rest}`;
}

describe("mount points", () => {
  it("normalises prefixes", () => {
    expect(resolvePrefix()).toBe("");
    expect(resolvePrefix("/")).toBe("");
    expect(resolvePrefix("api/")).toBe("/api");
    expect(resolvePrefix("/ui/components//")).toBe("/ui/components");
  });

  it("cuts a prefix only at a segment boundary", () => {
    expect(belowPrefix("/api/bundles/a.js?v=1", "/api")).toBe("/bundles/a.js?v=1");
    expect(belowPrefix("/api", "/api")).toBe("/");
    expect(belowPrefix("/api?x", "/api")).toBe("/?x");
    expect(belowPrefix("/apix/bundles", "/api")).toBeUndefined();
    expect(belowPrefix("/other", "/api")).toBeUndefined();
  });

  it("counts the segments of a route pattern before its wildcard", () => {
    expect(mountDepth("/api/*")).toBe(1);
    expect(mountDepth("/ui/:tenant/*")).toBe(2);
    expect(mountDepth("/api/*path")).toBe(1);
    expect(mountDepth("/api/{*path}")).toBe(1);
    expect(mountDepth("*")).toBe(0);
    expect(mountDepth("/ui/components")).toBe(2);
  });

  it("keeps the raw, still-encoded rest below a pattern, whichever pattern came before", () => {
    expect(belowPattern("/api/bundles/a%2Eb.js?x=1", "/api/*")).toBe("/bundles/a%2Eb.js?x=1");
    expect(belowPattern("/ui/components/bundles", "/ui/components/*path")).toBe("/bundles");
    expect(belowPattern("/api/bundles", "/api/*")).toBe("/bundles");
    expect(belowPattern("/api?x", "/api/*")).toBe("/?x");
  });

  it("cuts segments like the obvious implementation, for any URL and depth", () => {
    const url = fc
      .array(fc.constantFrom("/", "?", "a", "%2F", ".", "b"), { maxLength: 12 })
      .map((parts) => parts.join(""));
    fc.assert(
      fc.property(url, fc.nat(4), (u, depth) => {
        expect(belowDepth(u, depth)).toBe(reference(u, depth));
      }),
    );
  });
});
