/**
 * What the playground says when something is wrong outside the component's code: an invalid
 * `schema.json` (and the dev server's own answer for it), a component folder renamed or
 * deleted while it is open, and a bad `?props=` in the URL. Real Chromium against a real
 * `startDevServer` over components written to a temporary directory.
 */
import { rename, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildPlayground } from "../../packages/server/playground/build.ts";
// From source: a bare "@svc/server" resolves to the package's dist/ build under vitest.
import {
  ComponentRegistry,
  type DevServer,
  silentLogger,
  startDevServer,
} from "../../packages/server/src/index.ts";
import {
  launchBrowser,
  makeTempDir,
  openPage,
  poll,
  QUIET_DEV_SERVER,
  removeDir,
  writeFiles,
} from "../browser/helpers.ts";

const HELLO = {
  "index.tsx": `export default function Hello({ name = "world" }: { name?: string }) {
  return <h2 className="hello">Hello, {name}!</h2>;
}
`,
  "schema.json": `{
  "title": "Hello",
  "type": "object",
  "properties": { "name": { "type": "string", "default": "world" } }
}
`,
};

/** Not JSON: a doubled comma at line 2, column 21. */
const NOT_JSON = `{
  "title": "Broken",,
  "type": "object"
}
`;

let browser: Browser;
let server: DevServer;
let dir: string;

beforeAll(async () => {
  const [launched, , root] = await Promise.all([
    launchBrowser(),
    buildPlayground(),
    makeTempDir("svc-playground-problems-"),
  ]);
  browser = launched;
  dir = root;
  await writeFiles(dir, {
    ...prefixed("hello", HELLO),
    ...prefixed("not_json", { ...HELLO, "schema.json": NOT_JSON }),
    ...prefixed("not_schema", { ...HELLO, "schema.json": '{ "type": "string" }\n' }),
    ...prefixed("closed", {
      ...HELLO,
      "schema.json":
        '{ "properties": { "name": { "type": "string" } }, "additionalProperties": false }\n',
    }),
    ...prefixed("bad_keyword", {
      ...HELLO,
      "schema.json": '{ "properties": { "name": { "type": "strin" } } }\n',
    }),
  });
  const registry = new ComponentRegistry(dir, { logger: silentLogger });
  server = await startDevServer({ ...QUIET_DEV_SERVER, registry });
});

afterAll(async () => {
  await browser?.close();
  await server?.close();
  await removeDir(dir);
});

function prefixed(folder: string, files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.entries(files).map(([file, text]) => [`${folder}/${file}`, text]),
  );
}

async function open(path: string) {
  const { context, page, errors } = await openPage(browser, {
    viewport: { width: 1280, height: 800 },
  });
  await page.goto(`${server.url}${path}`);
  return { page, errors, close: () => context.close() };
}

const text = (page: Page, selector: string) =>
  page.locator(selector).first().textContent({ timeout: 1000 });

describe("an invalid schema.json", () => {
  it("is answered 500 InvalidSchema by the dev server, naming the file, the line and the column", async () => {
    const response = await fetch(`${server.url}/api/bundles/not_json/metadata`);
    expect(response.status).toBe(500);
    const body = (await response.json()) as { error: string; message: string };
    expect(body.error).toBe("InvalidSchema");
    expect(body.message).toMatch(
      /^not_json\/schema\.json: is not valid JSON: .+ \(line 2 column 21\)$/,
    );
    expect(body.message).not.toContain(dir);
    const wrong = await fetch(`${server.url}/api/bundles/not_schema/metadata`);
    expect(wrong.status).toBe(500);
    expect(await wrong.json()).toMatchObject({
      error: "InvalidSchema",
      message: 'not_schema/schema.json: "type" must be "object" (props are an object)',
    });
  });

  it.each([
    [
      "not_json",
      /^schema\.json is invalid: not_json\/schema\.json: is not valid JSON: .+ \(line 2 column 21\)$/,
    ],
    ["not_schema", /^schema\.json is invalid: not_schema\/schema\.json: "type" must be "object"/],
    [
      "bad_keyword",
      /^schema\.json is invalid: bad_keyword\/schema\.json: is not a valid JSON Schema: #\/properties\/name\/type must be one of/,
    ],
  ])(
    "%s: the props panel says so with the parser's message, the sidebar too; the component renders without props",
    async (name, message) => {
      const { page, errors, close } = await open(`/#/${name}`);
      await poll(() => text(page, ".pg-stage h2.hello")).toBe("Hello, world!");
      await poll(() => text(page, ".pg-panel .pg-schema-error")).toMatch(message);
      const panel = (await page.locator(".pg-panel").textContent()) ?? "";
      expect(panel).not.toContain("No props in schema.json");
      expect(panel).not.toContain("does not build");
      const dot = page.locator(`.pg-item[data-name="${name}"] .pg-dot-error`);
      await poll(() => dot.getAttribute("title")).toBe("schema.json is invalid");
      // A component with a good schema has no dot.
      expect(await page.locator('.pg-item[data-name="hello"] .pg-dot-error').count()).toBe(0);
      expect(errors).toEqual([]);
      await close();
    },
  );
});

