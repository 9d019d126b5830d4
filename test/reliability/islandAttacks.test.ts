/**
 * The islands endpoint under attack and misuse, over real HTTP: a component's own `<Suspense>`
 * on every render path (alone, in a batch, in svc's tree, in a worker) in development and from
 * a build; props that try to slip past `schema.json` (`__proto__`, `constructor`, extra keys,
 * `1e309`, deep nesting); schemas with `$ref`. No server detail may ever reach island HTML.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { build } from "../../packages/server/src/build/build.ts";
import { ComponentRegistry } from "../../packages/server/src/components/componentRegistry.ts";
import { silentLogger } from "../../packages/server/src/logger.ts";
import { cn, writeTree } from "../../packages/server/src/test/fixtures.ts";
import { createNodeHandler, type NodeHandler } from "../../packages/server/src/transports/node.ts";

/** What a secret in a component's error looks like: it must never reach a page. */
const SECRET = "connect failed: postgres://admin:hunter2@db.internal/prod";

const COMPONENTS = {
  // Its own boundary around a child that throws, waits, waits forever or renders at once.
  "guarded/index.tsx": `import { Suspense, use } from "react";
const waits = new Map<string, Promise<string>>();
function wait(key: string, ms: number | undefined): Promise<string> {
  let promise = waits.get(key);
  if (promise === undefined) {
    promise = new Promise((resolve) => { if (ms !== undefined) setTimeout(() => resolve("arrived " + key), ms); });
    waits.set(key, promise);
  }
  return promise;
}
function Child({ mode, id }: { mode: string; id: string }) {
  if (mode === "throw") throw new Error(${JSON.stringify(SECRET)});
  if (mode === "slow") return <b>{use(wait(id, 300))}</b>;
  if (mode === "forever") return <b>{use(wait(id, undefined))}</b>;
  return <b>ready {id}</b>;
}
export default function Guarded({ mode = "ok", id = "" }: { mode?: string; id?: string }) {
  return <div className="guarded"><Suspense fallback={<i>fallback</i>}><Child mode={mode} id={id} /></Suspense></div>;
}
`,
  "guarded/schema.json": JSON.stringify({
    type: "object",
    properties: {
      mode: { enum: ["ok", "throw", "slow", "forever"] },
      id: { type: "string" },
    },
  }),
  // The same inside svc's tree: it loads "guarded" with useComponent.
  "outer/index.tsx": `import { useComponent } from "@svc/react";
export default function Outer({ mode = "ok", id = "" }: { mode?: string; id?: string }) {
  const Guarded = useComponent<{ mode: string; id: string }>("guarded");
  return <section><Guarded mode={mode} id={id} /></section>;
}
`,
  "admin/index.tsx": `export default function Admin(props: { isAdmin?: unknown; text?: unknown }) {
  return <p>admin={String(props.isAdmin)} text={String(props.text)} keys={Object.keys(props).join(",")}</p>;
}
`,
  "admin/schema.json": JSON.stringify({
    type: "object",
    properties: { isAdmin: { type: "boolean" }, text: { type: "string" } },
  }),
  // Keys named after Object.prototype members are plain props.
  "protos/index.tsx": `export default function Protos(props: Record<string, unknown>) {
  return <p>{Object.keys(props).sort().map((k) => k + "=" + String(props[k])).join(" ")}</p>;
}
`,
  "protos/schema.json": JSON.stringify({
    type: "object",
    properties: { constructor: { type: "string" }, toString: { type: "string" } },
    required: ["constructor"],
  }),
  "priced/index.tsx": `export default function Priced({ price, item }: { price: number; item?: { sku: string } }) {
  return <p>{item?.sku ?? "none"} at {price}</p>;
}
`,
  "priced/schema.json": JSON.stringify({
    type: "object",
    $defs: {
      price: { type: "number", minimum: 0 },
      item: {
        type: "object",
        properties: { sku: { type: "string" } },
        additionalProperties: false,
      },
    },
    properties: { price: { $ref: "#/$defs/price" }, item: { $ref: "#/$defs/item" } },
    required: ["price"],
    additionalProperties: false,
  }),
  "free/index.tsx": `export default function Free(props: Record<string, unknown>) {
  return <p>{JSON.stringify(props).length}</p>;
}
`,
};

interface Answer {
  status: number;
  type: string;
  text: string;
  ms: number;
}

interface Server_ {
  base: string;
  handler: NodeHandler;
  close(): Promise<void>;
}

async function serve(
  options: NonNullable<Parameters<typeof createNodeHandler>[1]> & { registry: ComponentRegistry },
): Promise<Server_> {
  const { registry, ...rest } = options;
  const handler = createNodeHandler(registry, {
    logger: silentLogger,
    live: false,
    renderTimeoutMs: 1500,
    ...rest,
  });
  const server: Server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    base: `http://127.0.0.1:${port}`,
    handler,
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await handler.close?.();
    },
  };
}

