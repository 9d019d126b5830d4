import { mkdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  CSRF_FIELD,
  MAX_FORM_BYTES,
  MAX_IMAGE_BYTES,
  openStore,
  resolveStoreConfig,
  type Store,
  type StoreResponse,
} from "@svc-examples/store";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import {
  FIXTURE_NAMES,
  form,
  listFiles,
  PNG,
  readProduct,
  readProducts,
  removeDir,
  tempDir,
} from "./harness.ts";

const BASE = "http://store.test";
const get = (path: string, headers: Record<string, string> = {}) =>
  new Request(`${BASE}${path}`, { headers });
const post = (path: string, body: FormData, cookie?: string) =>
  new Request(`${BASE}${path}`, { method: "POST", body, headers: cookie ? { cookie } : {} });
const text = (response: StoreResponse) =>
  typeof response.body === "string"
    ? response.body
    : new TextDecoder().decode(response.body ?? new Uint8Array());

/** The CSRF cookie and token a browser gets from the form page. */
async function session(store: Store, path = "/admin/product/new") {
  const page = await store.productForm(get(path));
  const cookie = (page.headers["set-cookie"] ?? "").split(";")[0] ?? "";
  const token = /name="csrf_token" value="([^"]+)"/.exec(text(page))?.[1] ?? "";
  expect(cookie).toMatch(/^store_csrf=/);
  expect(token).not.toBe("");
  return { cookie, token };
}

