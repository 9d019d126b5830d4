import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ERROR_BODY_KEYS } from "@svc/protocol";
import { parse } from "es-module-lexer/minimal/js";
import { afterEach, describe, expect, it } from "vitest";
import { EXTERNALS } from "../bundling/bundler.ts";
import type { STATUS_BY_KIND } from "../errors.ts";
import { silentLogger } from "../logger.ts";
import {
  countingBundler,
  rawRequest,
  settleWrites,
  typicalComponent,
  writeTree,
} from "../test/fixtures.ts";
import { type DevServer, startDevServer } from "./startDevServer.ts";

const servers: DevServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(dir: string, extra: Parameters<typeof startDevServer>[0] = {}) {
  const server = await startDevServer({
    componentsDir: dir,
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger,
    ...extra,
  });
  servers.push(server);
  return server;
}

const baseTree = {
  ...typicalComponent("card"),
  ...typicalComponent("ui/button", "Click"),
  "zeta/index.tsx": "export default () => null;\n",
  "Bad-Name/index.tsx": "export default () => null;\n",
  "shared/util.ts": 'export const util = () => "util v1";\n',
  "uses_shared/index.tsx": 'import { util } from "../shared/util";\nexport default () => util();\n',
  "broken/index.tsx": 'export { default } from "./Impl";\n',
  "broken/Impl.tsx": "export default function Impl() {\n  const x = ;\n  return x;\n}\n",
};

function expectErrorBody(body: string, kind: keyof typeof STATUS_BY_KIND) {
  const parsed = JSON.parse(body) as Record<string, unknown>;
  expect(parsed.error).toBe(kind);
  expect(typeof parsed.message).toBe("string");
  for (const key of Object.keys(parsed)) expect(ERROR_BODY_KEYS).toContain(key);
  // `locations` only in a development BundleError (the error overlay's code frames).
  if (kind !== "BundleError") expect(parsed).not.toHaveProperty("locations");
  return parsed;
}

