import { createHash, randomUUID } from "node:crypto";
import { copyFileSync, existsSync, mkdirSync, renameSync, rmSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ImageUpload } from "./productForm.ts";

/** URL path under which product images are served. */
export const MEDIA_URL = "/media/products/";

/** The only file names the media directory serves: lowercase, one extension, no paths. */
const FILE_NAME = /^[a-z0-9][a-z0-9-]{0,63}\.(png|jpg|gif|webp|svg)$/;

/** A new image written under a temporary name, waiting for its transaction. */
export interface StagedImage {
  /** The final file name (content-addressed: `<sha-256 prefix>.<ext>`). */
  file: string;
  /** Moves the file into place; call inside the transaction, as its last step. */
  commit(): void;
  /** Removes whatever this upload left behind (after a failed transaction, or on error). */
  discard(): void;
}

/** Product images on disk: `<dataDir>/media/products/<file>`. */
export class MediaStore {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = join(dataDir, "media", "products");
    mkdirSync(this.dir, { recursive: true });
  }

  url(file: string): string {
    return `${MEDIA_URL}${file}`;
  }

  /** Bytes of `file`, or undefined when the name is not a media file name or it is missing. */
  async read(file: string): Promise<Uint8Array | undefined> {
    if (!FILE_NAME.test(file)) return undefined;
    try {
      return new Uint8Array(await readFile(join(this.dir, file)));
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === "ENOENT") return undefined;
      throw error;
    }
  }

  /**
   * Writes an upload under a temporary name. Nothing is visible until `commit()`, which only
   * renames (atomic on one file system); `discard()` undoes whatever happened.
   */
  async stage(image: ImageUpload): Promise<StagedImage> {
    const hash = createHash("sha256").update(image.bytes).digest("hex").slice(0, 24);
    const file = `${hash}.${image.ext}`;
    const target = join(this.dir, file);
    const temporary = join(this.dir, `.upload-${randomUUID()}`);
    await writeFile(temporary, image.bytes);
    // Same bytes, same name: an identical image already stored stays where it is.
    const existed = existsSync(target);
    let moved = false;
    return {
      file,
      commit() {
        renameSync(temporary, target);
        moved = true;
      },
      discard() {
        rmSync(temporary, { force: true });
        if (moved && !existed) rmSync(target, { force: true });
      },
    };
  }

  /** Copies a seed image in place (first start). */
  importFile(source: string, file: string): void {
    copyFileSync(source, join(this.dir, file));
  }

  remove(file: string): void {
    if (FILE_NAME.test(file)) rmSync(join(this.dir, file), { force: true });
  }
}