describe("a component folder renamed or deleted while open", () => {
  it.each([
    [
      "renamed",
      (from: string) => rename(from, `${from}_moved`),
      (from: string) => rename(`${from}_moved`, from),
    ],
    [
      "deleted",
      (from: string) => rm(from, { recursive: true }),
      (from: string) => writeFiles(from, HELLO),
    ],
  ])(
    "%s: the page says No such component (after a reload too); restored, it comes back",
    async (_, remove, restore) => {
      const { page, close } = await open("/#/hello");
      await poll(() => text(page, ".pg-stage h2.hello")).toBe("Hello, world!");
      const folder = join(dir, "hello");
      await remove(folder);
      try {
        await poll(() => text(page, "main")).toMatch(/^No such component: hello\./);
        expect(await page.locator(".pg-stage").count()).toBe(0);
        expect(await page.locator('.pg-item[data-name="hello"]').count()).toBe(0);
        await page.reload();
        await poll(() => text(page, "main")).toMatch(/^No such component: hello\./);
        expect(await page.locator(".pg-stage h2.hello").count()).toBe(0);
      } finally {
        await restore(folder);
      }
      // Changed while it was gone: the restored component is fetched afresh.
      await writeFile(
        join(folder, "index.tsx"),
        HELLO["index.tsx"].replace("Hello, {name}!", "Hello again, {name}!"),
      );
      try {
        await poll(() => text(page, ".pg-stage h2.hello")).toBe("Hello again, world!");
        expect(await page.locator("main").first().textContent()).not.toContain("No such component");
      } finally {
        await writeFile(join(folder, "index.tsx"), HELLO["index.tsx"]);
      }
      await close();
    },
  );

  it("a name that was never there says No such component", async () => {
    const { page, close } = await open("/#/nowhere");
    await poll(() => text(page, "main")).toMatch(/^No such component: nowhere\./);
    await close();
  });
});

describe("a bad ?props= in the URL", () => {
  it.each([
    [
      "not JSON",
      "%7Bname",
      /^props in the URL is not JSON: .+ — the schema's defaults are shown instead\.$/,
    ],
    [
      "not an object",
      "%5B1%5D",
      /^props in the URL must be a JSON object, not an array — the schema's defaults are shown instead\.$/,
    ],
  ])(
    "%s: says what is wrong, shows the defaults; editing a prop clears it",
    async (_, props, message) => {
      const { page, close } = await open(`/#/hello?props=${props}`);
      await poll(() => text(page, ".pg-stage h2.hello")).toBe("Hello, world!");
      expect(await text(page, ".pg-panel .pg-url-error")).toMatch(message);
      await page.locator('.pg-panel input[type="text"]').first().fill("you");
      await poll(() => text(page, ".pg-stage h2.hello")).toBe("Hello, you!");
      expect(await page.locator(".pg-panel .pg-url-error").count()).toBe(0);
      await close();
    },
  );

  it("a prop schema.json does not list: taken (JSON Schema's rule, as svc types declares), reported under additionalProperties: false", async () => {
    const props = encodeURIComponent('{"name":"you","nmae":"x"}');
    const open1 = await open(`/#/hello?props=${props}`);
    await poll(() => text(open1.page, ".pg-stage h2.hello")).toBe("Hello, you!");
    await open1.close();
    const { page, close } = await open(`/#/closed?props=${props}`);
    const error = page.locator('.pg-stage [data-svc-error="SchemaValidation"]');
    await poll(() => error.count()).toBe(1);
    expect(await error.textContent()).toContain("nmae");
    expect(await page.locator(".pg-stage h2.hello").count()).toBe(0);
    await close();
  });

  it("failing the schema: the stage lists the failing prop instead of rendering", async () => {
    const { page, close } = await open(`/#/hello?props=${encodeURIComponent('{"name":3}')}`);
    const error = page.locator('.pg-stage [data-svc-error="SchemaValidation"]');
    await poll(() => error.count()).toBe(1);
    expect(await error.textContent()).toContain("name");
    expect(await page.locator(".pg-stage h2.hello").count()).toBe(0);
    await close();
  });
});
