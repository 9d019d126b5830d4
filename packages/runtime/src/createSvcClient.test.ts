import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createSvcClient, getComponentExport } from "./createSvcClient.ts";
import {
  BundleLoadError,
  ComponentNotFoundError,
  ExportNotFoundError,
  IntegrityError,
  InvalidComponentNameError,
  isSvcError,
} from "./errors.ts";
import type { ComponentModule } from "./importCode.ts";
import type { ModuleRegistry } from "./moduleRegistry.ts";
import { stylesheetsOf } from "./stylesheets.ts";
import { withImportTable } from "./test/importTable.ts";

// The browser paths (blob: import, real server) are covered in test/browser; here the
// client's own rules run against an in-memory fetch, in Node.

/** A bundle as the server writes it: with its import table. */
const BUNDLE = withImportTable(
  'import { marker } from "react";\nexport default marker;\nexport const extra = 1;\n',
);

function importData(code: string): Promise<ComponentModule> {
  const base64 = btoa(String.fromCharCode(...new TextEncoder().encode(code)));
  return import(`data:text/javascript;base64,${base64}`);
}

async function sri(text: string): Promise<string> {
  const digest = new Uint8Array(
    await crypto.subtle.digest("SHA-384", new TextEncoder().encode(text)),
  );
  return `sha384-${btoa(String.fromCharCode(...digest))}`;
}

interface Route {
  status?: number;
  body: string;
  type?: string;
  link?: string;
}

/** A metadata answer (only what the client reads in `moduleLoading: "url"`). */
function metadataRoute(fields: { preload?: string[]; stylesheets?: string[] } = {}): Route {
  return {
    type: "application/json",
    body: JSON.stringify({ hash: "0123456789ab", preload: [], stylesheets: [], ...fields }),
  };
}

function fakeServer(routes: Record<string, Route>) {
  const requests: string[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const url = String(input);
    requests.push(`${url}${init?.cache ? ` [${init.cache}]` : ""}`);
    // Let concurrent callers pile up before answering, as a slow network would.
    await new Promise((resolve) => setTimeout(resolve, 5));
    const route = routes[url];
    if (route === undefined) return new Response("no such route", { status: 404 });
    const headers: Record<string, string> = {
      "content-type": route.type ?? "application/javascript",
    };
    if (route.link !== undefined) headers.link = route.link;
    return new Response(route.body, { status: route.status ?? 200, headers });
  };
  return { fetch, requests };
}

