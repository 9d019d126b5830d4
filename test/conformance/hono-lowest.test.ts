import { Hono } from "hono";
import { Hono as LowestHono } from "hono-lowest";
import { expect, it, vi } from "vitest";
import { honoDriver } from "./drivers/hono.ts";
import { conformance } from "./suite.ts";

// The lowest supported Hono (hono-lowest = hono@4.0.0) stands in for "hono" everywhere in
// this file: in the driver's app and in the bridge's own import of it.
vi.mock("hono", async () => await import("hono-lowest"));

it("runs hono@4.0.0 in the app and in the bridge", async () => {
  const { createRoutes } = await import("../../packages/server/src/transports/hono.ts");
  const { ComponentRegistry } = await import("./svc.ts");
  expect(Hono).toBe(LowestHono);
  expect(createRoutes(new ComponentRegistry())).toBeInstanceOf(LowestHono);
});

conformance({ ...honoDriver, name: "hono (hono-lowest)" });
