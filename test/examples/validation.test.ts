import {
  checkPrice,
  checkProductForm,
  MAX_IMAGE_BYTES,
  parsePrice,
  previewProduct,
  REQUIRED,
  sniffImage,
} from "@svc-examples/store";
import { describe, expect, it } from "vitest";
import { form, PNG } from "./harness.ts";

const PLACEHOLDER = "/static/placeholder.svg";
const preview = (fields: Record<string, string | Blob>, storedImageUrl?: string) =>
  previewProduct(form(fields), { storedImageUrl, placeholderUrl: PLACEHOLDER });

describe("previewProduct (the validation endpoints' rules)", () => {
  it("answers success with exactly name, price, description and imageUrl", async () => {
    const result = await preview({ name: "Mug", price: "19.99", description: "Blue." });
    expect(result).toStrictEqual({
      success: true,
      props: { name: "Mug", price: 19.99, description: "Blue.", imageUrl: PLACEHOLDER },
    });
  });

  it("reports a missing name", async () => {
    expect(await preview({ price: "3" })).toStrictEqual({
      success: false,
      errors: { name: [REQUIRED] },
    });
  });

  it("reports a missing price", async () => {
    expect(await preview({ name: "Mug" })).toStrictEqual({
      success: false,
      errors: { price: [REQUIRED] },
    });
  });

  it("reports both when both are missing, each as a list of message strings", async () => {
    expect(await preview({ description: "x" })).toStrictEqual({
      success: false,
      errors: { name: [REQUIRED], price: [REQUIRED] },
    });
  });

  it("counts blank fields as missing", async () => {
    const result = await preview({ name: "   ", price: "" });
    expect(result).toStrictEqual({
      success: false,
      errors: { name: [REQUIRED], price: [REQUIRED] },
    });
  });

  it("counts a file sent under a text field's name as missing", async () => {
    const result = await preview({ name: new File(["x"], "name.txt"), price: "1" });
    expect(result).toStrictEqual({ success: false, errors: { name: [REQUIRED] } });
  });

  it.each([
    ["19,99", 19.99],
    ["12,5", 12.5],
    ["0,05", 0.05],
    [" 7 ", 7],
    ["3.", 3],
    [",5", 0.5],
  ])("reads a comma as a decimal point: %j → %d", async (price, expected) => {
    const result = await preview({ name: "Mug", price });
    expect(result.success && result.props.price).toBe(expected);
  });

  it.each(["abc", "12,34,56", "1,234.50", "1e3", "Infinity", "NaN", "0x10", "$5", "9".repeat(400)])(
    "makes an unparsable price 0: %j",
    async (price) => {
      const result = await preview({ name: "Mug", price });
      expect(result).toMatchObject({ success: true, props: { price: 0 } });
    },
  );

  it("defaults a missing description to the empty string", async () => {
    const result = await preview({ name: "Mug", price: "1" });
    expect(result.success && result.props.description).toBe("");
  });

  it("trims the name", async () => {
    const result = await preview({ name: "  Mug  ", price: "1" });
    expect(result.success && result.props.name).toBe("Mug");
  });

  it("builds imageUrl from the submitted image, as a data: URL, before a stored image", async () => {
    const image = new File([PNG], "photo.png", { type: "image/png" });
    const result = await preview({ name: "Mug", price: "1", image }, "/media/products/mug.svg");
    expect(result.success && result.props.imageUrl).toBe(
      `data:image/png;base64,${PNG.toString("base64")}`,
    );
  });

  it("takes the image type from the bytes, not from the name or the claimed type", async () => {
    const image = new File([PNG], "photo.gif", { type: "image/gif" });
    const result = await preview({ name: "Mug", price: "1", image });
    expect(result.success && result.props.imageUrl).toMatch(/^data:image\/png;base64,/);
  });

  it("falls back to the stored product's image without an upload", async () => {
    const result = await preview({ name: "Mug", price: "1" }, "/media/products/mug.svg");
    expect(result.success && result.props.imageUrl).toBe("/media/products/mug.svg");
  });

  it("falls back to the stored image when the file input was left empty", async () => {
    const empty = new File([], "", { type: "application/octet-stream" });
    const result = await preview({ name: "Mug", price: "1", image: empty }, "/media/m.svg");
    expect(result.success && result.props.imageUrl).toBe("/media/m.svg");
  });

  it("falls back to the placeholder without an upload or a stored image", async () => {
    const result = await preview({ name: "Mug", price: "1" });
    expect(result.success && result.props.imageUrl).toBe(PLACEHOLDER);
  });

  it("ignores an upload that is not an image, or is over 5 MB (saving reports those)", async () => {
    const text = new File(["<svg onload=alert(1)>"], "x.png", { type: "image/png" });
    const huge = new File([PNG, new Uint8Array(MAX_IMAGE_BYTES)], "big.png", { type: "image/png" });
    for (const image of [text, huge]) {
      const result = await preview({ name: "Mug", price: "1", image }, "/media/m.svg");
      expect(result.success && result.props.imageUrl).toBe("/media/m.svg");
    }
  });
});

