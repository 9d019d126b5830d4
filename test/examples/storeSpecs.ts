/**
 * The store example's end-to-end specs: one table, run unchanged against every framework's
 * app, in development (live bundling; `development.test.ts`) and in production (after a real
 * `svc build`: bundles as static files, bundle API off; `production.test.ts`). Real Chromium
 * drives the pages; the database file is read directly to see what a save really wrote.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import type { Manifest } from "@svc/server";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLoaderOnce, launchBrowser } from "../browser/helpers.ts";
import {
  buildStore,
  type ExampleApp,
  FIXTURE_NAMES,
  FRAMEWORKS,
  form,
  listFiles,
  type Mode,
  PNG,
  readProduct,
  removeDir,
  startExample,
  tempDir,
} from "./harness.ts";

// SVC_EXAMPLES=express,hono:production narrows the table while working on one app.
const only = process.env.SVC_EXAMPLES?.split(",").filter(Boolean);
const selected = (framework: string, mode: Mode) =>
  only === undefined || only.some((o) => o === framework || o === `${framework}:${mode}`);

let browser: Browser;
let work: string | undefined;
let buildDir: string | undefined;
let manifest: Manifest;

interface Recorded {
  page: Page;
  /** Same-origin request paths since the page was handed out. */
  paths(): string[];
  /** Page errors and CSP violation reports since the page was handed out. */
  problems: string[];
}

/** Records what `page` does from now on, for one test. */
function record(page: Page, origin: string): Recorded {
  const requests: URL[] = [];
  const problems: string[] = [];
  page.removeAllListeners("request");
  page.removeAllListeners("pageerror");
  page.removeAllListeners("console");
  page.on("request", (request) => requests.push(new URL(request.url())));
  page.on("pageerror", (error) => problems.push(`pageerror: ${error.message}`));
  page.on("console", (message) => {
    // CSP violations, and any hydration mismatch React reports.
    if (/Content Security Policy|hydrat/i.test(message.text())) problems.push(message.text());
  });
  const paths = () => requests.filter((url) => url.origin === origin).map((url) => url.pathname);
  return { page, paths, problems };
}

const VIEWPORT = { viewport: { width: 1280, height: 1000 } };

const texts = (page: Page, testId: string, within = "body") =>
  page.locator(within).getByTestId(testId).allTextContents();

/**
 * Defines the specs for `mode`: one browser for the file, in production one `svc build` of
 * the store's components through the real command line, then the table for each framework.
 */