describe("GET /api/bundles", () => {
  it("lists components sorted by name, without invalid directory names", async () => {
    const server = await serve(writeTree(baseTree));
    const res = await fetch(`${server.url}/api/bundles`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual(
      ["broken", "card", "ui.button", "uses_shared", "zeta"].map((name) => ({ name })),
    );
  });

  it("notices a component added and one deleted while the server runs", async () => {
    const dir = writeTree(baseTree);
    const server = await serve(dir);
    expect((await fetch(`${server.url}/api/bundles/zeta.js`)).status).toBe(200);
    writeTree({ "newcomer/index.tsx": "export default () => 'new';\n" }, dir);
    rmSync(join(dir, "zeta"), { recursive: true });
    const names = (
      (await (await fetch(`${server.url}/api/bundles`)).json()) as { name: string }[]
    ).map((e) => e.name);
    expect(names).toContain("newcomer");
    expect(names).not.toContain("zeta");
    const gone = await fetch(`${server.url}/api/bundles/zeta.js`);
    expect(gone.status).toBe(404);
    expectErrorBody(await gone.text(), "ComponentNotFound");
    expect((await fetch(`${server.url}/api/bundles/newcomer.js`)).status).toBe(200);
  });
});

describe("GET /api/bundles/<name>.js", () => {
  it("answers ESM with the documented headers, importing only the shared modules", async () => {
    const server = await serve(writeTree(baseTree));
    const res = await fetch(`${server.url}/api/bundles/ui.button.js`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/javascript; charset=utf-8");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    // Only the URL naming this very version may be cached for good; any other revalidates.
    const hash = res.headers.get("etag")?.replaceAll('"', "");
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const pinned = await fetch(`${server.url}/api/bundles/ui.button.js?${hash}`);
    expect(pinned.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    const stale = await fetch(`${server.url}/api/bundles/ui.button.js?abc123abc123`);
    expect(stale.headers.get("cache-control")).toBe("no-cache");
    expect(await stale.text()).toBe(await pinned.text());
    const body = await res.text();
    const [imports, exports] = parse(body);
    for (const i of imports) expect(EXTERNALS).toContain(i.n);
    expect(exports.map((e) => e.n)).toContain("default");
    const map = /sourceMappingURL=data:application\/json;base64,(.+)\n$/.exec(body)?.[1] ?? "";
    const sources = (JSON.parse(Buffer.from(map, "base64").toString()) as { sources: string[] })
      .sources;
    expect(sources.length).toBeGreaterThan(0);
    for (const s of sources) expect(s.startsWith("component://ui.button/")).toBe(true);

    const etag = res.headers.get("etag");
    expect(etag).toMatch(/^"[0-9a-f]{12}"$/);
    const again = await fetch(`${server.url}/api/bundles/ui.button.js`, {
      headers: { "if-none-match": etag ?? "" },
    });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe("");
  });

  it("answers 404 ComponentNotFound for an unknown name", async () => {
    const server = await serve(writeTree(baseTree));
    const res = await fetch(`${server.url}/api/bundles/missing.js`);
    expect(res.status).toBe(404);
    expect(expectErrorBody(await res.text(), "ComponentNotFound").name).toBe("missing");
  });

  const malformed = [
    "..",
    "a..b",
    ".a",
    "a/b",
    "%2e%2e",
    "a:b:c",
    "a".repeat(1000),
    "a%00b",
    "%zz",
    "a%2fb",
    "%252e%252e",
  ];
  it.each(malformed)(
    "answers 422 InvalidComponentName for %s (bundle and metadata)",
    async (name) => {
      const server = await serve(writeTree(baseTree));
      for (const path of [`/api/bundles/${name}.js`, `/api/bundles/${name}/metadata`]) {
        const res = await rawRequest(server.url, path);
        expect(res.status, path).toBe(422);
        expectErrorBody(res.body, "InvalidComponentName");
      }
    },
  );

  it("answers 500 BundleError naming the file, line and column relative to the component", async () => {
    const dir = writeTree(baseTree);
    const server = await serve(dir);
    const res = await fetch(`${server.url}/api/bundles/broken.js`);
    expect(res.status).toBe(500);
    const body = expectErrorBody(await res.text(), "BundleError");
    expect(body.name).toBe("broken");
    expect(body.message).toMatch(/Impl\.tsx:2:\d+: /);
    expect(body.message).not.toContain(dir);
    expect(body.locations).toMatchObject([{ file: "Impl.tsx", line: 2 }]);
    expect(JSON.stringify(body.locations)).toContain("const x = ;");
    expect(JSON.stringify(body.locations)).not.toContain(dir);
  });

  it("answers 405 for methods other than GET and HEAD", async () => {
    const server = await serve(writeTree(baseTree));
    const res = await fetch(`${server.url}/api/bundles/card.js`, { method: "POST" });
    expect(res.status).toBe(405);
    expectErrorBody(await res.text(), "MethodNotAllowed");
    const head = await fetch(`${server.url}/api/bundles/card.js`, { method: "HEAD" });
    expect(head.status).toBe(200);
  });

  it("runs esbuild once for 50 concurrent requests to a cold component, all getting the same bytes", async () => {
    const bundler = countingBundler();
    const server = await serve(writeTree(baseTree), { bundler });
    settleWrites(); // a build of just-written files is not cached (racy); this test is about sharing
    const bodies = await Promise.all(
      Array.from({ length: 50 }, () =>
        fetch(`${server.url}/api/bundles/card.js`).then((r) => r.text()),
      ),
    );
    expect(bundler.builds).toBe(1);
    expect(new Set(bodies).size).toBe(1);
  });
});

describe("GET /api/bundles/<name>/metadata", () => {
  it("answers the metadata record with the bundle's hash, no-cache and ETag/304", async () => {
    const bundler = countingBundler();
    const server = await serve(writeTree(baseTree), { bundler });
    settleWrites();
    const bundle = await fetch(`${server.url}/api/bundles/card.js`);
    const res = await fetch(`${server.url}/api/bundles/card/metadata`);
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-cache");
    const metadata = (await res.json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({
      name: "card",
      title: "The card",
      version: "1.2.3",
      props: { type: "object", properties: { who: { type: "string", default: "world" } } },
      properties: { who: { type: "string", default: "world" } },
      hash: bundle.headers.get("etag")?.slice(1, -1),
    });
    expect(bundler.builds).toBe(1);
    const again = await fetch(`${server.url}/api/bundles/card/metadata`, {
      headers: { "if-none-match": res.headers.get("etag") ?? "" },
    });
    expect(again.status).toBe(304);
  });

  it("answers minimal metadata without schema.json and a clear 500 for an invalid one", async () => {
    const dir = writeTree({
      ...baseTree,
      "bad_schema/index.tsx": "export default () => null;\n",
      "bad_schema/schema.json": "{ nope",
    });
    const server = await serve(dir);
    expect(await (await fetch(`${server.url}/api/bundles/zeta/metadata`)).json()).toMatchObject({
      title: "zeta",
      description: "",
      props: {},
    });
    const bad = await fetch(`${server.url}/api/bundles/bad_schema/metadata`);
    expect(bad.status).toBe(500);
    const body = expectErrorBody(await bad.text(), "InvalidSchema");
    expect(body.message).toMatch(/^bad_schema\/schema\.json: is not valid JSON/);
  });
});

describe("freshness and hashes", () => {
  it("changes bundle and hash after edits to a sibling file, a shared helper and schema.json", async () => {
    const dir = writeTree(baseTree);
    const server = await serve(dir);
    const hashOf = async (name: string) =>
      (await (await fetch(`${server.url}/api/bundles/${name}/metadata`)).json()) as {
        hash: string;
        title: string;
      };

    const card1 = await hashOf("card");
    writeFileSync(join(dir, "card/label.ts"), "export const label = (t: string) => `~${t}~`;\n");
    const card2 = await hashOf("card");
    expect(card2.hash).not.toBe(card1.hash);
    expect(await (await fetch(`${server.url}/api/bundles/card.js`)).text()).toContain("`~${t}~`");

    const shared1 = await hashOf("uses_shared");
    writeFileSync(join(dir, "shared/util.ts"), 'export const util = () => "util v2";\n');
    const shared2 = await hashOf("uses_shared");
    expect(shared2.hash).not.toBe(shared1.hash);

    writeFileSync(join(dir, "card/schema.json"), JSON.stringify({ title: "Renamed card" }));
    expect((await hashOf("card")).title).toBe("Renamed card");
  });

  it("keeps hashes across restarts and across copies of the sources in different directories", async () => {
    const dirA = writeTree(baseTree);
    const dirB = mkdtempSync(join(tmpdir(), "svc-copy-"));
    cpSync(dirA, dirB, { recursive: true });
    try {
      const hashes = async (dir: string) => {
        const server = await serve(dir);
        const result = await Promise.all(
          ["card", "ui.button", "uses_shared"].map(async (n) =>
            (await fetch(`${server.url}/api/bundles/${n}.js`)).headers.get("etag"),
          ),
        );
        await server.close();
        return result;
      };
      const first = await hashes(dirA);
      expect(await hashes(dirA)).toEqual(first);
      expect(await hashes(dirB)).toEqual(first);
    } finally {
      rmSync(dirB, { recursive: true, force: true });
    }
  });
});

describe("CORS", () => {
  it("allows GET from the default dev origin only", async () => {
    const server = await serve(writeTree(baseTree));
    const allowed = await fetch(`${server.url}/api/bundles`, {
      headers: { origin: "http://localhost:5173" },
    });
    expect(allowed.headers.get("access-control-allow-origin")).toBe("http://localhost:5173");
    const other = await fetch(`${server.url}/api/bundles`, {
      headers: { origin: "http://evil.example" },
    });
    expect(other.headers.get("access-control-allow-origin")).toBeNull();

    const preflight = await fetch(`${server.url}/api/bundles/card.js`, {
      method: "OPTIONS",
      headers: {
        origin: "http://localhost:5173",
        "access-control-request-method": "GET",
        "access-control-request-headers": "x-custom",
      },
    });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get("access-control-allow-methods")).toBe("GET, HEAD");
    expect(preflight.headers.get("access-control-allow-headers")).toBe("x-custom");
    const denied = await fetch(`${server.url}/api/bundles/card.js`, {
      method: "OPTIONS",
      headers: { origin: "http://evil.example", "access-control-request-method": "GET" },
    });
    expect(denied.headers.get("access-control-allow-origin")).toBeNull();
    expect(denied.headers.get("access-control-allow-methods")).toBeNull();
  });

  it("uses the configured origins instead of the default", async () => {
    const server = await serve(writeTree(baseTree), { corsOrigins: ["https://app.example"] });
    const res = await fetch(`${server.url}/api/bundles`, {
      headers: { origin: "https://app.example" },
    });
    expect(res.headers.get("access-control-allow-origin")).toBe("https://app.example");
    const dev = await fetch(`${server.url}/api/bundles`, {
      headers: { origin: "http://localhost:5173" },
    });
    expect(dev.headers.get("access-control-allow-origin")).toBeNull();
  });
});

describe("a dev server that cannot be turned against you", () => {
  it("answers 403 HostNotAllowed to a Host it was not told, on the API and the playground alike", async () => {
    const server = await serve(writeTree(baseTree), { allowedHosts: ["svc.test"] });
    const asHost = (path: string, host: string) =>
      rawRequest(server.url, path, { headers: { host } });
    for (const path of [
      "/api/bundles",
      "/api/bundles/card.js",
      "/",
      "/svc/loader.js",
      "/nothing",
    ]) {
      const refused = await asHost(path, "rebound.attacker.example");
      expect([path, refused.status]).toEqual([path, 403]);
      expectErrorBody(refused.body, "HostNotAllowed");
      expect(refused.body).not.toContain("export default"); // no source leaves
    }
    for (const host of [
      "localhost:8000",
      "127.0.0.1:8000",
      "[::1]:8000",
      "svc.test:8000",
      "app.localhost",
    ]) {
      expect([host, (await asHost("/api/bundles", host)).status]).toEqual([host, 200]);
    }
  });

  it("sends X-Content-Type-Options: nosniff with every answer, its own 404s and the playground's files included", async () => {
    const server = await serve(writeTree(baseTree));
    const page = await fetch(`${server.url}/`);
    const html = await page.text();
    const asset = /\/svc\/playground\/[^"]+\.js/.exec(html)?.[0];
    expect(asset).toBeDefined();
    // The playground's own files, not the API's (which answers the rest of /svc/).
    const script = await fetch(`${server.url}${asset}`);
    expect([script.status, script.headers.get("content-type")]).toEqual([
      200,
      expect.stringMatching(/javascript/),
    ]);
    await script.arrayBuffer();
    const api = await fetch(`${server.url}/svc/bundles`);
    expect([api.status, await api.json()]).toEqual([200, expect.any(Array)]);
    const paths = [
      "/",
      asset as string,
      "/svc/playground/missing.js",
      "/svc/loader.js",
      "/svc/loader.dev.js",
      "/api/bundles",
      "/api/bundles/card.js",
      "/api/bundles/missing.js",
      "/api/nothing",
      "/nothing/at/all",
    ];
    for (const path of paths) {
      const res = await fetch(`${server.url}${path}`);
      await res.arrayBuffer();
      expect([path, res.headers.get("x-content-type-options")]).toEqual([path, "nosniff"]);
    }
  });

  it("keeps its bounds on slow and many clients by default: 10 s for a request, 4096 connections", async () => {
    const { server } = await serve(writeTree(baseTree));
    expect({
      headersTimeout: server.headersTimeout,
      requestTimeout: server.requestTimeout,
      maxConnections: server.maxConnections,
    }).toEqual({ headersTimeout: 10_000, requestTimeout: 10_000, maxConnections: 4096 });
  });

  it("refuses bounds that would refuse every client, saying which", async () => {
    const dir = writeTree(baseTree);
    await expect(serve(dir, { maxConnectionsPerAddress: 0 })).rejects.toThrow(
      /maxConnectionsPerAddress must be a whole number of connections, 1 or more, or Infinity \(got 0\)/,
    );
    await expect(serve(dir, { maxEventClients: 0.5 })).rejects.toThrow(
      /maxEventClients must be a whole number of clients, 1 or more, or Infinity/,
    );
  });

  it("cuts slow-header connections off and never holds more connections than its limit", async () => {
    const server = await serve(writeTree(baseTree), { headersTimeoutMs: 400, maxConnections: 8 });
    const { port } = new URL(server.url);
    const started = performance.now();
    const sockets = await Promise.all(
      Array.from({ length: 20 }, async () => {
        const socket = connect(Number(port), "127.0.0.1");
        const closed = new Promise<number>((resolve) =>
          socket.once("close", () => resolve(performance.now())),
        );
        socket.on("error", () => {});
        socket.resume(); // read what the server sends (its 408), so the close is seen
        socket.once("connect", () =>
          socket.write("GET /api/bundles HTTP/1.1\r\nHost: localhost\r\nX-Slow: "),
        );
        return { socket, closed };
      }),
    );
    // Past the limit, connections are dropped at once; the rest when their headers time out.
    const closedAt = await Promise.all(sockets.map((s) => s.closed));
    const early = closedAt.filter((t) => t - started < 300).length;
    expect(early).toBeGreaterThanOrEqual(20 - 8);
    expect(Math.max(...closedAt) - started).toBeLessThan(5_000);
    const after = await fetch(`${server.url}/api/bundles`);
    expect(after.status).toBe(200);
  });
});
