import { mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { readImportTable } from "@svc/protocol";
import { describe, expect, it } from "vitest";
import {
  buildVendorModules,
  onDemandImports,
  VendorModulesError,
  vendorClosure,
  vendorLinks,
  vendorModules,
} from "./vendorModules.ts";

const encode = (text: string) => new TextEncoder().encode(text);

describe("onDemandImports", () => {
  it("finds the on-demand modules a bundle imports: static, side effect, dynamic, minified or not", () => {
    expect(onDemandImports('import{useComponent as u}from"@svc/react";import"goober";')).toEqual([
      "goober",
      "@svc/react",
    ]);
    expect(onDemandImports("const q = await import( '@tanstack/react-query' );")).toEqual([
      "@tanstack/react-query",
    ]);
    // React and @svc/runtime are in loader.js: never fetched on demand.
    expect(onDemandImports('import{useState}from"react";import*as r from"@svc/runtime";')).toEqual(
      [],
    );
  });
});

describe("vendorClosure / vendorLinks", () => {
  it("lists what a bundle needs, dependencies first, as links relative to the bundle", async () => {
    const build = await vendorModules();
    expect(vendorClosure(build, ["@svc/react"]).map((f) => f.module)).toEqual([
      "@tanstack/react-query",
      "@svc/react",
    ]);
    const code = encode('import{useComponent}from"@svc/react";');
    const links = await vendorLinks(code);
    expect(links).toMatch(
      /^<\.\.\/vendor\/tanstack-react-query\.[0-9a-f]{12}\.js>; rel=modulepreload, <\.\.\/vendor\/svc-react\.[0-9a-f]{12}\.js>; rel=modulepreload$/,
    );
    // Once built, answered at once (warm bundles are answered without a promise).
    expect(vendorLinks(code)).toBe(links);
    expect(vendorLinks(encode('import{useState}from"react";'))).toBeUndefined();
    // The vendor @svc/react reads @svc/runtime from the page (one registry, one React).
    const svcReact = new TextDecoder().decode(build.modules.get("@svc/react")?.body);
    expect(svcReact).toMatch(/from\s*"@svc\/runtime"/);
    expect(svcReact).not.toContain("@cfworker");
    // Each carries an import table, so loader.js rewrites it without lexing (as a bundle).
    const table = readImportTable(svcReact);
    expect(table?.imports.map((record) => record.n)).toContain("@svc/runtime");
    expect(table?.exports).toContain("useComponent");
  });
});

describe("buildVendorModules without every package", () => {
  it("builds those installed and names each missing one, instead of failing them all", async () => {
    const dir = mkdtempSync(join(tmpdir(), "svc-vendor-"));
    try {
      // An app with @tanstack/react-query installed and nothing else of the vendor modules.
      mkdirSync(join(dir, "node_modules", "@tanstack"), { recursive: true });
      symlinkSync(
        dirname(createRequire(import.meta.url).resolve("@tanstack/react-query/package.json")),
        join(dir, "node_modules", "@tanstack", "react-query"),
      );
      const build = await buildVendorModules({ resolveDir: dir });
      expect([...build.modules.keys()]).toEqual(["@tanstack/react-query"]);
      expect(build.missing.map((error) => error.notInstalled)).toContain("goober");
      expect(build.missing.map((error) => error.notInstalled)).toContain("@svc/react");
      const goober = build.missing.find((error) => error.notInstalled === "goober");
      expect(goober).toBeInstanceOf(VendorModulesError);
      expect(goober?.message).toMatch(/goober installed beside @svc\/server: run `npm install /);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