describe("createSvcClient", () => {
  let saved: ModuleRegistry | undefined;
  beforeEach(() => {
    saved = globalThis.__MODULES__;
    globalThis.__MODULES__ = { react: { marker: "shared-react" } };
  });
  afterEach(() => {
    globalThis.__MODULES__ = saved;
  });

  it("fetches {apiBase}/bundles/{name}.js?{hash} once for concurrent loads", async () => {
    const server = fakeServer({ "http://x/api/bundles/ui.card.js?abc123": { body: BUNDLE } });
    const client = createSvcClient({
      apiBase: "http://x/api/",
      fetch: server.fetch,
      importCode: importData,
      hashes: { "ui.card": "abc123" },
    });
    const modules = await Promise.all(Array.from({ length: 10 }, () => client.load("ui.card")));
    expect(server.requests).toEqual(["http://x/api/bundles/ui.card.js?abc123"]);
    expect(new Set(modules).size).toBe(1);
    expect(modules[0]?.default).toBe("shared-react");
    await client.load("ui.card");
    expect(server.requests).toHaveLength(1);
  });

  it("revalidates a bundle URL that carries no hash, and refetches after a new hash", async () => {
    const server = fakeServer({
      "http://x/api/bundles/card.js": { body: BUNDLE },
      "http://x/api/bundles/card.js?v2": { body: BUNDLE },
    });
    const client = createSvcClient({
      apiBase: "http://x/api",
      fetch: server.fetch,
      importCode: importData,
    });
    await client.load("card");
    await client.load("card", { hash: "v2" });
    await client.load("card");
    expect(server.requests).toEqual([
      "http://x/api/bundles/card.js [no-cache]",
      "http://x/api/bundles/card.js?v2",
    ]);
  });

  it("maps the API's error bodies to error classes and forgets failures", async () => {
    const json = "application/json";
    const server = fakeServer({
      "http://x/api/bundles/gone.js": {
        status: 404,
        type: json,
        body: '{"error":"ComponentNotFound","message":"no","name":"gone"}',
      },
      "http://x/api/bundles/broken.js": {
        status: 500,
        type: json,
        body: '{"error":"BundleError","message":"index.tsx:3:7: ERROR: Expected \\";\\""}',
      },
      "http://x/api/bundles/static.js": {
        status: 404,
        type: json,
        body: '{"error":"StaticMode","message":"static"}',
      },
      "http://x/api/bundles/Card.js": {
        status: 404,
        type: json,
        body: '{"error":"ComponentNotFound","message":"No component named \\"Card\\" is registered — did you mean \\"card\\"?","name":"Card"}',
      },
    });
    const client = createSvcClient({
      apiBase: "http://x/api",
      fetch: server.fetch,
      importCode: importData,
    });
    const gone = await client.load("gone").catch((e: unknown) => e);
    expect(gone).toBeInstanceOf(ComponentNotFoundError);
    expect((gone as Error).message).toMatch(/No component named "gone" was found/);
    // The server's suggestion of the closest name reaches the page.
    const near = await client.load("Card").catch((e: unknown) => e);
    expect((near as Error).message).toMatch(
      /^No component named "Card" was found: did you mean "card"\? \(GET /,
    );
    const broken = await client.load("broken").catch((e: unknown) => e);
    expect(broken).toBeInstanceOf(BundleLoadError);
    expect((broken as Error).message).toContain("index.tsx:3:7");
    const staticMode = await client.load("static").catch((e: unknown) => e);
    expect((staticMode as Error).message).toMatch(/static mode/);
    await client.load("gone").catch(() => {});
    expect(server.requests.filter((r) => r.includes("gone"))).toHaveLength(2);
  });

  it("rejects an invalid name without a request", async () => {
    const server = fakeServer({});
    const client = createSvcClient({ apiBase: "http://x/api", fetch: server.fetch });
    for (const name of ["", "../x", "a..b", "a:b:c", "1abc", "a/b", "a%2e"]) {
      const error = await client.load(name).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(InvalidComponentNameError);
      expect(isSvcError(error)).toBe(true);
    }
    expect(server.requests).toEqual([]);
  });

  it("in static mode, reads files relative to the manifest and checks integrity", async () => {
    const tampered = BUNDLE.replace("extra = 1", "extra = 2");
    const server = fakeServer({
      "http://x/static/svc/manifest.json": {
        type: "application/json",
        body: JSON.stringify({
          "app:card": {
            file: "bundles/app--card.0123456789ab.js",
            hash: "0123456789ab",
            integrity: await sri(BUNDLE),
          },
          evil: {
            file: "bundles/evil.0123456789ab.js",
            hash: "0123456789ab",
            integrity: await sri(BUNDLE),
          },
        }),
      },
      "http://x/static/svc/bundles/app--card.0123456789ab.js": { body: BUNDLE },
      "http://x/static/svc/bundles/evil.0123456789ab.js": { body: tampered },
    });
    let evaluated = 0;
    const client = createSvcClient({
      manifestUrl: "/static/svc/manifest.json",
      baseUrl: "http://x/page.html",
      fetch: server.fetch,
      importCode: (code) => {
        evaluated++;
        return importData(code);
      },
    });
    const [card] = await Promise.all([client.load("app:card"), client.load("app:card")]);
    expect(card?.extra).toBe(1);
    const evil = await client.load("evil").catch((e: unknown) => e);
    expect(evil).toBeInstanceOf(IntegrityError);
    expect((evil as Error).message).toMatch(/does not match its integrity/);
    expect(evaluated).toBe(1); // the tampered code never ran
    const missing = await client.load("nope").catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ComponentNotFoundError);
    expect(server.requests.filter((r) => r.includes("manifest"))).toHaveLength(1);
    expect(server.requests.some((r) => r.includes("/api/"))).toBe(false);
  });

  it("names missing exports of a component", async () => {
    const module = await importData("export const a = 1;");
    expect(() => getComponentExport(module, "card")).toThrow(ExportNotFoundError);
    expect(() => getComponentExport(module, "card")).toThrow(/no export "default".*exports: a/);
    expect(getComponentExport(module, "card", "a")).toBe(1);
  });

  describe('moduleLoading: "url"', () => {
    it("imports each bundle's ?url form by its own absolute URL, its metadata alongside: no rewriting", async () => {
      const server = fakeServer({
        "/svc/bundles/card/metadata": metadataRoute(),
        "/svc/bundles/other/metadata": metadataRoute(),
      });
      const imported: string[] = [];
      const client = createSvcClient({
        apiBase: "/svc",
        baseUrl: "http://x/page.html",
        hashes: { card: "abc123" },
        moduleLoading: "url",
        fetch: server.fetch,
        importUrl: async (url) => {
          imported.push(url);
          return { default: url };
        },
      });
      const [a, b] = await Promise.all([client.load("card"), client.load("card")]);
      expect(a).toBe(b);
      expect(await client.load("other")).toEqual({
        default: "http://x/svc/bundles/other.js?url",
      });
      expect(imported).toEqual([
        "http://x/svc/bundles/card.js?abc123&url",
        "http://x/svc/bundles/other.js?url",
      ]);
      expect(server.requests).toEqual([
        "/svc/bundles/card/metadata",
        "/svc/bundles/other/metadata",
      ]);
    });

    it("asks for a fresh URL after invalidate, since the browser keeps a module per URL", async () => {
      const imported: string[] = [];
      const client = createSvcClient({
        baseUrl: "http://x/",
        moduleLoading: "url",
        fetch: async () => Response.json(JSON.parse(metadataRoute().body)),
        importUrl: async (url) => {
          imported.push(url);
          return { default: url };
        },
      });
      await client.load("card");
      client.invalidate("card");
      await client.load("card");
      client.invalidate();
      await client.load("card");
      client.setHash("card", "0123456789ab");
      await client.load("card");
      expect(imported).toEqual([
        "http://x/api/bundles/card.js?url",
        "http://x/api/bundles/card.js?r1&url",
        "http://x/api/bundles/card.js?r2&url",
        "http://x/api/bundles/card.js?0123456789ab&url",
      ]);
    });

    it("imports static files relative to the manifest; a failed import tells the server's reason", async () => {
      const server = fakeServer({
        "http://x/static/svc/manifest.json": {
          type: "application/json",
          body: JSON.stringify({
            card: { file: "bundles/card.0123456789ab.js", hash: "0123456789ab" },
            gone: { file: "bundles/gone.0123456789ab.js", hash: "0123456789ab" },
            broken: { file: "bundles/broken.0123456789ab.js", hash: "0123456789ab" },
          }),
        },
        "http://x/static/svc/bundles/card.0123456789ab.js": { body: BUNDLE },
        "http://x/static/svc/bundles/broken.0123456789ab.js": { body: "export default (" },
      });
      const client = createSvcClient({
        manifestUrl: "/static/svc/manifest.json",
        baseUrl: "http://x/page.html",
        moduleLoading: "url",
        fetch: server.fetch,
        importUrl: async (url) => {
          if (url.endsWith("card.0123456789ab.js")) return { default: "card" };
          throw new TypeError("Failed to fetch dynamically imported module");
        },
      });
      expect((await client.load("card")).default).toBe("card");
      const gone = await client.load("gone").catch((e: unknown) => e);
      expect(gone).toBeInstanceOf(ComponentNotFoundError);
      expect((gone as Error).message).toMatch(/gone\.0123456789ab\.js → 404/);
      const broken = await client.load("broken").catch((e: unknown) => e);
      expect(broken).toBeInstanceOf(BundleLoadError);
      expect((broken as Error).message).toMatch(
        /"broken" failed to load from http:\/\/x\/static\/svc\/bundles\/broken\.0123456789ab\.js: Failed to fetch/,
      );
      expect(await client.load("nope").catch((e: unknown) => e)).toBeInstanceOf(
        ComponentNotFoundError,
      );
    });

    describe("stylesheets", () => {
      const CSS = '.card{background:url("./assets/a-AAAAAAAA.png")}';
      beforeEach(() => {
        // Constructable stylesheets, as a browser has them.
        Object.assign(globalThis, {
          CSSStyleSheet: class {
            text = "";
            replaceSync(text: string) {
              this.text = text;
            }
          },
          Document: class {
            adoptedStyleSheets = [];
          },
        });
        Object.defineProperty(globalThis.Document.prototype, "adoptedStyleSheets", {
          value: [],
          configurable: true,
        });
      });
      afterEach(() => {
        Reflect.deleteProperty(globalThis, "CSSStyleSheet");
        Reflect.deleteProperty(globalThis, "Document");
      });
      const texts = (module: ComponentModule) =>
        stylesheetsOf(module).map(({ url, sheet }) => [
          url,
          (sheet as unknown as { text: string }).text,
        ]);

      it("through the API: the stylesheets its metadata names, fetched alongside, relative to the bundle", async () => {
        const server = fakeServer({
          "/api/bundles/card/metadata": metadataRoute({
            stylesheets: ["theme-000000000000.css", "card-3f2a9c0b1d4e.css"],
          }),
          "http://x/api/bundles/theme-000000000000.css": { body: ".theme{}", type: "text/css" },
          "http://x/api/bundles/card-3f2a9c0b1d4e.css": { body: CSS, type: "text/css" },
        });
        const client = createSvcClient({
          baseUrl: "http://x/",
          moduleLoading: "url",
          fetch: server.fetch,
          importUrl: async (url) => ({ default: url }),
        });
        const module = await client.load("card");
        expect(module.default).toBe("http://x/api/bundles/card.js?url");
        expect(texts(module)).toEqual([
          ["http://x/api/bundles/theme-000000000000.css", ".theme{}"],
          [
            "http://x/api/bundles/card-3f2a9c0b1d4e.css",
            '.card{background:url("http://x/api/bundles/assets/a-AAAAAAAA.png")}',
          ],
        ]);
      });

      it("in static mode: the manifest's urlModule and css, each stylesheet checked against its integrity", async () => {
        const entry = (css: string) => ({
          file: "bundles/card.0123456789ab.js",
          hash: "0123456789ab",
          integrity: "sha384-AAAA",
          urlModule: { file: "bundles/card.ba9876543210.js", integrity: "sha384-BBBB" },
          css: [{ file: "bundles/card-3f2a9c0b1d4e.css", integrity: css }],
        });
        const server = fakeServer({
          "http://x/s/manifest.json": {
            type: "application/json",
            body: JSON.stringify({
              card: entry(await sri(CSS)),
              tampered: {
                ...entry(await sri(`${CSS}.x{}`)),
                css: [{ file: "bundles/t.css", integrity: await sri("other") }],
              },
              unvouched: { ...entry(""), css: [{ file: "bundles/card-3f2a9c0b1d4e.css" }] },
              old: {
                file: "bundles/old.0123456789ab.js",
                hash: "0123456789ab",
                css: [{ file: "bundles/card-3f2a9c0b1d4e.css" }],
              },
            }),
          },
          "http://x/s/bundles/card-3f2a9c0b1d4e.css": { body: CSS, type: "text/css" },
          "http://x/s/bundles/t.css": { body: CSS, type: "text/css" },
        });
        const imported: string[] = [];
        const client = createSvcClient({
          manifestUrl: "/s/manifest.json",
          baseUrl: "http://x/",
          moduleLoading: "url",
          fetch: server.fetch,
          importUrl: async (url) => {
            imported.push(url);
            return { default: url };
          },
        });
        const module = await client.load("card");
        expect(module.default).toBe("http://x/s/bundles/card.ba9876543210.js");
        expect(texts(module)).toEqual([
          [
            "http://x/s/bundles/card-3f2a9c0b1d4e.css",
            '.card{background:url("http://x/s/bundles/assets/a-AAAAAAAA.png")}',
          ],
        ]);
        await expect(client.load("tampered")).rejects.toBeInstanceOf(IntegrityError);
        await expect(client.load("unvouched")).rejects.toThrow(/has no integrity in the manifest/);
        // A build from before urlModule: refused before importing, saying what to do.
        const old = await client.load("old").catch((e: unknown) => e);
        expect(old).toBeInstanceOf(BundleLoadError);
        expect((old as Error).message).toMatch(
          /^Component "old" imports stylesheets, .*run svc build again, or use the default "blob" loading$/,
        );
        expect(imported).not.toContain("http://x/s/bundles/old.0123456789ab.js");
      });

      it("a bundle that still imports CSS (an older server) is refused in one line, not as a failed fetch", async () => {
        const server = fakeServer({
          "/api/bundles/card/metadata": metadataRoute(),
          "http://x/api/bundles/card.js?url": {
            body: 'import"./card-3f2a9c0b1d4e.css";export default 1;',
          },
        });
        const client = createSvcClient({
          baseUrl: "http://x/",
          moduleLoading: "url",
          fetch: server.fetch,
          importUrl: async () => {
            throw new TypeError("Failed to fetch dynamically imported module");
          },
        });
        const error = await client.load("card").catch((e: unknown) => e);
        expect(error).toBeInstanceOf(BundleLoadError);
        expect((error as Error).message).toMatch(/^Component "card" imports stylesheets, /);
        expect((error as Error).message).not.toContain("\n");
      });
    });
  });
});

