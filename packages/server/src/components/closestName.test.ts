import { describe, expect, it } from "vitest";
import { closestName, componentNotFound, editDistance } from "./closestName.ts";

const NAMES = ["carousel", "counter", "hello", "image", "product-card", "ui:button", "ui.card"];

describe("closestName", () => {
  it("prefers a name that differs only in case", () => {
    expect(closestName("Hello", NAMES)).toBe("hello");
    expect(closestName("PRODUCT-CARD", NAMES)).toBe("product-card");
    // Before a name one edit away that comes first.
    expect(closestName("Cat", ["cab", "cat"])).toBe("cat");
  });

  it("suggests the name at the smallest edit distance, swaps of neighbours counting one", () => {
    expect(closestName("counetr", NAMES)).toBe("counter");
    expect(closestName("product_card", NAMES)).toBe("product-card");
    expect(closestName("productcard", NAMES)).toBe("product-card");
    expect(closestName("ui.buton", NAMES)).toBe("ui:button");
    expect(closestName("imgae", NAMES)).toBe("image");
    expect(closestName("cards", ["card", "cart", "cardss"])).toBe("card");
  });

  it("allows more edits in a long name: a third of its length", () => {
    const long = "navigation-menu-item";
    expect(closestName("navigaton-menu-itme-x", [long])).toBe(long); // 4 edits, 21 characters
    expect(closestName("nav-menu-item", [long])).toBeUndefined(); // 7 edits
  });

  it("suggests nothing far off, and never a list", () => {
    expect(closestName("missing", NAMES)).toBeUndefined();
    expect(closestName("x", NAMES)).toBeUndefined();
    expect(closestName("ab", ["cd", "abcd"])).toBeUndefined();
    expect(closestName("ab", ["ac"])).toBe("ac");
    expect(closestName("hello", NAMES)).toBeUndefined(); // the name itself is no suggestion
    expect(closestName("anything", [])).toBeUndefined();
  });

  it("breaks ties by the order of the names", () => {
    expect(closestName("cax", ["cab", "cat"])).toBe("cab");
    expect(closestName("cax", ["cat", "cab"])).toBe("cat");
  });
});

describe("editDistance", () => {
  it.each([
    ["", "", 0],
    ["a", "", 1],
    ["kitten", "sitting", 3],
    ["ab", "ba", 1],
    ["abc", "ca", 3], // optimal string alignment: no edit of a swapped pair
    ["product-card", "product_card", 1],
  ])("%s → %s: %i", (a, b, distance) => {
    expect(editDistance(a, b)).toBe(distance);
    expect(editDistance(b, a)).toBe(distance);
  });

  it("stops at max + 1", () => {
    expect(editDistance("aaaaaaaa", "bbbbbbbb", 2)).toBe(3);
    expect(editDistance("a", "abcdef", 2)).toBe(3);
    expect(editDistance("kitten", "sitting", 3)).toBe(3);
  });
});

describe("componentNotFound", () => {
  it("suggests the closest registered name in the message", () => {
    const error = componentNotFound("Hello", NAMES);
    expect(error.kind).toBe("ComponentNotFound");
    expect(error.component).toBe("Hello");
    expect(error.message).toBe('No component named "Hello" is registered — did you mean "hello"?');
  });

  it("keeps the plain message when nothing is close", () => {
    expect(componentNotFound("missing", NAMES).message).toBe(
      'No component named "missing" is registered.',
    );
  });
});