describe("parsePrice and checkPrice", () => {
  it("parses decimals with a point or a comma and nothing else", () => {
    expect(parsePrice("19,99")).toBe(19.99);
    expect(parsePrice("-2")).toBe(-2);
    expect(parsePrice("1,234.50")).toBeUndefined();
    expect(parsePrice("")).toBeUndefined();
  });

  it("accepts whole cents up to $1,000,000 and rejects the rest with a reason", () => {
    expect(checkPrice("12,5")).toEqual({ ok: true, cents: 1250 });
    expect(checkPrice("0.29")).toEqual({ ok: true, cents: 29 });
    expect(checkPrice("1000000")).toEqual({ ok: true, cents: 100_000_000 });
    expect(checkPrice("abc")).toMatchObject({ ok: false, message: expect.stringMatching(/19,99/) });
    expect(checkPrice("-1")).toMatchObject({
      ok: false,
      message: expect.stringMatching(/negative/),
    });
    expect(checkPrice("1.999")).toMatchObject({ ok: false, message: expect.stringMatching(/two/) });
    expect(checkPrice("1000000.01")).toMatchObject({ ok: false });
  });
});

describe("sniffImage", () => {
  it("recognises PNG, JPEG, GIF and WebP by their first bytes, and nothing else", () => {
    const bytes = (...values: (number | string)[]) =>
      new Uint8Array(
        values.flatMap((v) => (typeof v === "string" ? [...Buffer.from(v, "latin1")] : [v])),
      );
    expect(sniffImage(PNG)?.type).toBe("image/png");
    expect(sniffImage(bytes(0xff, 0xd8, 0xff, 0xe0))?.type).toBe("image/jpeg");
    expect(sniffImage(bytes("GIF89a", 1, 0))?.type).toBe("image/gif");
    expect(sniffImage(bytes("RIFF", 0, 0, 0, 0, "WEBPVP8 "))?.type).toBe("image/webp");
    expect(sniffImage(bytes("<svg xmlns='http://www.w3.org/2000/svg'/>"))).toBeUndefined();
    expect(sniffImage(bytes("GIF8"))).toBeUndefined();
    expect(sniffImage(new Uint8Array())).toBeUndefined();
  });
});

describe("checkProductForm (saving)", () => {
  const valid = { name: "Mug", price: "12,5", description: "Blue." };

  it("accepts a valid form, with or without an image", async () => {
    expect(await checkProductForm(form(valid))).toMatchObject({
      ok: true,
      input: { name: "Mug", priceCents: 1250, description: "Blue." },
    });
    const image = new File([PNG], "p.png");
    const check = await checkProductForm(form({ ...valid, image }));
    expect(check.ok && check.input.image?.ext).toBe("png");
  });

  it.each([
    [{ name: "" }, "name", REQUIRED],
    [{ name: "x".repeat(201) }, "name", "Use at most 200 characters."],
    [{ price: "" }, "price", REQUIRED],
    [{ price: "twelve" }, "price", "Enter a price such as 19.99 or 19,99."],
    [{ description: "x".repeat(5001) }, "description", "Use at most 5000 characters."],
    [
      { image: new File(["not an image"], "fake.png", { type: "image/png" }) },
      "image",
      "Upload a PNG, JPEG, GIF or WebP image.",
    ],
    [
      { image: new File([PNG, new Uint8Array(MAX_IMAGE_BYTES)], "big.png") },
      "image",
      "The image is larger than 5 MB.",
    ],
  ])("rejects %o: %s", async (change, field, message) => {
    const check = await checkProductForm(form({ ...valid, ...change }));
    expect(check).toMatchObject({ ok: false, errors: { [field]: [message] } });
  });

  it("keeps what was typed, to show it again beside the errors", async () => {
    const check = await checkProductForm(form({ name: "<b>Mug</b>", price: "abc" }));
    expect(check.values).toEqual({ name: "<b>Mug</b>", price: "abc", description: "" });
  });
});
