/**
 * Islands in the app's own pages: every bridge hands its routes a way to render one (Express
 * `res.locals.svc`, Koa `ctx.state.svc`, Hono `c.get("svc")`, Nest's injectable `SvcIslands`,
 * Fastify and the rest through `createIslands` or the handler's own `island`), on the bridge's
 * handler set. A real server of each framework renders a page with an island in it, a failed
 * render reaching the page's route as an `SvcError` with its kind.
 */
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { afterAll, describe, expect, it } from "vitest";
import { svcExpress } from "../../packages/server/src/transports/express.ts";
import { svcFastify } from "../../packages/server/src/transports/fastify.ts";
import { svcHono } from "../../packages/server/src/transports/hono.ts";
import { svcKoa } from "../../packages/server/src/transports/koa.ts";
import type { SvcIslands as NestIslands } from "../../packages/server/src/transports/nest.ts";
import { listenNode, type Running, runningNode } from "./drivers/driver.ts";
import { importNest } from "./drivers/nest.ts";
import { createFixture } from "./fixture.ts";
import { send } from "./suite.ts";
import {
  createFetchHandler,
  createHandlers,
  createIslands,
  createNodeHandler,
  type Handlers,
  isSvcError,
  type SvcIslands,
  silentLogger,
} from "./svc.ts";

const fx = createFixture();
const options = { logger: silentLogger, live: false, renderTimeoutMs: 2000 } as const;

/** The page every app serves at `/page?name=…&who=…`: the island, or the error's kind. */
async function page(islands: SvcIslands, url: string): Promise<{ status: number; body: string }> {
  const query = new URL(url, "http://page").searchParams;
  const name = query.get("name") ?? "greeting";
  try {
    const island = await islands.island(
      name,
      { who: query.get("who") ?? "world" },
      {
        hydrate: "visible",
      },
    );
    return { status: 200, body: `<!doctype html><main>${island}</main>` };
  } catch (error) {
    return { status: 500, body: isSvcError(error) ? `failed: ${error.kind}` : "failed: ?" };
  }
}

interface App {
  name: string;
  start(): Promise<Running>;
}

