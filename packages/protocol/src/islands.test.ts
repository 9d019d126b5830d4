import { describe, expect, it } from "vitest";
import { parseHydrate } from "./islands.ts";

describe("parseHydrate", () => {
  it("names the plain strategies", () => {
    for (const plain of ["load", "idle", "visible", "interaction", "none"]) {
      expect(parseHydrate(plain)).toBe(plain);
    }
  });

  it("accepts visible with a root margin of one to four lengths in px or %", () => {
    for (const margin of ["200px", "200px 0px", "-10% 0px 5%", "1px 2px 3px 4px", "0.5px", ".5%"]) {
      expect(parseHydrate(`visible:${margin}`)).toBe(`visible:${margin}`);
    }
  });

  it("refuses a visible margin that is no rootMargin", () => {
    for (const margin of [
      "",
      "0",
      "200",
      "200em",
      "1px 2px 3px 4px 5px",
      " 200px",
      "200px,",
      "px",
    ]) {
      expect(parseHydrate(`visible:${margin}`)).toBeUndefined();
    }
  });

  it("accepts real media queries", () => {
    for (const query of [
      "(min-width: 800px)",
      "screen and (max-width: 40em)",
      "(prefers-reduced-motion: reduce)",
      "(hover)",
      "print",
      "only screen and (min-width: 800px) and (orientation: landscape)",
      "not all and (monochrome)",
      "(min-aspect-ratio: 16/9), print",
      "(width >= 800px)",
      "(400px < width <= 900px)",
      "(hover) or (min-resolution: 2dppx)",
      "not (hover)",
      "screen and not (color)",
      "SCREEN AND (MIN-WIDTH: 10PX)",
    ]) {
      expect(parseHydrate(`media:${query}`)).toBe(`media:${query}`);
    }
  });

  it("refuses what is no media query: a bare word, empty or unclosed parentheses, stray text", () => {
    for (const query of [
      "",
      "bogus",
      "()",
      "(min-width: 800px",
      "min-width: 800px",
      "screen (min-width: 800px)",
      "(min-width: 800px) and",
      "(min-width: 800px);x",
      "(a: b) (c: d)",
      "(width >=)",
      "((min-width: 1px))",
      "(a) and (b) or (c)",
      "not (a) and (b)",
      "(a) and not (b)",
      "not screen and (a) or (b)",
      "(min-width: 800px),",
    ]) {
      expect(parseHydrate(`media:${query}`)).toBeUndefined();
    }
  });

  it("refuses unknown strategies and over-long ones", () => {
    for (const value of ["sometimes", "Load", "interaction:click", "visible:", "media", ""]) {
      expect(parseHydrate(value)).toBeUndefined();
    }
    expect(parseHydrate(`media:(a: ${"b ".repeat(300)}b)`)).toBeUndefined();
  });

  it("answers quickly for long input that nearly matches (no catastrophic backtracking)", () => {
    const started = Date.now();
    parseHydrate(`media:(a: ${"b ".repeat(240)}`);
    parseHydrate(`media:${"(a) and ".repeat(60)}`);
    parseHydrate(`visible:${"1px ".repeat(120)}`);
    expect(Date.now() - started).toBeLessThan(50);
  });
});
