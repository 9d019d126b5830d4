/**
 * The store on Hono 4 (Node, through @hono/node-server): the store's routes, the svc sub-app
 * at /api, nothing else. Start it with `npm run example -- hono [--production]`.
 */

import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { svcHono } from "@svc/server/hono";
import {
  API_BASE,
  type RunningApp,
  runningApp,
  type StartOptions,
  type Store,
  toWebResponse,
} from "@svc-examples/store";
import { Hono } from "hono";

export function createApp(store: Store): Hono {
  const app = new Hono();

  app.use(`${API_BASE}/*`, svcHono(store.handlers, store.svcOptions));

  app.get("/", async (c) => toWebResponse(await store.home(c.req.raw)));
  app.get("/product/:id", async (c) =>
    toWebResponse(await store.product(c.req.raw, c.req.param("id"))),
  );
  app.get("/media/products/:file", async (c) =>
    toWebResponse(await store.media(c.req.raw, c.req.param("file"))),
  );
  app.get("/static/*", async (c) =>
    toWebResponse(await store.asset(c.req.raw, c.req.path.slice("/static/".length))),
  );

  app.get("/admin/", async (c) => toWebResponse(await store.admin(c.req.raw)));
  app.get("/admin/product/new", async (c) => toWebResponse(await store.productForm(c.req.raw)));
  app.post("/admin/product/new", async (c) => toWebResponse(await store.saveProduct(c.req.raw)));
  app.get("/admin/product/:id/edit", async (c) =>
    toWebResponse(await store.productForm(c.req.raw, c.req.param("id"))),
  );
  app.post("/admin/product/:id/edit", async (c) =>
    toWebResponse(await store.saveProduct(c.req.raw, c.req.param("id"))),
  );
  app.post("/admin/product/preview", async (c) => toWebResponse(await store.preview(c.req.raw)));
  app.post("/admin/product/:id/preview", async (c) =>
    toWebResponse(await store.preview(c.req.raw, c.req.param("id"))),
  );

  app.notFound(async (c) => toWebResponse(await store.notFound(c.req.raw)));
  return app;
}

export async function start(store: Store, options: StartOptions = {}): Promise<RunningApp> {
  const server = serve({
    fetch: createApp(store).fetch,
    port: options.port ?? 3000,
    hostname: options.host ?? "127.0.0.1",
  });
  return runningApp(server as Server);
}
