import { type ImageType, MAX_IMAGE_BYTES, sniffImage } from "./images.ts";
import { REQUIRED } from "./preview.ts";
import { checkPrice } from "./price.ts";

export const MAX_NAME_LENGTH = 200;
export const MAX_DESCRIPTION_LENGTH = 5000;

/** The form's text fields as typed, to show them again next to the errors. */
export interface ProductFormValues {
  name: string;
  price: string;
  description: string;
}

/** A checked upload, ready to store. */
export interface ImageUpload extends ImageType {
  bytes: Uint8Array;
}

/** What a valid form saves. */
export interface ProductInput {
  name: string;
  description: string;
  priceCents: number;
  /** A new image; absent keeps the stored one. */
  image?: ImageUpload;
}

export type ProductFormCheck =
  | { ok: true; input: ProductInput; values: ProductFormValues }
  | { ok: false; errors: Record<string, string[]>; values: ProductFormValues };

/**
 * The rules for saving a product: a name (1–200 characters), a price (see `checkPrice`), a
 * description of at most 5000 characters, and an optional image that must be a PNG, JPEG, GIF
 * or WebP file (by its bytes) of at most 5 MB.
 */
export async function checkProductForm(form: FormData): Promise<ProductFormCheck> {
  const values: ProductFormValues = {
    name: text(form.get("name")),
    price: text(form.get("price")),
    description: text(form.get("description")),
  };
  const errors: Record<string, string[]> = {};
  const add = (field: string, message: string) => {
    errors[field] = [...(errors[field] ?? []), message];
  };

  const name = values.name.trim();
  if (name === "") add("name", REQUIRED);
  else if (name.length > MAX_NAME_LENGTH) {
    add("name", `Use at most ${MAX_NAME_LENGTH} characters.`);
  }

  let priceCents = 0;
  if (values.price.trim() === "") add("price", REQUIRED);
  else {
    const price = checkPrice(values.price);
    if (price.ok) priceCents = price.cents;
    else add("price", price.message);
  }

  if (values.description.length > MAX_DESCRIPTION_LENGTH) {
    add("description", `Use at most ${MAX_DESCRIPTION_LENGTH} characters.`);
  }

  let image: ImageUpload | undefined;
  const file = form.get("image");
  if (file instanceof File && (file.size > 0 || file.name !== "")) {
    if (file.size > MAX_IMAGE_BYTES) add("image", "The image is larger than 5 MB.");
    else {
      const bytes = new Uint8Array(await file.arrayBuffer());
      const type = sniffImage(bytes);
      if (type === undefined) add("image", "Upload a PNG, JPEG, GIF or WebP image.");
      else image = { ...type, bytes };
    }
  }

  if (Object.keys(errors).length > 0) return { ok: false, errors, values };
  return {
    ok: true,
    values,
    input: { name, description: values.description, priceCents, ...(image ? { image } : {}) },
  };
}

function text(value: FormDataEntryValue | null): string {
  return typeof value === "string" ? value : "";
}
