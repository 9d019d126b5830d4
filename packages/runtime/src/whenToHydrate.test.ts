import { afterEach, describe, expect, it, vi } from "vitest";
import { readIsland, reportMismatch } from "./whenToHydrate.ts";

/** A container with these attributes (all `readIsland` reads of an element). */
const container = (attributes: Record<string, string>) =>
  ({ getAttribute: (name: string) => attributes[name] ?? null }) as unknown as Element;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("readIsland", () => {
  it("names the island's component first, then each component it loaded on the server, once", () => {
    const island = readIsland(
      container({
        "data-svc-component": "carousel",
        "data-svc-hash": "aaaaaaaaaaaa",
        "data-svc-props": '{"slides":3}',
        "data-svc-deps":
          '{"image":"bbbbbbbbbbbb","carousel":"cccccccccccc","caption":"dddddddddddd"}',
      }),
    );
    expect(island.names).toEqual(["carousel", "image", "caption"]);
    expect(island.hashes).toEqual({
      carousel: "aaaaaaaaaaaa",
      image: "bbbbbbbbbbbb",
      caption: "dddddddddddd",
    });
    expect(island.props).toEqual({ slides: 3 });
  });

  it("refuses props that are not a JSON object", () => {
    expect(() =>
      readIsland(container({ "data-svc-component": "card", "data-svc-props": "[1]" })),
    ).toThrow("data-svc-props must be a JSON object");
  });
});

describe("reportMismatch", () => {
  it("reports a mismatch React recovered from with the island's name, in one console line", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    reportMismatch("card")(new Error("Text content does not match"));
    expect(error).toHaveBeenCalledWith(
      'svc: the island "card" did not hydrate as the server rendered it: Text content does not match',
    );
  });
});
