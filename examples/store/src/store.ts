import { mkdirSync, readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import {
  type BridgeOptions,
  ComponentRegistry,
  createHandlers,
  createIslands,
  createStaticFiles,
  type Handlers,
  type StaticFiles,
} from "@svc/server";
import type { StoreConfig } from "./config.ts";
import { CSRF_FIELD, Csrf } from "./csrf.ts";
import { type Product, ProductDatabase } from "./database.ts";
import {
  FormTooLargeError,
  fileResponse,
  headerOf,
  htmlResponse,
  type IncomingRequest,
  jsonResponse,
  readForm,
  type StoreResponse,
  seeOther,
} from "./http.ts";
import { MEDIA_TYPES } from "./images.ts";
import { MediaStore } from "./media.ts";
import {
  adminPage,
  errorPage,
  homePage,
  notFoundPage,
  type PageContext,
  PLACEHOLDER_URL,
  type ProductCardProps,
  productFormPage,
  productPage,
  STATIC_SVC_URL,
} from "./pages.ts";
import { COMPONENTS_DIR, FIXTURES_DIR, PUBLIC_DIR } from "./paths.ts";
import { type PreviewProps, previewProduct } from "./preview.ts";
import { checkPrice, parsePrice } from "./price.ts";
import { checkProductForm, type ProductFormValues } from "./productForm.ts";

/** The SQLite file inside the data directory. */
export const DATABASE_FILE = "store.sqlite3";

/** The svc component prefix of the store's components (`store:product`, …). */
export const COMPONENT_PREFIX = "store";

/**
 * The store, framework-free. Each method answers one route; an app maps its framework's
 * routes onto them and writes the {@link StoreResponse} back. `req` is the framework's Node
 * request or web `Request`: only its headers (and, for posts, its body) are read.
 */
export interface Store {
  readonly config: StoreConfig;
  /** The store's components. */
  readonly registry: ComponentRegistry;
  /**
   * The handler set of the store's components, for the svc bridge: the pages render their
   * islands with it too, so pages and the API share one cache and one render worker.
   */
  readonly handlers: Handlers;
  /** The bridge options: none in development; `{ buildDir, staticMode: true }` in production. */
  readonly svcOptions: BridgeOptions;
  /** `GET /`: the product list. */
  home(req: IncomingRequest): Promise<StoreResponse>;
  /** `GET /product/:id`: one product; the 404 page for an unknown id. */
  product(req: IncomingRequest, id: string): Promise<StoreResponse>;
  /** `GET /media/products/:file`: a product image. */
  media(req: IncomingRequest, file: string): Promise<StoreResponse>;
  /** `GET /static/*`: the store's own files, and in production the svc build under `svc/`. */
  asset(req: IncomingRequest, path: string): Promise<StoreResponse>;
  /** `GET /admin/`: the product table. */
  admin(req: IncomingRequest): Promise<StoreResponse>;
  /** `GET /admin/product/new` (no id) and `GET /admin/product/:id/edit`. */
  productForm(req: IncomingRequest, id?: string): Promise<StoreResponse>;
  /** `POST /admin/product/new` (no id) and `POST /admin/product/:id/edit`. */
  saveProduct(req: IncomingRequest, id?: string): Promise<StoreResponse>;
  /** `POST /admin/product/preview` (no id) and `POST /admin/product/:id/preview`. */
  preview(req: IncomingRequest, id?: string): Promise<StoreResponse>;
  /** Any other path: the 404 page. */
  notFound(req: IncomingRequest): Promise<StoreResponse>;
  /** Closes the database. */
  close(): void;
}

const PUBLIC_FILES: Readonly<Record<string, string>> = {
  "preview.js": "text/javascript; charset=utf-8",
  "store.css": "text/css; charset=utf-8",
  "placeholder.svg": "image/svg+xml",
};

/** Seed images are SVG: served so that a script inside one could never run. */
const SVG_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";

/**
 * Opens the store: the database in `config.dataDir` (created and seeded with the six fixture
 * products on first start), the image directory, and the svc registry of the store's
 * components under the prefix `store`.
 */
export function openStore(config: StoreConfig): Store {
  mkdirSync(config.dataDir, { recursive: true });
  const media = new MediaStore(config.dataDir);
  const db = new ProductDatabase(join(config.dataDir, DATABASE_FILE), (fresh) =>
    seed(fresh, media),
  );
  const registry = new ComponentRegistry();
  registry.addSource(COMPONENTS_DIR, { prefix: COMPONENT_PREFIX });
  const staticFiles: StaticFiles | undefined =
    config.production && config.buildDir !== undefined
      ? createStaticFiles(config.buildDir)
      : undefined;
  const svcOptions: BridgeOptions = config.production
    ? // Islands name the build where the store serves it, so the page and the loader fetch
      // each file at one URL.
      { buildDir: config.buildDir, staticMode: true, staticUrl: STATIC_SVC_URL.slice(0, -1) }
    : {};
  const handlers = createHandlers(registry, svcOptions);
  const csrf = new Csrf(config.secret);
  const context: PageContext = {
    production: config.production,
    islands: createIslands(handlers),
    logger: handlers.logger,
  };

  const imageUrl = (product: Product) =>
    product.image === null ? PLACEHOLDER_URL : media.url(product.image);
  const cardProps = (product: Product): ProductCardProps => ({
    id: product.id,
    name: product.name,
    price: product.price,
    description: product.description,
    imageUrl: imageUrl(product),
    url: `/product/${product.id}`,
  });
  const find = (id: string | undefined) => {
    const number = parseId(id);
    return number === undefined ? undefined : db.get(number);
  };
  const page = (status: number, body: string, headers?: Record<string, string>) =>
    htmlResponse(status, body, headers);
  const notFound = (message = "Nothing lives at this address.") =>
    page(404, notFoundPage(context, message));
  const noProduct = () => notFound("There is no product with this id.");

  function formPage(
    status: number,
    req: IncomingRequest,
    product: Product | undefined,
    values: ProductFormValues,
    errors: Record<string, string[]> = {},
    formError?: string,
  ): StoreResponse {
    const { token, setCookie } = csrf.issue(headerOf(req, "cookie"));
    const previewProps: PreviewProps = {
      name: values.name,
      price: parsePrice(values.price) ?? 0,
      description: values.description,
      imageUrl: product === undefined ? PLACEHOLDER_URL : imageUrl(product),
    };
    const body = productFormPage(context, {
      product,
      values,
      errors,
      csrfToken: token,
      currentImageUrl: product?.image ? media.url(product.image) : undefined,
      previewProps,
      formError,
    });
    return page(status, body, setCookie === undefined ? {} : { "set-cookie": setCookie });
  }

  async function form(req: IncomingRequest): Promise<FormData | StoreResponse> {
    try {
      return await readForm(req);
    } catch (error) {
      if (error instanceof FormTooLargeError) {
        return page(413, errorPage(context, "Too large", "The form is too large to upload."));
      }
      return page(400, errorPage(context, "Bad request", "The form could not be read."));
    }
  }

  return {
    config,
    registry,
    handlers,
    svcOptions,

    async home() {
      return page(200, await homePage(context, db.list().map(cardProps)));
    },

    async product(_req, id) {
      const product = find(id);
      return product === undefined
        ? noProduct()
        : page(200, await productPage(context, cardProps(product)));
    },

    async media(req, file) {
      const bytes = await media.read(file);
      if (bytes === undefined) return notFound();
      const ext = file.slice(file.lastIndexOf(".") + 1);
      return fileResponse(req, bytes, {
        "content-type": MEDIA_TYPES[ext] ?? "application/octet-stream",
        "cache-control": "public, max-age=86400",
        ...(ext === "svg" ? { "content-security-policy": SVG_CSP } : {}),
      });
    },

    async asset(req, path) {
      if (path.startsWith("svc/")) {
        const file = await staticFiles?.get(path.slice("svc/".length));
        if (file === undefined) return notFound();
        const headers = { "content-type": file.contentType, "cache-control": file.cacheControl };
        return fileResponse(req, file.body, headers, file.etag);
      }
      const type = Object.hasOwn(PUBLIC_FILES, path) ? PUBLIC_FILES[path] : undefined;
      if (type === undefined) return notFound();
      const body = new Uint8Array(await readFile(join(PUBLIC_DIR, path)));
      const csp: Record<string, string> = path.endsWith(".svg")
        ? { "content-security-policy": SVG_CSP }
        : {};
      return fileResponse(req, body, { "content-type": type, "cache-control": "no-cache", ...csp });
    },

    async admin(req) {
      const saved = find(searchParam(req, "saved") ?? undefined);
      const flash = saved === undefined ? undefined : `Saved “${saved.name}”.`;
      return page(200, adminPage(context, db.list(), imageUrl, flash));
    },

    async productForm(req, id) {
      if (id === undefined) return formPage(200, req, undefined, EMPTY_VALUES);
      const product = find(id);
      if (product === undefined) return noProduct();
      return formPage(200, req, product, valuesOf(product));
    },

    async saveProduct(req, id) {
      const product = id === undefined ? undefined : find(id);
      if (id !== undefined && product === undefined) return noProduct();
      const data = await form(req);
      if (!(data instanceof FormData)) return data;
      const check = await checkProductForm(data);
      if (!csrf.verify(headerOf(req, "cookie"), data.get(CSRF_FIELD))) {
        return formPage(403, req, product, check.values, {}, CSRF_MESSAGE);
      }
      if (!check.ok) return formPage(422, req, product, check.values, check.errors);

      const { input } = check;
      // The image is written under a temporary name first; the rename that makes it visible
      // is the transaction's last step, so the row and the image are stored together or not
      // at all.
      const staged = input.image === undefined ? undefined : await media.stage(input.image);
      let savedId: number;
      let replaced: string | null = null;
      try {
        savedId = db.transaction(() => {
          const current = product === undefined ? undefined : db.get(product.id);
          if (product !== undefined && current === undefined) throw new ProductGoneError();
          const fields = {
            name: input.name,
            description: input.description,
            priceCents: input.priceCents,
            image: staged?.file ?? current?.image ?? null,
          };
          let saved: number;
          if (current === undefined) saved = db.insert(fields);
          else {
            db.update(current.id, fields);
            saved = current.id;
            if (staged !== undefined && current.image !== staged.file) replaced = current.image;
          }
          staged?.commit();
          return saved;
        });
      } catch (error) {
        staged?.discard();
        if (error instanceof ProductGoneError) return noProduct();
        throw error;
      }
      // The old image goes once nothing refers to it any more.
      if (replaced !== null && db.imageUses(replaced) === 0) media.remove(replaced);
      return seeOther(`/admin/?saved=${savedId}`);
    },

    async preview(req, id) {
      const product = id === undefined ? undefined : find(id);
      if (id !== undefined && product === undefined) {
        return jsonResponse(404, { success: false, errors: { product: [`No product ${id}.`] } });
      }
      let data: FormData;
      try {
        data = await readForm(req);
      } catch (error) {
        const tooLarge = error instanceof FormTooLargeError;
        const message = tooLarge ? "The form is too large." : "The form could not be read.";
        return jsonResponse(tooLarge ? 413 : 400, { success: false, errors: { form: [message] } });
      }
      const result = await previewProduct(data, {
        storedImageUrl: product?.image ? media.url(product.image) : undefined,
        placeholderUrl: PLACEHOLDER_URL,
      });
      return jsonResponse(200, result);
    },

    async notFound() {
      return notFound();
    },

    close() {
      db.close();
    },
  };
}

const CSRF_MESSAGE =
  "This form has expired or did not come from this site. Check the values and save again.";

const EMPTY_VALUES: ProductFormValues = { name: "", price: "", description: "" };

class ProductGoneError extends Error {}

function valuesOf(product: Product): ProductFormValues {
  return {
    name: product.name,
    price: product.price.toFixed(2),
    description: product.description,
  };
}

function parseId(id: string | undefined): number | undefined {
  return id !== undefined && /^[1-9][0-9]{0,14}$/.test(id) ? Number(id) : undefined;
}

function searchParam(req: IncomingRequest, name: string): string | null {
  return new URL(req.url ?? "/", "http://store.invalid").searchParams.get(name);
}

interface FixtureProduct {
  name: string;
  description: string;
  price: string;
  image: string;
}

/** First start: the six fixture products and their images. */
function seed(db: ProductDatabase, media: MediaStore): void {
  const fixtures = JSON.parse(
    readFileSync(join(FIXTURES_DIR, "products.json"), "utf8"),
  ) as FixtureProduct[];
  for (const fixture of fixtures) {
    const price = checkPrice(fixture.price);
    if (!price.ok) throw new Error(`fixtures/products.json: ${fixture.name}: ${price.message}`);
    media.importFile(join(FIXTURES_DIR, "images", fixture.image), fixture.image);
    db.insert({
      name: fixture.name,
      description: fixture.description,
      priceCents: price.cents,
      image: fixture.image,
    });
  }
}
