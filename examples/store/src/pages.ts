import { type Logger, renderWidget, type SvcIslands } from "@svc/server";
import type { Product } from "./database.ts";
import { html, type SafeHtml, trusted } from "./html.ts";
import type { PreviewProps } from "./preview.ts";
import { formatPrice } from "./price.ts";
import type { ProductFormValues } from "./productForm.ts";

/** Where every app mounts the svc bridge; the loader is served below it at `loader.js`. */
export const API_BASE = "/api";
/** Where production serves the `svc build` output. */
export const STATIC_SVC_URL = "/static/svc/";
export const PLACEHOLDER_URL = "/static/placeholder.svg";

/** `store:product` props of a product shown in a list or on its page. */
export interface ProductCardProps {
  id: number;
  name: string;
  price: number;
  description: string;
  imageUrl: string;
  url: string;
}

export interface PageContext {
  production: boolean;
  /** Server-rendered islands, from the handler set the bridge serves. */
  islands: SvcIslands;
  logger: Logger;
}

/**
 * The island of a page: `name` rendered on the server (view-source shows it), hydrated as
 * `hydrate` says. Should the render fail, the page still comes: the container is rendered
 * in the browser instead (which shows the component's error there, in development) and the
 * failure is logged.
 */
async function island(
  context: PageContext,
  name: string,
  props: Record<string, unknown>,
  hydrate: "load" | "visible",
): Promise<SafeHtml> {
  try {
    return trusted(await context.islands.island(name, props, { hydrate }));
  } catch (error) {
    context.logger.error(`island ${name} rendered in the browser: ${(error as Error).message}`);
    return trusted(renderWidget(name, props));
  }
}

interface LayoutOptions {
  title: string;
  /** Scripts after the loader, e.g. the live preview. */
  scripts?: string[];
}

function layout(context: PageContext, options: LayoutOptions, content: SafeHtml): string {
  // In production the loader reads the manifest and fetches bundles as static files.
  const manifest = context.production
    ? html` data-svc-manifest="${STATIC_SVC_URL}manifest.json"`
    : "";
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title} · svc store</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/store.css">
</head>
<body>
<header class="site-header">
  <a class="brand" href="/">svc store</a>
  <nav><a href="/">Products</a><a href="/admin/">Admin</a></nav>
  <span class="mode" data-testid="mode">${context.production ? "production: static bundles" : "development: live bundling"}</span>
</header>
<main>
${content}
</main>
<script src="${API_BASE}/loader.js"${manifest}></script>
${(options.scripts ?? []).map((src) => html`<script src="${src}"></script>`)}
</body>
</html>
`.toString();
}

/** The product list: an island whose cards hydrate once they scroll into view. */
export async function homePage(
  context: PageContext,
  products: ProductCardProps[],
): Promise<string> {
  const list = await island(
    context,
    "store:product_list",
    { title: "All products", products },
    "visible",
  );
  return layout(context, { title: "Products" }, list);
}

/** A product's page: its card, server-rendered, hydrated at once. */
export async function productPage(
  context: PageContext,
  product: ProductCardProps,
): Promise<string> {
  const { name, price, description, imageUrl } = product;
  const card = await island(
    context,
    "store:product",
    { name, price, description, imageUrl, mode: "detail" },
    "load",
  );
  return layout(
    context,
    { title: product.name },
    html`<a class="back" href="/">← All products</a>${card}`,
  );
}

export function notFoundPage(context: PageContext, message: string): string {
  return layout(
    context,
    { title: "Not found" },
    html`<section class="not-found" data-testid="not-found">
  <h1>Page not found</h1>
  <p>${message}</p>
  <p><a href="/">Back to all products</a></p>
