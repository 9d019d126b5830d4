/**
 * The store on Express 5: the store's routes, the svc bridge at /api, nothing else.
 * Start it with `npm run example -- express [--production]`.
 */

import { svcExpress } from "@svc/server/express";
import {
  API_BASE,
  type RunningApp,
  runningApp,
  type StartOptions,
  type Store,
  type StoreResponse,
} from "@svc-examples/store";
import express, { type Response } from "express";

function send(res: Response, { status, headers, body }: StoreResponse): void {
  res.status(status).set(headers);
  if (body === null) res.end();
  else res.send(typeof body === "string" ? body : Buffer.from(body));
}

export function createApp(store: Store): express.Express {
  const app = express();
  app.disable("x-powered-by");
  // No body parser: the store reads multipart forms itself (Request.formData()).

  app.use(API_BASE, svcExpress(store.handlers, store.svcOptions));

  app.get("/", async (req, res) => send(res, await store.home(req)));
  app.get("/product/:id", async (req, res) => send(res, await store.product(req, req.params.id)));
  app.get("/media/products/:file", async (req, res) =>
    send(res, await store.media(req, req.params.file)),
  );
  app.get("/static/*path", async (req, res) =>
    send(res, await store.asset(req, req.params.path.join("/"))),
  );

  app.get("/admin/", async (req, res) => send(res, await store.admin(req)));
  app.get("/admin/product/new", async (req, res) => send(res, await store.productForm(req)));
  app.post("/admin/product/new", async (req, res) => send(res, await store.saveProduct(req)));
  app.get("/admin/product/:id/edit", async (req, res) =>
    send(res, await store.productForm(req, req.params.id)),
  );
  app.post("/admin/product/:id/edit", async (req, res) =>
    send(res, await store.saveProduct(req, req.params.id)),
  );
  app.post("/admin/product/preview", async (req, res) => send(res, await store.preview(req)));
  app.post("/admin/product/:id/preview", async (req, res) =>
    send(res, await store.preview(req, req.params.id)),
  );

  app.use(async (req, res) => send(res, await store.notFound(req)));
  return app;
}

export async function start(store: Store, options: StartOptions = {}): Promise<RunningApp> {
  const server = createApp(store).listen(options.port ?? 3000, options.host ?? "127.0.0.1");
  return runningApp(server);
}
