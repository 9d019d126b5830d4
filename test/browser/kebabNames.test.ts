/**
 * Components in kebab-case folders (`product-card`), end to end in Chromium: the loader renders
 * one that uses another through `useComponent("price-tag")`, with its stylesheet; an island of
 * one hydrates; and the same after `svc build`, from its manifest.
 */
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { ComponentRegistry, silentLogger } from "@svc/server";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  html,
  launchBrowser,
  makeTempDir,
  openPage,
  removeDir,
  startTestServer,
  svcBuild,
  type TestServer,
  widget,
  writeFiles,
} from "./helpers.ts";

const COMPONENTS: Record<string, string> = {
  "product-card/index.tsx": `import "./product-card.css";
import { useComponent } from "@svc/react";
import { useState } from "react";
export default function ProductCard({ title }: { title: string }) {
  const PriceTag = useComponent<{ cents: number }>("price-tag");
  const [likes, setLikes] = useState(0);
  return (
    <article className="product-card">
      <h3 className="title">{title}</h3>
      <PriceTag cents={1250} />
      <button type="button" className="likes" onClick={() => setLikes(likes + 1)}>{likes}</button>
    </article>
  );
}
`,
  "product-card/product-card.css": ".product-card .title { color: rgb(1, 2, 3); }\n",
  "product-card/schema.json": JSON.stringify({
    type: "object",
    properties: { title: { type: "string" } },
    required: ["title"],
  }),
  "price-tag/index.tsx": `export default function PriceTag({ cents }: { cents: number }) {
  return <span className="price-tag">{(cents / 100).toFixed(2)} €</span>;
}
`,
  "ui/nav2-item/index.tsx": `export default function Nav2Item() {
  return <a className="nav2-item" href="#top">top</a>;
}
`,
};

const NAMES = ["price-tag", "product-card", "ui.nav2-item"];

