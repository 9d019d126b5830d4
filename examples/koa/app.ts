/**
 * The store on Koa 3: the store's routes, the svc middleware at /api, nothing else. Koa has
 * no router of its own; rather than add one, the routes are matched with the platform's
 * URLPattern. Start it with `npm run example -- koa [--production]`.
 */
import { URLPattern } from "node:url";
import { svcKoa } from "@svc/server/koa";
import {
  API_BASE,
  type RunningApp,
  runningApp,
  type StartOptions,
  type Store,
  type StoreResponse,
} from "@svc-examples/store";
import Koa, { type Context } from "koa";

type Params = Record<string, string | undefined>;
type Route = [
  method: "GET" | "POST",
  path: string,
  answer: (ctx: Context, params: Params) => Promise<StoreResponse>,
];

function send(ctx: Context, { status, headers, body }: StoreResponse): void {
  ctx.status = status;
  ctx.set(headers);
  if (body !== null) ctx.body = typeof body === "string" ? body : Buffer.from(body);
}

export function createApp(store: Store): Koa {
  const routes: Route[] = [
    ["GET", "/", (ctx) => store.home(ctx.req)],
    ["GET", "/product/:id", (ctx, p) => store.product(ctx.req, p.id ?? "")],
    ["GET", "/media/products/:file", (ctx, p) => store.media(ctx.req, p.file ?? "")],
    ["GET", "/static/:path+", (ctx, p) => store.asset(ctx.req, p.path ?? "")],
    ["GET", "/admin/", (ctx) => store.admin(ctx.req)],
    ["GET", "/admin/product/new", (ctx) => store.productForm(ctx.req)],
    ["POST", "/admin/product/new", (ctx) => store.saveProduct(ctx.req)],
    ["GET", "/admin/product/:id/edit", (ctx, p) => store.productForm(ctx.req, p.id)],
    ["POST", "/admin/product/:id/edit", (ctx, p) => store.saveProduct(ctx.req, p.id)],
    ["POST", "/admin/product/preview", (ctx) => store.preview(ctx.req)],
    ["POST", "/admin/product/:id/preview", (ctx, p) => store.preview(ctx.req, p.id)],
  ];
  const compiled = routes.map(
    ([method, path, answer]) => [method, new URLPattern({ pathname: path }), answer] as const,
  );

  const app = new Koa();
  app.use(svcKoa(store.handlers, { prefix: API_BASE, ...store.svcOptions }));
  app.use(async (ctx) => {
    const method = ctx.method === "HEAD" ? "GET" : ctx.method;
    for (const [routeMethod, pattern, answer] of compiled) {
      const match = routeMethod === method ? pattern.exec({ pathname: ctx.path }) : null;
      if (match) return send(ctx, await answer(ctx, match.pathname.groups));
    }
    send(ctx, await store.notFound(ctx.req));
  });
  return app;
}

export async function start(store: Store, options: StartOptions = {}): Promise<RunningApp> {
  const server = createApp(store).listen(options.port ?? 3000, options.host ?? "127.0.0.1");
  return runningApp(server);
}