async function post(
  base: string,
  name: string,
  body: string,
  type = "application/json",
): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${base}/bundles/${name}/html`, {
    method: "POST",
    headers: { "content-type": type },
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get("content-type") ?? "",
    text,
    ms: performance.now() - started,
  };
}

/** Nothing of the server in an answer: no React error template, no secret, no local path. */
function expectNoServerDetail(answer: Answer, dir: string): void {
  expect(answer.text).not.toContain("data-msg");
  expect(answer.text).not.toContain("data-stck");
  expect(answer.text).not.toContain("data-dgst");
  expect(answer.text).not.toContain(dir);
  expect(answer.text).not.toContain(process.cwd());
  expect(answer.text).not.toContain("node_modules");
  if (answer.type.startsWith("text/html")) expect(answer.text).not.toContain("hunter2");
}

const ISOLATIONS = [
  ["in the server's thread", { renderIsolation: "none" }],
  ["in a worker", { renderIsolation: "worker" }],
] as const;

const MODES = ["development", "a build"] as const;

describe.each(ISOLATIONS)("a component's own <Suspense>, rendered %s", (_label, isolation) => {
  describe.each(MODES)("from %s", (mode) => {
    let dir: string;
    let server: Server_;
    beforeAll(async () => {
      dir = writeTree(COMPONENTS);
      const registry = new ComponentRegistry(dir, { logger: silentLogger });
      let buildDir: string | undefined;
      if (mode === "a build") {
        buildDir = join(writeTree({}), "build");
        await build({ registry, outDir: buildDir });
      }
      server = await serve({ registry, buildDir, ...isolation });
    });
    afterAll(() => server.close());

    // Each path: the component alone, and inside svc's tree (useComponent).
    for (const name of ["guarded", "outer"]) {
      it(`${name}: a throw inside it is 500 RenderError, its stack in the JSON only`, async () => {
        // Warm first, so the fast path that renders a component alone is the one taken.
        expect((await post(server.base, name, `{"mode":"ok","id":"w"}`)).status).toBe(200);
        const answer = await post(server.base, name, `{"mode":"throw"}`);
        expect(answer.status).toBe(500);
        expect(answer.type).toMatch(/^application\/json/);
        const body = JSON.parse(answer.text) as { error: string; message: string };
        expect(body.error).toBe("RenderError");
        expect(body.message).toContain(SECRET);
        // Frames of the component's own files only, never a path of this machine.
        for (const line of body.message.split("\n").slice(1))
          expect(line).toContain("component://");
        expectNoServerDetail(answer, dir);
      });

      it(`${name}: a child that waits is awaited: its content, not the fallback`, async () => {
        const answer = await post(server.base, name, `{"mode":"slow","id":"${name}-${mode}"}`);
        expect(answer.status).toBe(200);
        expect(answer.text).toContain(`arrived ${name}-${mode}`);
        expect(answer.text).not.toContain("fallback");
        expect(answer.ms).toBeGreaterThanOrEqual(250);
        expectNoServerDetail(answer, dir);
      });

      it(`${name}: a child that waits forever is 500 RenderTimeout within the limit`, async () => {
        const answer = await post(server.base, name, `{"mode":"forever","id":"${name}"}`);
        expect(answer.status).toBe(500);
        expect(JSON.parse(answer.text)).toMatchObject({ error: "RenderTimeout" });
        expect(answer.ms).toBeLessThan(1500 + 1000 + 500);
        expectNoServerDetail(answer, dir);
      });
    }

    it("in a batch (islands asked for together), the one that throws fails alone", async () => {
      // Rendered alone once, so the version may join a batch.
      await server.handler.island(cn("guarded"), { mode: "ok", id: "a" });
      const results = await Promise.allSettled([
        server.handler.island(cn("guarded"), { mode: "ok", id: "b1" }),
        server.handler.island(cn("guarded"), { mode: "ok", id: "b2" }),
        server.handler.island(cn("guarded"), { mode: "throw" }),
        server.handler.island(cn("guarded"), { mode: "ok", id: "b3" }),
      ]);
      expect(results.map((r) => r.status)).toEqual([
        "fulfilled",
        "fulfilled",
        "rejected",
        "fulfilled",
      ]);
      for (const result of results) {
        if (result.status === "fulfilled") {
          expect(result.value).toMatch(/ready (<!-- -->)?b\d/);
          expect(result.value).not.toMatch(/data-msg|data-stck|data-dgst|<!--\$!-->/);
        }
      }
      expect((results[2] as PromiseRejectedResult).reason).toMatchObject({ kind: "RenderError" });
    });
  });
});

describe("props that try to slip past schema.json", () => {
  let dir: string;
  const servers: Server_[] = [];
  beforeAll(async () => {
    dir = writeTree(COMPONENTS);
    const registry = new ComponentRegistry(dir, { logger: silentLogger });
    servers.push(await serve({ registry }));
    servers.push(await serve({ registry, renderIsolation: "worker" }));
  });
  afterAll(() => Promise.all(servers.map((s) => s.close())));
  const each = async (check: (server: Server_) => Promise<void>) => {
    for (const server of servers) await check(server);
  };

  it("__proto__ is no way around the schema: 422, nothing rendered", () =>
    each(async ({ base }) => {
      const answer = await post(
        base,
        "admin",
        `{"__proto__":{"isAdmin":"yes-string","text":"INJ"}}`,
      );
      expect(answer.status).toBe(422);
      expect(JSON.parse(answer.text)).toMatchObject({ error: "InvalidProps", name: "admin" });
      expect(answer.text).toContain("__proto__");
      // The same values as plain props are refused for what they are.
      const plain = await post(base, "admin", `{"isAdmin":"yes-string"}`);
      expect(plain.status).toBe(422);
      expect(plain.text).toContain("isAdmin");
    }));

  it("__proto__ nested in a prop stays a plain key, checked as any other", () =>
    each(async ({ base }) => {
      const refused = await post(base, "priced", `{"price":1,"item":{"__proto__":{"sku":"x"}}}`);
      expect(refused.status).toBe(422);
      const kept = await post(base, "free", `{"a":{"__proto__":{"b":1}}}`);
      expect(kept.status).toBe(200);
      // The component got the key as data (its JSON is as long as the body's).
      expect(kept.text).toContain(`<p>${`{"a":{"__proto__":{"b":1}}}`.length}</p>`);
      expect(kept.text).toContain(`data-svc-props='{"a":{"__proto__":{"b":1}}}'`);
    }));

  it("constructor and toString are props like any other", () =>
    each(async ({ base }) => {
      const given = await post(base, "protos", `{"constructor":"c","toString":"t"}`);
      expect(given.status).toBe(200);
      expect(given.text).toContain("<p>constructor=c toString=t</p>");
      // Required means given, not inherited from Object.prototype.
      const missing = await post(base, "protos", `{"toString":"t"}`);
      expect(missing.status).toBe(422);
      expect(missing.text).toContain("constructor");
      const wrong = await post(base, "protos", `{"constructor":5}`);
      expect(wrong.status).toBe(422);
    }));

  it("additionalProperties: false refuses a key the schema does not list", () =>
    each(async ({ base }) => {
      const answer = await post(base, "priced", `{"price":3,"discount":true}`);
      expect(answer.status).toBe(422);
      expect(answer.text).toContain("discount");
      expect((await post(base, "priced", `{"price":3}`)).status).toBe(200);
    }));

  it("$ref to #/$defs validates: good props render, bad ones are 422, never a 500", () =>
    each(async ({ base }) => {
      const good = await post(base, "priced", `{"price":3,"item":{"sku":"A1"}}`);
      expect(good.status).toBe(200);
      expect(good.text).toMatch(/A1(<!-- -->)? at (<!-- -->)?3/);
      const negative = await post(base, "priced", `{"price":-1}`);
      expect(negative.status).toBe(422);
      expect(negative.text).toContain("price");
      const extra = await post(base, "priced", `{"price":1,"item":{"sku":"A","x":1}}`);
      expect(extra.status).toBe(422);
    }));

  it("1e309 (Infinity once parsed) is 422: the HTML and data-svc-props would disagree", () =>
    each(async ({ base }) => {
      const answer = await post(base, "priced", `{"price":1e309}`);
      expect(answer.status).toBe(422);
      expect(answer.text).toContain("finite");
      const nested = await post(base, "free", `{"a":[1,-1e999]}`);
      expect(nested.status).toBe(422);
    }));

  it("JSON nested 100,000 deep is 400 InvalidProps before anything runs, on every isolation", () =>
    each(async ({ base }) => {
      const deep = `{"a":${"[".repeat(100_000)}${"]".repeat(100_000)}}`;
      const answer = await post(base, "free", deep);
      expect(answer.status).toBe(400);
      expect(JSON.parse(answer.text)).toMatchObject({ error: "InvalidProps" });
      expect(answer.text).toContain("deeper than 64");
      // Just inside the bound renders.
      const fine = `{"a":${"[".repeat(62)}${"]".repeat(62)}}`;
      expect((await post(base, "free", fine)).status).toBe(200);
      // And the server is still there.
      expect((await post(base, "free", "{}")).status).toBe(200);
    }));

  it("a schema with a $ref outside its file is an InvalidSchema error naming the file", async () => {
    const broken = writeTree({
      "ext/index.tsx": "export default function Ext() { return <p>x</p>; }\n",
      "ext/schema.json": JSON.stringify({ properties: { a: { $ref: "../shared.json" } } }),
      "dangling/index.tsx": "export default function D() { return <p>x</p>; }\n",
      "dangling/schema.json": JSON.stringify({ properties: { a: { $ref: "#/$defs/none" } } }),
    });
    const server = await serve({
      registry: new ComponentRegistry(broken, { logger: silentLogger }),
    });
    try {
      for (const [name, problem] of [
        ["ext", "points outside schema.json"],
        ["dangling", "points at nothing"],
      ] as const) {
        const answer = await post(server.base, name, "{}");
        expect(answer.status).toBe(500);
        const body = JSON.parse(answer.text) as { error: string; message: string };
        expect(body.error).toBe("InvalidSchema");
        expect(body.message).toContain(`${name}/schema.json`);
        expect(body.message).toContain(problem);
      }
    } finally {
      await server.close();
    }
  });
});
