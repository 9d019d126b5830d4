/**
 * The store on Fastify 5: the store's routes, the svc plugin at /api, nothing else.
 * Start it with `npm run example -- fastify [--production]`.
 */

import { svcFastify } from "@svc/server/fastify";
import {
  API_BASE,
  type RunningApp,
  type StartOptions,
  type Store,
  type StoreResponse,
} from "@svc-examples/store";
import Fastify, { type FastifyInstance, type FastifyReply } from "fastify";

type Params = { id: string; file: string; "*": string };

function send(reply: FastifyReply, { status, headers, body }: StoreResponse): FastifyReply {
  return reply
    .code(status)
    .headers(headers)
    .send(body === null || typeof body === "string" ? body : Buffer.from(body));
}

export async function createApp(
  store: Store,
  options: StartOptions = {},
): Promise<FastifyInstance> {
  const app = Fastify({ logger: !options.quiet });
  // Leave form bodies unread: the store parses them itself (Request.formData()).
  app.addContentTypeParser(
    ["multipart/form-data", "application/x-www-form-urlencoded"],
    (_request, _payload, done) => done(null),
  );

  await app.register(svcFastify, {
    prefix: API_BASE,
    handlers: store.handlers,
    ...store.svcOptions,
  });

  app.get("/", async (req, reply) => send(reply, await store.home(req.raw)));
  app.get<{ Params: Params }>("/product/:id", async (req, reply) =>
    send(reply, await store.product(req.raw, req.params.id)),
  );
  app.get<{ Params: Params }>("/media/products/:file", async (req, reply) =>
    send(reply, await store.media(req.raw, req.params.file)),
  );
  app.get<{ Params: Params }>("/static/*", async (req, reply) =>
    send(reply, await store.asset(req.raw, req.params["*"])),
  );

  app.get("/admin/", async (req, reply) => send(reply, await store.admin(req.raw)));
  app.get("/admin/product/new", async (req, reply) =>
    send(reply, await store.productForm(req.raw)),
  );
  app.post("/admin/product/new", async (req, reply) =>
    send(reply, await store.saveProduct(req.raw)),
  );
  app.get<{ Params: Params }>("/admin/product/:id/edit", async (req, reply) =>
    send(reply, await store.productForm(req.raw, req.params.id)),
  );
  app.post<{ Params: Params }>("/admin/product/:id/edit", async (req, reply) =>
    send(reply, await store.saveProduct(req.raw, req.params.id)),
  );
  app.post("/admin/product/preview", async (req, reply) =>
    send(reply, await store.preview(req.raw)),
  );
  app.post<{ Params: Params }>("/admin/product/:id/preview", async (req, reply) =>
    send(reply, await store.preview(req.raw, req.params.id)),
  );

  app.setNotFoundHandler(async (req, reply) => send(reply, await store.notFound(req.raw)));
  return app;
}

export async function start(store: Store, options: StartOptions = {}): Promise<RunningApp> {
  const app = await createApp(store, options);
  const url = await app.listen({ port: options.port ?? 3000, host: options.host ?? "127.0.0.1" });
  return { url, close: () => app.close() };
}
