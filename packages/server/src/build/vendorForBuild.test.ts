import { describe, expect, it } from "vitest";
import type { VendorBuild } from "../bundling/vendorModules.ts";
import { VendorForBuild } from "./vendorForBuild.ts";

const complete: VendorBuild = { modules: new Map(), loader: undefined, missing: [] };

describe("VendorForBuild", () => {
  it("builds the vendor modules at most once, however many parts of the build ask", async () => {
    let builds = 0;
    const vendor = new VendorForBuild(async () => {
      builds++;
      return complete;
    });
    expect(builds).toBe(0);
    const [forMap, forBundles] = await Promise.all([
      vendor.forImportMap(() => {}, false),
      vendor.load(),
    ]);
    expect(forMap).toBe(complete);
    expect(forBundles).toBe(complete);
    expect(builds).toBe(1);
  });
});
