import { createSvcClient } from "@svc/runtime";
import { describe, expect, it } from "vitest";
import { componentMetadataQueryOptions, componentQueryOptions } from "./componentQueryOptions.ts";
import { svcQueryKeys } from "./queryKeys.ts";

describe("svcQueryKeys", () => {
  const api = createSvcClient({ apiBase: "/api" });
  const other = createSvcClient({ apiBase: "https://cdn.example/svc" });
  const built = createSvcClient({ manifestUrl: "/static/svc/manifest.json" });

  it("keys a component by name and by where it is loaded from", () => {
    expect(svcQueryKeys.component(api, "counter")).toEqual(["component", "counter", "api:/api"]);
    expect(svcQueryKeys.component(built, "counter")).toEqual([
      "component",
      "counter",
      "manifest:/static/svc/manifest.json",
    ]);
    expect(svcQueryKeys.component(other, "counter")).not.toEqual(
      svcQueryKeys.component(api, "counter"),
    );
  });

  it("keeps the spec's ['component', name] prefix for module and metadata", () => {
    for (const key of [svcQueryKeys.component(api, "x"), svcQueryKeys.metadata(api, "x")]) {
      expect(key.slice(0, 2)).toEqual(["component", "x"]);
    }
    expect(svcQueryKeys.metadata(api, "x")).not.toEqual(svcQueryKeys.component(api, "x"));
  });

  it("tells a module key of a source from the rest", () => {
    expect(svcQueryKeys.componentOf(api, svcQueryKeys.component(api, "a"))).toBe("a");
    expect(svcQueryKeys.componentOf(api, svcQueryKeys.metadata(api, "a"))).toBeUndefined();
    expect(svcQueryKeys.componentOf(api, svcQueryKeys.component(other, "a"))).toBeUndefined();
    expect(svcQueryKeys.matches(api, svcQueryKeys.metadata(api, "a"))).toBe(true);
    expect(svcQueryKeys.matches(api, ["todos", 1])).toBe(false);
  });

  it("is what the query options use", () => {
    expect(componentQueryOptions("a", { client: api }).queryKey).toEqual(
      svcQueryKeys.component(api, "a"),
    );
    expect(componentMetadataQueryOptions("a", { client: built }).queryKey).toEqual(
      svcQueryKeys.metadata(built, "a"),
    );
  });
});
