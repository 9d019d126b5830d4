/**
 * The store on NestJS 11 (Express platform): one controller for the store's routes, the
 * SvcModule at /api, and a filter that answers unknown paths with the store's 404 page.
 * Start it with `npm run example -- nest [--production]`.
 *
 * Node runs this file directly and type stripping has no decorator syntax, so Nest's
 * decorators are applied as the functions they are. With tsc or SWC you would write
 * `@Controller()`, `@Get("/product/:id")`, `@Req()`… instead; nothing else changes.
 */
import "reflect-metadata";
import type { AddressInfo } from "node:net";
import {
  type ArgumentsHost,
  Catch,
  Controller,
  type ExceptionFilter,
  Get,
  Inject,
  Module,
  NotFoundException,
  Post,
  Req,
  Res,
} from "@nestjs/common";
import { NestFactory, RouterModule } from "@nestjs/core";
import type { NestExpressApplication } from "@nestjs/platform-express";
import { SvcModule } from "@svc/server/nest";
import {
  API_BASE,
  type RunningApp,
  type StartOptions,
  type Store,
  type StoreResponse,
} from "@svc-examples/store";
import type { Request, Response } from "express";

const STORE = Symbol("store");

function send(res: Response, { status, headers, body }: StoreResponse): void {
  res.status(status).set(headers);
  if (body === null) res.end();
  else res.send(typeof body === "string" ? body : Buffer.from(body));
}

class StoreController {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async home(req: Request, res: Response) {
    send(res, await this.#store.home(req));
  }
  async product(req: Request, res: Response) {
    send(res, await this.#store.product(req, String(req.params.id)));
  }
  async media(req: Request, res: Response) {
    send(res, await this.#store.media(req, String(req.params.file)));
  }
  async asset(req: Request, res: Response) {
    // Express 5 gives a named wildcard as its path segments.
    const path = req.params.path as unknown as string[];
    send(res, await this.#store.asset(req, path.join("/")));
  }
  async admin(req: Request, res: Response) {
    send(res, await this.#store.admin(req));
  }
  async newForm(req: Request, res: Response) {
    send(res, await this.#store.productForm(req));
  }
  async create(req: Request, res: Response) {
    send(res, await this.#store.saveProduct(req));
  }
  async editForm(req: Request, res: Response) {
    send(res, await this.#store.productForm(req, String(req.params.id)));
  }
  async update(req: Request, res: Response) {
    send(res, await this.#store.saveProduct(req, String(req.params.id)));
  }
  async previewNew(req: Request, res: Response) {
    send(res, await this.#store.preview(req));
  }
  async previewExisting(req: Request, res: Response) {
    send(res, await this.#store.preview(req, String(req.params.id)));
  }
}

type Handler = Exclude<keyof StoreController, "constructor">;
const ROUTES: [typeof Get, string, Handler][] = [
  [Get, "/", "home"],
  [Get, "/product/:id", "product"],
  [Get, "/media/products/:file", "media"],
  [Get, "/static/*path", "asset"],
  [Get, "/admin/", "admin"],
  [Get, "/admin/product/new", "newForm"],
  [Post, "/admin/product/new", "create"],
  [Get, "/admin/product/:id/edit", "editForm"],
  [Post, "/admin/product/:id/edit", "update"],
  [Post, "/admin/product/preview", "previewNew"],
  [Post, "/admin/product/:id/preview", "previewExisting"],
];

Controller()(StoreController);
Inject(STORE)(StoreController, undefined, 0);
for (const [method, path, handler] of ROUTES) {
  const proto = StoreController.prototype;
  method(path)(
    proto,
    handler,
    Object.getOwnPropertyDescriptor(proto, handler) as PropertyDescriptor,
  );
  Req()(proto, handler, 0);
  Res()(proto, handler, 1);
}

/** Paths no route matches end here: the store's own 404 page instead of Nest's JSON. */
class NotFoundFilter implements ExceptionFilter {
  readonly #store: Store;

  constructor(store: Store) {
    this.#store = store;
  }

  async catch(_exception: NotFoundException, host: ArgumentsHost) {
    const http = host.switchToHttp();
    send(http.getResponse<Response>(), await this.#store.notFound(http.getRequest<Request>()));
  }
}
Catch(NotFoundException)(NotFoundFilter);

export function createAppModule(store: Store) {
  class AppModule {}
  Module({
    imports: [
      SvcModule.forRoot({ handlers: store.handlers, ...store.svcOptions }),
      RouterModule.register([{ path: API_BASE, module: SvcModule }]),
    ],
    controllers: [StoreController],
    providers: [{ provide: STORE, useValue: store }],
  })(AppModule);
  return AppModule;
}

export async function start(store: Store, options: StartOptions = {}): Promise<RunningApp> {
  const app = await NestFactory.create<NestExpressApplication>(createAppModule(store), {
    // The store reads multipart forms itself (Request.formData()).
    bodyParser: false,
    logger: options.quiet ? false : ["error", "warn", "log"],
  });
  app.disable("x-powered-by");
  app.useGlobalFilters(new NotFoundFilter(store));
  await app.listen(options.port ?? 3000, options.host ?? "127.0.0.1");
  const { address, port } = app.getHttpServer().address() as AddressInfo;
  const host = address.includes(":") ? `[${address}]` : address;
  return { url: `http://${host}:${port}`, close: () => app.close() };
}