describe("the store core", () => {
  let dataDir: string;
  let store: Store;
  let mediaDir: string;

  beforeEach(async () => {
    dataDir = await tempDir("svc-store-core-");
    mediaDir = join(dataDir, "media", "products");
    store = openStore(resolveStoreConfig({ dataDir, env: {} }));
  });

  afterEach(async () => {
    store.close();
    await removeDir(dataDir);
  });

  it("seeds the six fixture products and their images on first start, once", async () => {
    expect(readProducts(dataDir).map((row) => row.name)).toEqual(FIXTURE_NAMES);
    expect(readProduct(dataDir, 5)).toMatchObject({ price_cents: 2999, image: "fern.svg" });
    expect(await listFiles(mediaDir)).toHaveLength(6);
    store.close();
    store = openStore(resolveStoreConfig({ dataDir, env: {} }));
    expect(readProducts(dataDir)).toHaveLength(6);
  });

  it("answers unknown and malformed product ids with the 404 page", async () => {
    for (const id of ["99999", "0", "abc", "1.5", "-1", "01"]) {
      const response = await store.product(get(`/product/${id}`), id);
      expect(response.status, id).toBe(404);
      expect(text(response)).toContain("Page not found");
    }
    expect((await store.product(get("/product/1"), "1")).status).toBe(200);
  });

  it("serves product images for a day, with an ETag, and nothing but media file names", async () => {
    const response = await store.media(get("/media/products/mug.svg"), "mug.svg");
    expect(response.status).toBe(200);
    expect(response.headers["cache-control"]).toBe("public, max-age=86400");
    expect(response.headers["content-type"]).toBe("image/svg+xml");
    expect(response.headers["content-security-policy"]).toContain("sandbox");
    const etag = response.headers.etag as string;
    const again = await store.media(
      get("/media/products/mug.svg", { "if-none-match": etag }),
      "mug.svg",
    );
    expect(again).toMatchObject({ status: 304, body: null });
    for (const file of ["../store.sqlite3", "MUG.svg", "mug.svg/", ".upload-x", "mug.txt"]) {
      expect((await store.media(get("/media/x"), file)).status, file).toBe(404);
    }
  });

  it("serves its own static files, and build files only in production", async () => {
    expect((await store.asset(get("/static/preview.js"), "preview.js")).status).toBe(200);
    expect((await store.asset(get("/static/globals.d.ts"), "globals.d.ts")).status).toBe(404);
    expect((await store.asset(get("/static/x"), "svc/manifest.json")).status).toBe(404);
    expect(store.svcOptions).toEqual({});
  });

  it("escapes product text on every page it appears on", async () => {
    const { cookie, token } = await session(store);
    const hostile = `<img src=x onerror="alert(1)">'&`;
    const saved = await store.saveProduct(
      post(
        "/admin/product/new",
        form({ name: hostile, price: "1", description: hostile, [CSRF_FIELD]: token }),
        cookie,
      ),
    );
    expect(saved.status).toBe(303);
    for (const page of [
      await store.home(get("/")),
      await store.product(get("/product/7"), "7"),
      await store.admin(get("/admin/?saved=7")),
      await store.productForm(get("/admin/product/7/edit"), "7"),
    ]) {
      expect(text(page)).not.toContain("<img src=x");
      expect(text(page)).not.toContain(`onerror="`);
    }
    expect(text(await store.admin(get("/admin/")))).toContain(
      "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&#39;&amp;",
    );
  });

  describe("saving", () => {
    const valid = { name: "Desk Plant", price: "7,25", description: "Small." };

    async function unchanged(change: () => Promise<StoreResponse>): Promise<StoreResponse> {
      const rows = readProducts(dataDir);
      const files = await listFiles(mediaDir);
      const response = await change();
      expect(readProducts(dataDir)).toEqual(rows);
      expect(await listFiles(mediaDir)).toEqual(files);
      return response;
    }

    it("stores a new product and its image together, then redirects to the admin list", async () => {
      const { cookie, token } = await session(store);
      const image = new File([PNG], "plant.png", { type: "image/png" });
      const response = await store.saveProduct(
        post("/admin/product/new", form({ ...valid, image, [CSRF_FIELD]: token }), cookie),
      );
      expect(response).toMatchObject({ status: 303, headers: { location: "/admin/?saved=7" } });
      const row = readProduct(dataDir, 7);
      expect(row).toMatchObject({ name: "Desk Plant", price_cents: 725, description: "Small." });
      expect(row?.image).toMatch(/^[0-9a-f]{24}\.png$/);
      expect(await readFile(join(mediaDir, row?.image as string))).toEqual(PNG);
      expect((await listFiles(mediaDir)).filter((f) => f.startsWith("."))).toEqual([]);
      expect(text(await store.admin(get("/admin/?saved=7")))).toContain("Saved “Desk Plant”.");
    });

    it("updates a product, keeping its image when none is uploaded", async () => {
      const { cookie, token } = await session(store, "/admin/product/2/edit");
      const response = await store.saveProduct(
        post("/admin/product/2/edit", form({ ...valid, [CSRF_FIELD]: token }), cookie),
        "2",
      );
      expect(response.status).toBe(303);
      expect(readProduct(dataDir, 2)).toMatchObject({ name: "Desk Plant", image: "lamp.svg" });
    });

    it("replaces an image and deletes the old file once nothing uses it", async () => {
      const { cookie, token } = await session(store, "/admin/product/1/edit");
      const image = new File([PNG], "mug.png");
      await store.saveProduct(
        post("/admin/product/1/edit", form({ ...valid, image, [CSRF_FIELD]: token }), cookie),
        "1",
      );
      expect(readProduct(dataDir, 1)?.image).toMatch(/\.png$/);
      expect(await listFiles(mediaDir)).not.toContain("mug.svg");
    });

    it.each([
      ["a missing name", { name: "" }, "This field is required."],
      ["an unparsable price", { price: "twelve" }, "Enter a price such as 19.99 or 19,99."],
      [
        "an upload that is not an image",
        { image: new File(["GIF? no."], "x.gif", { type: "image/gif" }) },
        "Upload a PNG, JPEG, GIF or WebP image.",
      ],
      [
        "an image over 5 MB",
        { image: new File([PNG, new Uint8Array(MAX_IMAGE_BYTES)], "big.png") },
        "The image is larger than 5 MB.",
      ],
    ])(
      "writes nothing for %s and shows the form again with the error",
      async (_, change, message) => {
        const { cookie, token } = await session(store, "/admin/product/3/edit");
        const fields = { ...valid, ...change, [CSRF_FIELD]: token };
        const response = await unchanged(() =>
          store.saveProduct(post("/admin/product/3/edit", form(fields), cookie), "3"),
        );
        expect(response.status).toBe(422);
        expect(text(response)).toContain(message);
        expect(text(response)).toContain('data-testid="form-errors"');
      },
    );

    it("refuses a post without the CSRF cookie, or with a token that does not match it", async () => {
      const { cookie, token } = await session(store, "/admin/product/3/edit");
      const other = await session(store, "/admin/product/3/edit");
      for (const [fields, withCookie] of [
        [{ ...valid, [CSRF_FIELD]: token }, undefined],
        [{ ...valid }, cookie],
        [{ ...valid, [CSRF_FIELD]: other.token }, cookie],
        // One character off (a token may end in "A" already: then "B").
        [
          { ...valid, [CSRF_FIELD]: `${token.slice(0, -1)}${token.endsWith("A") ? "B" : "A"}` },
          cookie,
        ],
      ] as const) {
        const response = await unchanged(() =>
          store.saveProduct(post("/admin/product/3/edit", form(fields), withCookie), "3"),
        );
        expect(response.status).toBe(403);
        expect(text(response)).toContain("This form has expired");
      }
      // The same form with the right pair goes through.
      const ok = await store.saveProduct(
        post("/admin/product/3/edit", form({ ...valid, [CSRF_FIELD]: token }), cookie),
        "3",
      );
      expect(ok.status).toBe(303);
    });

    it("leaves no row change and no file behind when storing the image fails mid-transaction", async () => {
      const { cookie, token } = await session(store, "/admin/product/4/edit");
      // A directory where the image should go: the rename inside the transaction fails.
      const { createHash } = await import("node:crypto");
      const target = `${createHash("sha256").update(PNG).digest("hex").slice(0, 24)}.png`;
      await mkdir(join(mediaDir, target, "occupied"), { recursive: true });
      const image = new File([PNG], "x.png");
      await expect(
        unchanged(() =>
          store.saveProduct(
            post("/admin/product/4/edit", form({ ...valid, image, [CSRF_FIELD]: token }), cookie),
            "4",
          ),
        ),
      ).rejects.toThrow();
      expect(readProduct(dataDir, 4)).toMatchObject({
        name: "Canvas Backpack",
        image: "backpack.svg",
      });
      expect((await listFiles(mediaDir)).filter((f) => f.startsWith(".upload-"))).toEqual([]);
    });

    it("answers 404 for an unknown product and 413 for a body over the limit", async () => {
      const { cookie, token } = await session(store);
      const fields = form({ ...valid, [CSRF_FIELD]: token });
      expect((await store.saveProduct(post("/x", fields, cookie), "99999")).status).toBe(404);
      const huge = new Response(
        form({
          ...valid,
          [CSRF_FIELD]: token,
          image: new File([new Uint8Array(MAX_FORM_BYTES)], "x.png"),
        }),
      );
      // As bytes with no Content-Length: the limit is enforced while the body streams in.
      const request = new Request(`${BASE}/admin/product/new`, {
        method: "POST",
        body: await huge.arrayBuffer(),
        headers: { cookie, "content-type": huge.headers.get("content-type") ?? "" },
      });
      expect(request.headers.get("content-length")).toBeNull();
      const response = await unchanged(() => store.saveProduct(request));
      expect(response.status).toBe(413);
    });
  });
});
