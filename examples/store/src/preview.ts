import { MAX_IMAGE_BYTES, sniffImage, toDataUrl } from "./images.ts";
import { parsePrice } from "./price.ts";

/** The props `store:product_preview` takes. */
export interface PreviewProps {
  name: string;
  price: number;
  description: string;
  imageUrl: string;
}

/** The JSON the validation endpoints answer (the spec's shapes). */
export type PreviewResult =
  | { success: true; props: PreviewProps }
  | { success: false; errors: Record<string, string[]> };

export const REQUIRED = "This field is required.";

export interface PreviewOptions {
  /** URL of the stored product's image (`/admin/product/<id>/preview`). */
  storedImageUrl?: string;
  /** Used when neither an upload nor a stored image is there. */
  placeholderUrl: string;
}

/**
 * Validates the admin form for the live preview:
 * - `name` or `price` missing (or blank) → `{ success: false, errors: { <field>: [message] } }`;
 * - otherwise `{ success: true, props }`, where `price` reads a comma as a decimal point
 *   (`"19,99"` → 19.99) and is 0 when it cannot be read, and `imageUrl` is the uploaded image
 *   as a `data:` URL, else the stored product's image, else the placeholder. An upload that is
 *   not a PNG, JPEG, GIF or WebP image, or is over 5 MB, counts as no upload here (saving the
 *   form reports it).
 */
export async function previewProduct(
  form: FormData,
  options: PreviewOptions,
): Promise<PreviewResult> {
  const name = text(form.get("name"));
  const price = text(form.get("price"));
  const errors: Record<string, string[]> = {};
  if (name === undefined || name.trim() === "") errors.name = [REQUIRED];
  if (price === undefined || price.trim() === "") errors.price = [REQUIRED];
  if (name === undefined || price === undefined || Object.keys(errors).length > 0) {
    return { success: false, errors };
  }
  return {
    success: true,
    props: {
      name: name.trim(),
      price: parsePrice(price) ?? 0,
      description: text(form.get("description")) ?? "",
      imageUrl:
        (await uploadedImageUrl(form.get("image"))) ??
        options.storedImageUrl ??
        options.placeholderUrl,
    },
  };
}

/** A text field's value; a file sent under a text field's name counts as missing. */
function text(value: FormDataEntryValue | null): string | undefined {
  return typeof value === "string" ? value : undefined;
}

async function uploadedImageUrl(value: FormDataEntryValue | null): Promise<string | undefined> {
  if (!(value instanceof File) || value.size === 0 || value.size > MAX_IMAGE_BYTES) {
    return undefined;
  }
  const bytes = new Uint8Array(await value.arrayBuffer());
  const image = sniffImage(bytes);
  return image === undefined ? undefined : toDataUrl(bytes, image.type);
}
