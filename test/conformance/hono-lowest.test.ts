import { Hono } from "hono";
import { Hono as LowestHono } from "hono-lowest";
import { expect, it, vi } from "vitest";
import { honoDriver } from "./drivers/hono.ts";
import { conformance } from "./suite.ts";

// The lowest supported Hono (hono-lowest = hono@4.0.0) stands in for "hono" in the driver's
// app; the bridge is middleware that needs nothing of Hono at run time.
vi.mock("hono", async () => await import("hono-lowest"));

it("runs the driver's app on hono@4.0.0", () => {
  expect(Hono).toBe(LowestHono);
});

conformance({ ...honoDriver, name: "hono (hono-lowest)" });
