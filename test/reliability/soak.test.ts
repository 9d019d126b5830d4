/**
 * The soak, short form (20 to 45 s of traffic): see `soak.ts`. The long form is
 * `npm run soak` (three minutes by default).
 */
import { describe, expect, it } from "vitest";
import { formatSoakReport, runSoak, withinBound } from "./soak.ts";

describe("soak (short form)", () => {
  it("serves thousands of requests across 200 changing components: no unexpected 5xx, never stale, memory within the cache bound", async () => {
    // 20 s at least; on a busy machine up to 45 s, until 2500 requests were answered.
    const report = await runSoak({ seconds: 20, minRequests: 2500, maxSeconds: 45 });
    console.log(formatSoakReport(report));
    expect(report.failures).toEqual([]);
    expect(report.unexpected5xx).toBe(0);
    expect(report.serverErrors).toEqual([]);
    expect(report.requests).toBeGreaterThan(2000);
    expect(report.changes.edit + report.changes.add + report.changes.remove).toBeGreaterThan(300);
    // Every way a resolution can change happened, and no stale answer survived any of them.
    for (const kind of ["shadow", "tsconfig", "packageJson", "relink"] as const) {
      expect([kind, report.changes[kind]]).toEqual([kind, expect.any(Number)]);
      expect(report.changes[kind], kind).toBeGreaterThan(5);
    }
    // Deliberately broken components did answer 500 (the check above is not vacuous).
    expect(report.byStatus["500"] ?? 0).toBeGreaterThan(0);
    // All bundles at once are several times the bound: an unbounded cache would exceed it.
    expect(report.allBundlesBytes).toBeGreaterThan(3 * report.memory.cacheMaxBytes);
    expect(withinBound(report), formatSoakReport(report)).toBe(true);
  }, 120_000);
});