const apps: App[] = [
  {
    name: "express: res.locals.svc",
    async start() {
      const express = (await import("express")).default;
      const app = express();
      const svc = svcExpress(fx.registry(), options);
      app.use("/api", svc);
      app.use(svc.locals);
      app.get("/page", async (req, res) => {
        const { status, body } = await page(res.locals.svc, req.url);
        res.status(status).type("html").send(body);
      });
      return listenNode(app);
    },
  },
  {
    name: "koa: ctx.state.svc",
    async start() {
      const Koa = (await import("koa")).default;
      const app = new Koa();
      app.use(svcKoa(fx.registry(), { ...options, prefix: "/api" }));
      app.use(async (ctx) => {
        const { status, body } = await page(ctx.state.svc, ctx.url);
        ctx.status = status;
        ctx.type = "html";
        ctx.body = body;
      });
      return listenNode(app.callback());
    },
  },
  {
    name: 'hono: c.get("svc")',
    async start() {
      const svc = svcHono(fx.registry(), options);
      const app = new Hono<{ Variables: { svc: SvcIslands } }>();
      app.use("/api/*", svc);
      app.use(svc.locals);
      app.get("/page", async (c) => {
        const { status, body } = await page(c.get("svc"), c.req.url);
        return c.html(body, status as 200 | 500);
      });
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
      });
      return runningNode(server as Server);
    },
  },
  {
    name: "fastify: createIslands on the plugin's handler set",
    async start() {
      const fastify = (await import("fastify")).default;
      const app = fastify();
      const handlers = createHandlers(fx.registry(), options);
      await app.register(svcFastify, { prefix: "/api", handlers, ...options });
      const islands = createIslands(handlers);
      app.get("/page", async (request, reply) => {
        const { status, body } = await page(islands, request.url);
        return reply.code(status).type("text/html").send(body);
      });
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      return { url, close: () => app.close() };
    },
  },
  {
    name: "nest: the injectable SvcIslands",
    async start() {
      const { Controller, Get, Inject, Module, Req, Res } =
        await importNest<typeof import("@nestjs/common")>("@nestjs/common");
      const { NestFactory, RouterModule } =
        await importNest<typeof import("@nestjs/core")>("@nestjs/core");
      const { SvcIslands: Islands, SvcModule } = await import(
        "../../packages/server/src/transports/nest.ts"
      );
      class PageController {
        readonly svc: NestIslands;
        constructor(svc: NestIslands) {
          this.svc = svc;
        }
        async page(
          req: { url: string },
          res: { status(n: number): { type(t: string): { send(b: string): void } } },
        ) {
          const { status, body } = await page(this.svc, req.url);
          res.status(status).type("html").send(body);
        }
      }
      Controller()(PageController);
      Inject(Islands)(PageController, undefined, 0);
      Req()(PageController.prototype, "page", 0);
      Res()(PageController.prototype, "page", 1);
      const descriptor = Object.getOwnPropertyDescriptor(PageController.prototype, "page");
      Get("page")(PageController.prototype, "page", descriptor as PropertyDescriptor);
      // The page lives in a feature module of its own: SvcModule is global.
      class PagesModule {}
      Module({ controllers: [PageController] })(PagesModule);
      class AppModule {}
      Module({
        imports: [
          SvcModule.forRoot({ registry: fx.registry(), ...options }),
          RouterModule.register([{ path: "api", module: SvcModule }]),
          PagesModule,
        ],
      })(AppModule);
      const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
      await app.listen(0, "127.0.0.1");
      const { port } = app.getHttpServer().address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  },
  {
    name: "node: the listener's island",
    async start() {
      const handler = createNodeHandler(fx.registry(), { ...options, prefix: "/api" });
      return listenNode((req, res) =>
        handler(req, res, async () => {
          const { status, body } = await page(handler, req.url ?? "/");
          res.writeHead(status, { "content-type": "text/html" }).end(body);
        }),
      );
    },
  },
  {
    name: "fetch: the handler's island",
    async start() {
      const handler = createFetchHandler(fx.registry(), { ...options, prefix: "/api" });
      return listenNode(async (req, res) => {
        if (req.url?.startsWith("/api/")) {
          const response = await handler(new Request(`http://x${req.url}`));
          response.headers.forEach((value, key) => {
            res.setHeader(key, value);
          });
          res.statusCode = response.status;
          res.end(Buffer.from(await response.arrayBuffer()));
          return;
        }
        const { status, body } = await page(handler, req.url ?? "/");
        res.writeHead(status, { "content-type": "text/html" }).end(body);
      });
    },
  },
];

describe.each(apps)("$name", (app) => {
  let running: Running;
  afterAll(() => running?.close());

  it("renders an island in the app's page, with the hash of the bundle svc serves", async () => {
    running = await app.start();
    const answer = await send(running.url, "/page?who=%3Cb%3EAda%3C%2Fb%3E");
    const html = answer.body.toString();
    expect(answer.status).toBe(200);
    expect(html).toContain("<p>Hello, <!-- -->&lt;b&gt;Ada&lt;/b&gt;<!-- --> <!-- -->0</p>");
    expect(html).toMatch(/^<!doctype html><main><div data-svc-component="greeting" /);
    expect(html).toContain('data-svc-hydrate="visible"');
    const bundle = await send(running.url, "/api/bundles/greeting.js");
    expect(bundle.status).toBe(200);
    const hash = /data-svc-hash="([0-9a-f]+)"/.exec(html)?.[1];
    expect(bundle.headers.etag).toBe(`"${hash}"`);
  });

  it("hands a failed render to the page's route as an SvcError with its kind", async () => {
    running ??= await app.start();
    const kinds = await Promise.all(
      ["thrower", "missing", "Not A Name", "broken"].map(async (name) => {
        const answer = await send(running.url, `/page?name=${encodeURIComponent(name)}`);
        return `${answer.status} ${answer.body.toString()}`;
      }),
    );
    expect(kinds).toEqual([
      "500 failed: RenderError",
      "500 failed: ComponentNotFound",
      "500 failed: InvalidComponentName",
      "500 failed: BundleError",
    ]);
  });
});

describe("createIslands", () => {
  it("rejects (never throws) for a bad name, so a template's await sees it", () => {
    const islands = createIslands(createHandlers(fx.registry(), options) as Handlers);
    const result = islands.island("../etc/passwd");
    expect(result).toBeInstanceOf(Promise);
    return expect(result).rejects.toMatchObject({ kind: "InvalidComponentName" });
  });
});