describe("kebab-case component names", () => {
  let browser: Browser;
  let work: string | undefined;
  let out: string;
  let server: TestServer;

  beforeAll(async () => {
    work = await makeTempDir("svc-kebab-");
    const sources = join(work, "components");
    await writeFiles(sources, COMPONENTS);
    out = join(work, "svc");
    await svcBuild(sources, out);
    const warnings: string[] = [];
    const registry = new ComponentRegistry(sources, {
      logger: { ...silentLogger, warn: (message) => warnings.push(message) },
    });
    expect(warnings).toEqual([]);
    [browser, server] = await Promise.all([
      launchBrowser(),
      startTestServer({
        registry,
        handlerOptions: { logger: silentLogger, live: false },
        staticDir: out,
      }),
    ]);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
    await removeDir(work);
  });

  /** Opens `body` with the loader, waits for `.title`, and checks the whole card. */
  async function expectCard(page: Page, title: string): Promise<void> {
    const card = page.locator(".product-card");
    await expect.poll(() => card.locator(".title").textContent(), { timeout: 20_000 }).toBe(title);
    await expect
      .poll(() => card.locator(".price-tag").textContent(), { timeout: 20_000 })
      .toBe("12.50 €");
    // Its stylesheet is applied.
    expect(
      await card.locator(".title").evaluate((element) => getComputedStyle(element).color),
    ).toBe("rgb(1, 2, 3)");
  }

  /** Clicks `.likes` until it counts: the component is interactive (hydrated). */
  async function expectInteractive(page: Page): Promise<void> {
    const likes = page.locator(".likes");
    await expect
      .poll(
        async () => {
          await likes.click();
          return Number(await likes.textContent());
        },
        { timeout: 20_000 },
      )
      .toBeGreaterThan(0);
  }

  it("lists, bundles, describes and styles them over the API", async () => {
    const list = await fetch(`${server.url}/api/bundles`);
    expect(await list.json()).toEqual(NAMES.map((name) => ({ name })));
    const bundle = await fetch(`${server.url}/api/bundles/product-card.js`);
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get("link")).toMatch(
      /^<\.\/price-tag\.js(?:\?[0-9a-f]{12})?>; rel=modulepreload/,
    );
    const metadata = await fetch(`${server.url}/api/bundles/product-card/metadata`);
    expect(await metadata.json()).toMatchObject({
      name: "product-card",
      dependencies: ["price-tag"],
    });
    // The component's whole stylesheet, not a bundle's stylesheet file.
    const sheet = await fetch(`${server.url}/api/bundles/product-card.css`);
    expect([sheet.status, sheet.headers.get("content-type")]).toEqual([
      200,
      "text/css; charset=utf-8",
    ]);
    expect(await sheet.text()).toContain("rgb(1, 2, 3)");
    const nested = await fetch(`${server.url}/api/bundles/ui.nav2-item.js`);
    expect(nested.status).toBe(200);
    const typo = await fetch(`${server.url}/api/bundles/product_card.js`);
    expect([typo.status, await typo.json()]).toEqual([
      404,
      {
        error: "ComponentNotFound",
        message: 'No component named "product_card" is registered — did you mean "product-card"?',
        name: "product_card",
      },
    ]);
  });

  it("renders one with the loader, using another through useComponent", async () => {
    server.setPage("/loader.html", html(widget("product-card", { title: "Mug" })));
    const { context, page, errors } = await openPage(browser);
    try {
      await page.goto(`${server.url}/loader.html`);
      await expectCard(page, "Mug");
      await expectInteractive(page);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("hydrates an island rendered by POST /bundles/product-card/html", async () => {
    const answer = await fetch(`${server.url}/api/bundles/product-card/html`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ title: "Island mug" }),
    });
    expect(answer.status).toBe(200);
    const island = await answer.text();
    expect(island).toContain('data-svc-component="product-card"');
    expect(island).toContain('<span class="price-tag">12.50'); // price-tag rendered there too
    server.setPage("/island.html", html(`<main>${island}</main>`));
    const { context, page, errors } = await openPage(browser);
    const problems: string[] = [];
    page.on("console", (m) => {
      if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
    });
    try {
      await page.goto(`${server.url}/island.html`);
      await expectCard(page, "Island mug");
      await expectInteractive(page);
      expect(await page.locator(".product-card").count()).toBe(1);
      expect(problems.filter((p) => /hydrat/i.test(p))).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it("are built by svc build under their own names, and loaded from the manifest", async () => {
    const manifest = JSON.parse(await readFile(join(out, "manifest.json"), "utf8")) as Record<
      string,
      { file: string; dependencies?: string[]; css?: { file: string }[] }
    >;
    expect(Object.keys(manifest)).toEqual(NAMES);
    expect(manifest["product-card"]?.file).toMatch(/^bundles\/product-card\.[0-9a-f]{12}\.js$/);
    expect(manifest["ui.nav2-item"]?.file).toMatch(/^bundles\/ui\.nav2-item\.[0-9a-f]{12}\.js$/);
    expect(manifest["product-card"]?.dependencies).toEqual(["price-tag"]);
    expect(manifest["product-card"]?.css?.[0]?.file).toMatch(
      /^bundles\/product_card-[0-9a-f]{12}\.css$/,
    );

    server.setPage(
      "/built.html",
      html(widget("product-card", { title: "Built mug" }), {
        loader: ' data-svc-manifest="/static/svc/manifest.json"',
      }),
    );
    const { context, page, errors } = await openPage(browser);
    const before = server.requests.length;
    try {
      await page.goto(`${server.url}/built.html`);
      await expectCard(page, "Built mug");
      await expectInteractive(page);
      expect(errors).toEqual([]);
      // Everything came from the build: no request reached the API.
      const requested = server.requests.slice(before);
      expect(requested.filter((path) => path.startsWith("/api/"))).toEqual([]);
      expect(requested).toContain(`/static/svc/${manifest["product-card"]?.file}`);
    } finally {
      await context.close();
    }
  });
});