describe("createSvcClient: preloading", () => {
  let saved: ModuleRegistry | undefined;
  beforeEach(() => {
    saved = globalThis.__MODULES__;
    globalThis.__MODULES__ = { react: { marker: "shared-react" } };
  });
  afterEach(() => {
    globalThis.__MODULES__ = saved;
  });

  const evaluated: string[] = [];
  const importTracked = (code: string) => {
    evaluated.push(code);
    return importData(code);
  };
  const bundle = (name: string) => withImportTable(`export default ${JSON.stringify(name)};\n`);

  it("fetches the bundles a response's Link header names at once, transitively and once each, without evaluating them", async () => {
    const server = fakeServer({
      "http://x/api/bundles/a.js": {
        body: bundle("a"),
        link: "<./b.js?bbbbbbbbbbbb>; rel=modulepreload, <./ui:c.js>; rel=modulepreload, </other/d.js>; rel=modulepreload, <./e.js>; rel=preload",
      },
      "http://x/api/bundles/b.js": {
        body: bundle("b"),
        link: "<./ui:c.js>; rel=modulepreload, <./a.js>; rel=modulepreload",
      },
      "http://x/api/bundles/ui:c.js": { body: bundle("c") },
    });
    evaluated.length = 0;
    const client = createSvcClient({
      apiBase: "http://x/api",
      fetch: server.fetch,
      importCode: importTracked,
    });
    expect((await client.load("a")).default).toBe("a");
    // a's headers named b and ui:c: both requested before a was even read, nothing else.
    expect(server.requests.slice(0, 3)).toEqual([
      "http://x/api/bundles/a.js [no-cache]",
      "http://x/api/bundles/b.js [no-cache]",
      "http://x/api/bundles/ui:c.js [no-cache]",
    ]);
    expect(evaluated).toHaveLength(1);
    expect(evaluated[0]).toContain('"a"');
    // Loading them takes the fetched code: no second request.
    expect((await client.load("b")).default).toBe("b");
    expect((await client.load("ui:c")).default).toBe("c");
    expect(server.requests).toHaveLength(3);
  });

  it("asks for the version load would (a recorded hash), not the one a Link header names", async () => {
    const server = fakeServer({
      "http://x/api/bundles/a.js": {
        body: bundle("a"),
        link: "<./b.js?old000000000>; rel=modulepreload",
      },
      "http://x/api/bundles/b.js?new000000000": { body: bundle("b") },
    });
    const client = createSvcClient({
      apiBase: "http://x/api",
      fetch: server.fetch,
      importCode: importData,
      hashes: { b: "new000000000" },
    });
    await client.load("a");
    await client.load("b");
    expect(server.requests).toEqual([
      "http://x/api/bundles/a.js [no-cache]",
      "http://x/api/bundles/b.js?new000000000",
    ]);
  });

  it("in static mode, fetches the manifest's dependencies in parallel with the bundle", async () => {
    const manifest = {
      a: { file: "bundles/a.1.js", hash: "1", dependencies: ["b", "missing"] },
      b: { file: "bundles/b.2.js", hash: "2", dependencies: ["c"] },
      c: { file: "bundles/c.3.js", hash: "3", integrity: await sri(bundle("c")) },
    };
    const server = fakeServer({
      "http://x/svc/manifest.json": { body: JSON.stringify(manifest), type: "application/json" },
      "http://x/svc/bundles/a.1.js": { body: bundle("a") },
      "http://x/svc/bundles/b.2.js": { body: bundle("b") },
      "http://x/svc/bundles/c.3.js": { body: bundle("c") },
    });
    const client = createSvcClient({
      manifestUrl: "http://x/svc/manifest.json",
      fetch: server.fetch,
      importCode: importData,
    });
    await client.load("a");
    expect(server.requests.slice(1).sort()).toEqual([
      "http://x/svc/bundles/a.1.js",
      "http://x/svc/bundles/b.2.js",
      "http://x/svc/bundles/c.3.js",
    ]);
    expect((await client.load("c")).default).toBe("c");
    expect(server.requests).toHaveLength(4);
  });

  describe('moduleLoading: "url"', () => {
    const urlClient = (
      server: ReturnType<typeof fakeServer>,
      options: { manifestUrl?: string; preload?: boolean } = {},
    ) => {
      const preloaded: string[] = [];
      const imported: string[] = [];
      const client = createSvcClient({
        baseUrl: "http://x/",
        moduleLoading: "url",
        fetch: server.fetch,
        importUrl: async (url) => {
          imported.push(url);
          return { default: url };
        },
        preloadUrl: (url, integrity) => preloaded.push(integrity ? `${url} ${integrity}` : url),
        ...options,
      });
      return { client, preloaded, imported };
    };

    it("through the API: preloads what the metadata names, transitively and once each, at the URLs load imports", async () => {
      const server = fakeServer({
        "/api/bundles/a/metadata": metadataRoute({ preload: ["b", "ui:c"] }),
        "/api/bundles/b/metadata": metadataRoute({ preload: ["ui:c", "a", "d"] }),
        "/api/bundles/ui:c/metadata": metadataRoute({ preload: ["d"] }),
        "/api/bundles/d/metadata": metadataRoute(),
      });
      const { client, preloaded, imported } = urlClient(server);
      await client.load("a");
      await new Promise((resolve) => setTimeout(resolve, 30));
      // b and ui:c from a's metadata, d from theirs; a itself is loading already.
      expect(preloaded).toEqual([
        "http://x/api/bundles/b.js?url",
        "http://x/api/bundles/ui:c.js?url",
        "http://x/api/bundles/d.js?url",
      ]);
      // What the framework layer loads before rendering a: the same URLs.
      const modules = await client.loadPreloaded("a");
      expect([...modules.keys()].sort()).toEqual(["b", "d", "ui:c"]);
      expect(imported.slice(1).sort()).toEqual(preloaded.slice().sort());
      // Their metadata was fetched once each (load took it from the cache).
      expect(server.requests.filter((r) => r.endsWith("/metadata"))).toHaveLength(4);
    });

    it("in static mode: preloads the manifest's dependencies with their integrity, transitively", async () => {
      const manifest = {
        a: { file: "bundles/a.1.js", hash: "1", dependencies: ["b", "missing"] },
        b: {
          file: "bundles/b.2.js",
          hash: "2",
          integrity: "sha384-B",
          urlModule: { file: "bundles/b.9.js", integrity: "sha384-B9" },
          dependencies: ["c", "a"],
        },
        c: { file: "bundles/c.3.js", hash: "3", integrity: "sha384-C" },
      };
      const server = fakeServer({
        "http://x/svc/manifest.json": { body: JSON.stringify(manifest), type: "application/json" },
      });
      const { client, preloaded } = urlClient(server, { manifestUrl: "/svc/manifest.json" });
      await client.load("a");
      expect(preloaded).toEqual([
        "http://x/svc/bundles/b.9.js sha384-B9",
        "http://x/svc/bundles/c.3.js sha384-C",
      ]);
      const off = urlClient(server, { manifestUrl: "/svc/manifest.json", preload: false });
      await off.client.load("a");
      expect(off.preloaded).toEqual([]);
    });
  });

  it("preloads nothing with preload: false, and a failed preload is load's to report", async () => {
    const server = fakeServer({
      "http://x/api/bundles/a.js": { body: bundle("a"), link: "<./b.js>; rel=modulepreload" },
    });
    const off = createSvcClient({
      apiBase: "http://x/api",
      fetch: server.fetch,
      importCode: importData,
      preload: false,
    });
    await off.load("a");
    expect(server.requests).toEqual(["http://x/api/bundles/a.js [no-cache]"]);
    const on = createSvcClient({
      apiBase: "http://x/api",
      fetch: server.fetch,
      importCode: importData,
    });
    await on.load("a");
    await expect(on.load("b")).rejects.toBeInstanceOf(ComponentNotFoundError);
    // Forgotten: the next load asks again.
    await expect(on.load("b")).rejects.toBeInstanceOf(ComponentNotFoundError);
    expect(server.requests.filter((r) => r.includes("/b.js"))).toHaveLength(2);
  });
});
