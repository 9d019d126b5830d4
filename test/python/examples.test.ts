/**
 * `npm run example -- django` and `-- flask` as a Python developer runs them: svc and the
 * Python server start together, the product list comes as islands (all rendered in one
 * request), styled and hydrated in Chromium with svc on another origin; SIGTERM stops both.
 */
import { type ChildProcess, spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildLoaderOnce, launchBrowser } from "../browser/helpers.ts";
import { PYTHON } from "./python.ts";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const RUN = fileURLToPath(new URL("../../examples/run.ts", import.meta.url));
const SVC = fileURLToPath(new URL("../../packages/server/src/cli/svc.ts", import.meta.url));

const PRODUCTS = [
  "Stoneware Mug",
  "Brass Desk Lamp",
  "Linen Notebook",
  "Canvas Backpack",
  "Potted Fern",
  "Wireless Headphones",
];

interface Running {
  child: ChildProcess;
  shop: string;
  svc: string;
  output: () => string;
}

function startExample(framework: string): Promise<Running> {
  const child = spawn(process.execPath, ["--conditions=source", RUN, framework, "--port", "0"], {
    cwd: ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  return new Promise((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const shop = /shop: +(http:\/\/\S+?)\/\n/.exec(output)?.[1];
      const svc = /svc: +(http:\/\/\S+?)\/ /.exec(output)?.[1];
      if (shop && svc) resolve({ child, shop, svc, output: () => output });
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    child.once("exit", (code) => reject(new Error(`exited with ${code}:\n${output}`)));
  });
}

describe.skipIf(PYTHON === undefined)(
  "the Python examples (npm run example -- django|flask)",
  () => {
    let browser: Browser;

    beforeAll(async () => {
      [browser] = await Promise.all([launchBrowser(), buildLoaderOnce()]);
    });

    afterAll(async () => {
      await browser?.close();
    });

    for (const framework of ["django", "flask"]) {
      it(`${framework}: serves the product list as islands rendered by svc on another port, hydrated in Chromium; SIGTERM stops both`, async () => {
        const example = await startExample(framework);
        try {
          const home = await (await fetch(`${example.shop}/`)).text();
          expect(home.match(/data-svc-component="store:product"/g)).toHaveLength(6);
          expect(home.match(/data-svc-ssr/g)).toHaveLength(6);
          expect(home).toContain(`<script src="${example.svc}/api/loader.js"`);
          const detail = await (await fetch(`${example.shop}/product/2`)).text();
          expect(detail).toContain('"mode":"detail"');
          expect(detail).toContain("Brass Desk Lamp");

          const context = await browser.newContext();
          const page = await context.newPage();
          const problems: string[] = [];
          page.on("console", (m) => {
            if (m.type() === "error" || m.type() === "warning") problems.push(m.text());
          });
          page.on("pageerror", (error) => problems.push(error.message));
          await page.goto(`${example.shop}/`);
          const cards = page.locator('[data-testid="product-card"]');
          expect(await cards.locator("h3").allTextContents()).toEqual(PRODUCTS);
          // Styled by the component's CSS module, linked from svc's origin.
          expect(await cards.first().evaluate((el) => getComputedStyle(el).borderTopStyle)).toBe(
            "solid",
          );
          // Each card hydrates as it scrolls into view: React takes the server's element over.
          await cards.last().scrollIntoViewIfNeeded();
          await expect
            .poll(() =>
              page.evaluate(() =>
                [...document.querySelectorAll("[data-svc-component] article")].every((article) =>
                  Object.keys(article).some((key) => key.startsWith("__reactFiber")),
                ),
              ),
            )
            .toBe(true);
          expect(problems).toEqual([]);
          await context.close();
        } finally {
          const exited = once(example.child, "exit");
          example.child.kill("SIGTERM");
          const [code] = await exited;
          expect(code, example.output()).toBe(0);
        }
        await expect(fetch(`${example.shop}/`)).rejects.toThrow();
        await expect(fetch(`${example.svc}/api/health`)).rejects.toThrow();
      });
    }

    it("keeps the Django example's svc_types.py current with the store's schemas (svc types --python --check)", async () => {
      const child = spawn(
        process.execPath,
        [
          "--conditions=source",
          SVC,
          "types",
          "--python",
          "examples/django/store_site/svc_types.py",
          "--components-dir",
          "examples/store/components",
          "--prefix",
          "store",
          "--check",
        ],
        { cwd: ROOT, stdio: ["ignore", "pipe", "pipe"] },
      );
      let stdout = "";
      let stderr = "";
      child.stdout?.on("data", (chunk: Buffer) => {
        stdout += chunk;
      });
      child.stderr?.on("data", (chunk: Buffer) => {
        stderr += chunk;
      });
      const [code] = await once(child, "exit");
      expect(stdout, stderr).toBe(
        "svc types: examples/django/store_site/svc_types.py is up to date (3 components)\n",
      );
      expect(code).toBe(0);
    });
  },
);