export function describeStoreExample(mode: Mode): void {
  const frameworks = FRAMEWORKS.filter((framework) => selected(framework, mode));

  beforeAll(async () => {
    const built = async () => {
      if (mode !== "production") return undefined;
      work = await tempDir("svc-store-build-");
      buildDir = join(work, "svc");
      return buildStore(buildDir);
    };
    [browser, manifest] = await Promise.all([
      launchBrowser(),
      built(),
      // The bridges serve @svc/loader's built script: build it from the current sources.
      buildLoaderOnce(),
    ]).then(([b, m]) => [b, m ?? {}] as const);
  }, 120_000);

  afterAll(async () => {
    await browser?.close();
    await removeDir(work);
  });

  describe.each(frameworks)(`store example on %s, ${mode}`, (framework) => {
    let app: ExampleApp;
    let context: BrowserContext;
    let shared: Page;
    const url = (path: string) => `${app.url}${path}`;
    // One page for the app's tests (opening pages is slow on a busy machine); tests that count
    // requests get a fresh context with an empty cache.
    const open = () => record(shared, new URL(app.url).origin);
    const openFresh = async () => {
      const fresh = await browser.newContext(VIEWPORT);
      return {
        ...record(await fresh.newPage(), new URL(app.url).origin),
        close: () => fresh.close(),
      };
    };

    beforeAll(async () => {
      app = await startExample(framework, mode, buildDir);
      context = await browser.newContext(VIEWPORT);
      shared = await context.newPage();
    });

    afterAll(async () => {
      await context?.close();
      await app?.close();
    });

    it("/ shows 6 product cards with names, prices and images; a card opens its page", async () => {
      const { page, problems } = open();
      await page.goto(url("/"));
      const cards = page.getByTestId("product-card");
      await cards.nth(5).waitFor();
      expect(await cards.count()).toBe(6);
      expect(await texts(page, "product-name")).toEqual(FIXTURE_NAMES);
      const prices = await texts(page, "product-price");
      expect(prices).toEqual(["$14.50", "$49.00", "$12.99", "$79.95", "$29.99", "$129.00"]);
      // Every card's image has loaded and decoded.
      await page.waitForFunction(() => {
        const images = [...document.querySelectorAll("[data-testid=product-card] img")];
        return images.length === 6 && images.every((i) => (i as HTMLImageElement).naturalWidth > 0);
      });

      // Styled by the components' CSS modules (the island's stylesheet links may still be
      // arriving when the server-rendered cards are already there).
      await expect
        .poll(
          () =>
            cards.first().evaluate((el) => {
              const style = getComputedStyle(el);
              return [style.borderRadius, style.display];
            }),
          { timeout: 10_000 },
        )
        .toEqual(["10px", "flex"]);
      const price = page.getByTestId("product-price").first();
      expect(await price.evaluate((el) => getComputedStyle(el).color)).toBe("rgb(29, 111, 66)");

      await cards.nth(4).click();
      await page.waitForURL(url("/product/5"));
      const detail = page.getByTestId("product-detail");
      await detail.waitFor();
      expect(await detail.getByTestId("product-name").textContent()).toBe("Potted Fern");
      expect(await detail.getByTestId("product-price").textContent()).toBe("$29.99");
      expect(await page.title()).toBe("Potted Fern · svc store");
      expect(problems).toEqual([]);
    });

    it("/ and a product's page are islands: server-rendered names and prices, the list hydrating when visible", async () => {
      const home = await (await fetch(url("/"))).text();
      expect(home).toMatch(
        /<div data-svc-component="store:product_list"[^>]*data-svc-ssr[^>]*data-svc-hydrate="visible"/,
      );
      const detail = await (await fetch(url("/product/5"))).text();
      expect(detail).toMatch(/<div data-svc-component="store:product"[^>]*data-svc-hydrate="load"/);
      expect(detail).toContain("Potted Fern");

      // Without JavaScript the server's HTML is the content.
      const noScript = await browser.newContext({ ...VIEWPORT, javaScriptEnabled: false });
      const page = await noScript.newPage();
      await page.goto(url("/"));
      expect(await texts(page, "product-name")).toEqual(FIXTURE_NAMES);
      expect(await texts(page, "product-price")).toEqual([
        "$14.50",
        "$49.00",
        "$12.99",
        "$79.95",
        "$29.99",
        "$129.00",
      ]);
      await page.goto(url("/product/5"));
      expect(await page.getByTestId("product-price").textContent()).toBe("$29.99");
      await noScript.close();
    });

    it("/product/99999 shows the 404 page with status 404", async () => {
      const { page } = open();
      const response = await page.goto(url("/product/99999"));
      expect(response?.status()).toBe(404);
      expect(await page.getByTestId("not-found").textContent()).toContain("Page not found");
      const unknown = await page.goto(url("/no/such/page"));
      expect(unknown?.status()).toBe(404);
      expect(await page.getByTestId("not-found").isVisible()).toBe(true);
    });

    if (mode === "development") {
      it("fetches bundles from /api/bundles/*.js and no static bundle files", async () => {
        const { page, paths, close } = await openFresh();
        await page.goto(url("/"));
        // The cards come with the page (server-rendered): wait for the hydration's fetches.
        const bundles = () => paths().filter((p) => /^\/api\/bundles\/.+\.js$/.test(p));
        await expect.poll(() => bundles().length, { timeout: 15_000 }).toBe(2);
        expect(bundles().sort()).toEqual([
          "/api/bundles/store:product.js",
          "/api/bundles/store:product_list.js",
        ]);
        expect(paths().filter((p) => p.startsWith("/static/svc/"))).toEqual([]);
        await close();
      });
    } else {
      it("fetches only the manifest and static bundle files, never /api/bundles/*.js", async () => {
        const { page, paths, close } = await openFresh();
        await page.goto(url("/"));
        // The cards come with the page (server-rendered): wait for the hydration's fetches.
        await expect
          .poll(() => paths().filter((p) => /^\/static\/svc\/bundles\/.+\.js$/.test(p)).length, {
            timeout: 15_000,
          })
          .toBe(2);
        expect(paths().filter((p) => /^\/api\/bundles\/.+\.js$/.test(p))).toEqual([]);
        expect(
          paths()
            .filter((p) => p.startsWith("/static/svc/"))
            .sort(),
        ).toEqual(
          [
            `/static/svc/${manifest["store:product"]?.file}`,
            `/static/svc/${manifest["store:product_list"]?.file}`,
            // Their stylesheets, which the manifest lists beside them.
            ...["store:product", "store:product_list"].flatMap((name) =>
              (manifest[name]?.css ?? []).map((css) => `/static/svc/${css.file}`),
            ),
            "/static/svc/manifest.json",
            // What loader.js fetches on demand: its extras for the islands, and the vendor files
            // the manifest lists for these bundles (@svc/react, TanStack Query), each once.
            "/static/svc/loader.extras.js",
            ...new Set(
              ["store:product", "store:product_list"].flatMap((name) =>
                (manifest[name]?.modules ?? []).map(({ file }) => `/static/svc/${file}`),
              ),
            ),
          ].sort(),
        );
        // The API is there, in static mode: it would not serve a bundle anyway.
        const api = await fetch(url("/api/bundles/store:product.js"));
        expect(api.status).toBe(404);
        expect(await api.json()).toMatchObject({ error: "StaticMode" });
        await close();
      });
    }

    it("edit page: the live preview follows name and price 12,5 within a second, and shows a missing name", async () => {
      const { page, paths, problems } = open();
      await page.goto(url("/admin/product/1/edit"));
      const list = page.getByTestId("preview-list");
      const detail = page.getByTestId("preview-detail");
      await list.getByTestId("product-name").waitFor();
      expect(await list.getByTestId("product-name").textContent()).toBe("Stoneware Mug");

      const posts = () => paths().filter((p) => p === "/admin/product/1/preview").length;
      await page.locator("#name").fill("");
      await page.locator("#name").pressSequentially("Blue Mug", { delay: 15 });
      await page.locator("#price").fill("12,5");
      await page.waitForFunction(
        () => {
          const text = (selector: string) => document.querySelector(selector)?.textContent;
          const list = "[data-testid=preview-list] [data-testid=product-";
          const detail = "[data-testid=preview-detail] [data-testid=product-";
          return (
            text(`${list}name]`) === "Blue Mug" &&
            text(`${list}price]`) === "$12.50" &&
            text(`${detail}name]`) === "Blue Mug" &&
            text(`${detail}price]`) === "$12.50"
          );
        },
        null,
        { timeout: 1000 },
      );
      // Ten input events, debounced into one request (two if the machine stalled mid-typing).
      expect(posts()).toBeGreaterThanOrEqual(1);
      expect(posts()).toBeLessThanOrEqual(2);
      expect(await page.getByTestId("preview-errors").isHidden()).toBe(true);

      await page.locator("#name").fill("");
      const errors = page.getByTestId("preview-errors");
      await errors.waitFor({ state: "visible", timeout: 1000 });
      expect(await errors.textContent()).toBe("Name: This field is required.");
      // The preview keeps the last valid props.
      expect(await detail.getByTestId("product-name").textContent()).toBe("Blue Mug");
      // Nothing was saved by previewing.
      expect(readProduct(app.dataDir, 1)?.name).toBe("Stoneware Mug");
      expect(problems).toEqual([]);
    });

    it("live preview: shows the endpoint's errors as text, never as HTML", async () => {
      const { page, problems } = open();
      await page.goto(url("/admin/product/1/edit"));
      await page.getByTestId("preview-list").waitFor();
      const hostile = '<img src=x onerror="window.__pwned = true">';
      await page.route("**/admin/product/1/preview", (route) =>
        route.fulfill({ json: { success: false, errors: { name: [hostile] } } }),
      );
      await page.locator("#name").fill("anything");
      const errors = page.getByTestId("preview-errors");
      await errors.waitFor({ state: "visible" });
      expect(await errors.textContent()).toBe(`Name: ${hostile}`);
      expect(await errors.locator("img").count()).toBe(0);
      expect(await page.evaluate(() => "__pwned" in window)).toBe(false);
      await page.unrouteAll();
      expect(problems).toEqual([]);
    });

    it("create page: the live preview works, uploaded image included", async () => {
      const { page, problems } = open();
      await page.goto(url("/admin/product/new"));
      const detail = page.getByTestId("preview-detail");
      await detail.getByTestId("product-price").waitFor();
      expect(await detail.getByTestId("product-price").textContent()).toBe("$0.00");

      await page.locator("#name").fill("Desk Plant");
      await page.locator("#price").fill("7,25");
      await page
        .locator("#image")
        .setInputFiles({ name: "plant.png", mimeType: "image/png", buffer: PNG });
      await page.waitForFunction(
        () => {
          const detail = document.querySelector("[data-testid=preview-detail]");
          const image = detail?.querySelector("img");
          return (
            detail?.querySelector("[data-testid=product-name]")?.textContent === "Desk Plant" &&
            detail.querySelector("[data-testid=product-price]")?.textContent === "$7.25" &&
            image?.src.startsWith("data:image/png;base64,") &&
            image.naturalWidth === 40
          );
        },
        null,
        { timeout: 2000 },
      );
      expect(problems).toEqual([]);
    });

    it("saving a non-image upload shows an error and leaves the product unchanged in the database", async () => {
      const before = readProduct(app.dataDir, 2);
      const files = await listFiles(app.mediaDir);
      const { page } = open();
      await page.goto(url("/admin/product/2/edit"));
      await page.locator("#name").fill("Renamed Lamp");
      await page.locator("#price").fill("1,00");
      await page.locator("#image").setInputFiles({
        name: "lamp.png",
        mimeType: "image/png",
        buffer: Buffer.from("#!/bin/sh\necho this is not an image\n"),
      });
      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === "POST" && r.url().endsWith("/edit")),
        page.getByRole("button", { name: "Save" }).click(),
      ]);
      expect(response.status()).toBe(422);
      await page.getByTestId("form-errors").waitFor();
      expect(await page.locator("[data-error-for=image]").textContent()).toBe(
        "Upload a PNG, JPEG, GIF or WebP image.",
      );
      // What was typed is kept for the next try.
      expect(await page.locator("#name").inputValue()).toBe("Renamed Lamp");
      expect(readProduct(app.dataDir, 2)).toEqual(before);
      expect(before?.name).toBe("Brass Desk Lamp");
      expect(await listFiles(app.mediaDir)).toEqual(files);
    });

    it("saving valid data persists it, image included, and the list page shows it", async () => {
      const { page, problems } = open();
      await page.goto(url("/admin/product/3/edit"));
      await page.locator("#name").fill("Dotted Notebook");
      await page.locator("#price").fill("9,5");
      await page
        .locator("#image")
        .setInputFiles({ name: "nb.png", mimeType: "image/png", buffer: PNG });
      await page.getByRole("button", { name: "Save" }).click();
      await page.waitForURL(url("/admin/?saved=3"));
      expect(await page.getByRole("status").textContent()).toBe("Saved “Dotted Notebook”.");

      const row = readProduct(app.dataDir, 3);
      expect(row).toMatchObject({ name: "Dotted Notebook", price_cents: 950 });
      expect(row?.image).toMatch(/^[0-9a-f]{24}\.png$/);
      expect(await readFile(join(app.mediaDir, row?.image ?? ""))).toEqual(PNG);

      await page.goto(url("/"));
      const card = page.getByTestId("product-card").nth(2);
      await card.waitFor();
      expect(await card.getByTestId("product-name").textContent()).toBe("Dotted Notebook");
      expect(await card.getByTestId("product-price").textContent()).toBe("$9.50");
      await page.waitForFunction((src) => {
        const image = document.querySelectorAll<HTMLImageElement>(
          "[data-testid=product-card] img",
        )[2];
        return image?.getAttribute("src") === src && image.naturalWidth === 40;
      }, `/media/products/${row?.image}`);
      expect(problems).toEqual([]);
    });

    it("answers the validation endpoints as the spec says (multipart through the framework)", async () => {
      const preview = async (path: string, fields: Record<string, string | Blob>) => {
        const response = await fetch(url(path), { method: "POST", body: form(fields) });
        expect(response.headers.get("content-type")).toMatch(/^application\/json/);
        return { status: response.status, body: await response.json() };
      };
      expect(await preview("/admin/product/preview", { name: "Mug", price: "19,99" })).toEqual({
        status: 200,
        body: {
          success: true,
          props: {
            name: "Mug",
            price: 19.99,
            description: "",
            imageUrl: "/static/placeholder.svg",
          },
        },
      });
      expect(await preview("/admin/product/preview", { price: "x" })).toEqual({
        status: 200,
        body: { success: false, errors: { name: ["This field is required."] } },
      });
      const stored = await preview("/admin/product/6/preview", { name: "A", price: "x" });
      expect(stored.body).toMatchObject({
        success: true,
        props: { price: 0, imageUrl: "/media/products/headphones.svg" },
      });
      const image = new File([PNG], "p.png", { type: "image/png" });
      const uploaded = await preview("/admin/product/6/preview", { name: "A", price: "1", image });
      expect(uploaded.body.props.imageUrl).toBe(`data:image/png;base64,${PNG.toString("base64")}`);
      expect(
        (await preview("/admin/product/99999/preview", { name: "A", price: "1" })).status,
      ).toBe(404);
    });

    it("refuses a save without the CSRF cookie and token, and serves images for a day", async () => {
      const before = readProduct(app.dataDir, 6);
      const response = await fetch(url("/admin/product/6/edit"), {
        method: "POST",
        body: form({ name: "Hijacked", price: "0", csrf_token: "forged" }),
        redirect: "manual",
      });
      expect(response.status).toBe(403);
      expect(readProduct(app.dataDir, 6)).toEqual(before);

      const image = await fetch(url("/media/products/headphones.svg"));
      expect(image.status).toBe(200);
      expect(image.headers.get("cache-control")).toBe("public, max-age=86400");
      expect(image.headers.get("content-type")).toBe("image/svg+xml");
    });
  });
}