</section>`,
  );
}

export function errorPage(context: PageContext, title: string, message: string): string {
  return layout(
    context,
    { title },
    html`<section class="not-found"><h1>${title}</h1><p>${message}</p></section>`,
  );
}

export function adminPage(
  context: PageContext,
  products: Product[],
  imageUrl: (product: Product) => string,
  flash?: string,
): string {
  const rows = products.map(
    (product) => html`<tr data-product-id="${product.id}">
  <td><img src="${imageUrl(product)}" alt=""></td>
  <td>${product.name}</td>
  <td class="price">${formatPrice(product.price)}</td>
  <td><time datetime="${product.createdAt}">${product.createdAt.slice(0, 10)}</time></td>
  <td><a href="/admin/product/${product.id}/edit">Edit</a> · <a href="/product/${product.id}">View</a></td>
</tr>`,
  );
  return layout(
    context,
    { title: "Admin" },
    html`${flash === undefined ? "" : html`<p class="flash" role="status">${flash}</p>`}
<div class="admin-header"><h1>Products</h1><a class="button" href="/admin/product/new">New product</a></div>
<table class="products">
  <thead><tr><th>Image</th><th>Name</th><th>Price</th><th>Created</th><th></th></tr></thead>
  <tbody>${rows}</tbody>
</table>`,
  );
}

export interface ProductFormPage {
  /** The product being edited; absent on the create page. */
  product?: Product;
  values: ProductFormValues;
  errors: Record<string, string[]>;
  csrfToken: string;
  /** Image shown beside the file input. */
  currentImageUrl?: string;
  previewProps: PreviewProps;
  /** A problem with the whole form (e.g. an expired CSRF token). */
  formError?: string;
}

export function productFormPage(context: PageContext, page: ProductFormPage): string {
  const base = page.product === undefined ? "/admin/product" : `/admin/product/${page.product.id}`;
  const action = page.product === undefined ? "/admin/product/new" : `${base}/edit`;
  const title = page.product === undefined ? "New product" : `Edit ${page.product.name}`;
  const fieldErrors = (field: string) =>
    (page.errors[field] ?? []).map(
      (message) => html`<p class="field-error" data-error-for="${field}">${message}</p>`,
    );
  const hasErrors = Object.keys(page.errors).length > 0 || page.formError !== undefined;
  const preview = renderWidget("store:product_preview", { ...page.previewProps });
  return layout(
    context,
    { title, scripts: ["/static/preview.js"] },
    html`<a class="back" href="/admin/">← All products</a>
<h1>${title}</h1>
<div class="editor">
  <form class="product-form" method="post" action="${action}" enctype="multipart/form-data" data-live-preview="#live-preview">
    ${hasErrors ? html`<ul class="form-errors" role="alert" data-testid="form-errors"><li>${page.formError ?? "Please correct the errors below."}</li></ul>` : ""}
    <input type="hidden" name="csrf_token" value="${page.csrfToken}">
    <label>Name
      <input type="text" id="name" name="name" value="${page.values.name}" maxlength="200" required>
      ${fieldErrors("name")}
    </label>
    <label>Price (USD)
      <input type="text" id="price" name="price" value="${page.values.price}" inputmode="decimal" placeholder="19.99" required>
      ${fieldErrors("price")}
    </label>
    <label>Description
      <textarea id="description" name="description" maxlength="5000">${page.values.description}</textarea>
      ${fieldErrors("description")}
    </label>
    <label>Image (PNG, JPEG, GIF or WebP, at most 5 MB)
      ${page.currentImageUrl === undefined ? "" : html`<img class="current-image" src="${page.currentImageUrl}" alt="Current image">`}
      <input type="file" id="image" name="image" accept="image/png,image/jpeg,image/gif,image/webp">
      ${fieldErrors("image")}
    </label>
    <p><button class="button" type="submit">Save</button></p>
  </form>
  <section class="preview" id="live-preview" data-preview-url="${base}/preview" aria-live="polite">
    <h2>Live preview</h2>
    <ul class="preview-errors" role="alert" data-preview-errors data-testid="preview-errors" hidden></ul>
    ${trusted(preview)}
  </section>
</div>`,
  );
}
