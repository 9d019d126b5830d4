/**
 * The islands soak (see `ssrSoak.ts`): 1,000 edits of a rendered component, a request after
 * each. The long form is `npm run soak:ssr [-- edits]`.
 */
import { describe, expect, it } from "vitest";
import {
  formatSsrSoakReport,
  RSS_CREEP_ALLOWANCE,
  rssCreep,
  runSsrSoak,
  ssrGrowth,
} from "./ssrSoak.ts";

describe("islands soak", () => {
  it("renders 1,000 edits of a component fresh each time, memory bounded: heap within the caches' bound, RSS not creeping", async () => {
    const report = await runSsrSoak({ edits: 1000 });
    console.log(formatSsrSoakReport(report));
    expect(report.failures).toEqual([]);
    expect(report.serverErrors).toEqual([]);
    expect(report.retained.length).toBeGreaterThanOrEqual(21);
    // Keeping every version would take several times the bound: the check is not vacuous.
    expect(report.allVersionsBytes).toBeGreaterThan(3 * report.bound);
    expect(ssrGrowth(report), formatSsrSoakReport(report)).toBeLessThanOrEqual(report.bound);
    // RSS does not creep either: nothing outside the heap keeps old versions.
    expect(rssCreep(report), formatSsrSoakReport(report)).toBeLessThanOrEqual(RSS_CREEP_ALLOWANCE);
  }, 300_000);
});
