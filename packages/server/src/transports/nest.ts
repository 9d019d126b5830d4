import type { IncomingMessage, ServerResponse } from "node:http";
import type { ConfigurableModuleCls } from "@nestjs/common";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import {
  type BridgeOptions,
  createBridgeHandler,
  type RequestHandler,
} from "../http/requestHandler.ts";
import { belowPattern } from "./mount.ts";
import { toSvcRequest, writeNodeResponse } from "./node.ts";
import { importPeer } from "./peer.ts";

const nest = await importPeer<typeof import("@nestjs/common")>(
  "@nestjs/common",
  "@svc/server/nest",
  "@nestjs/common @nestjs/core",
);
const { HttpAdapterHost } = await importPeer<typeof import("@nestjs/core")>(
  "@nestjs/core",
  "@svc/server/nest",
  "@nestjs/common @nestjs/core",
);

export interface SvcModuleOptions extends BridgeOptions {
  /** The components to serve; or pass a ready handler set as `handlers`. */
  registry?: ComponentRegistry;
  handlers?: Handlers;
}

const OPTIONS = Symbol("svc:module-options");
const REQUEST_HANDLER = Symbol("svc:request-handler");

/** The platform objects a Nest route handler receives, on Express or on Fastify. */
type PlatformRequest = IncomingMessage & {
  raw?: IncomingMessage;
  route?: { path?: string };
  routeOptions?: { url?: string };
};
type PlatformResponse = ServerResponse & {
  raw?: ServerResponse;
  hijack?: () => void;
};

/**
 * A controller with one catch-all route below wherever its module is mounted (`RouterModule`,
 * a global prefix): everything below the mount point is svc's. Each module instance gets a
 * class of its own, because the route's path is only known once the platform is: Express 5
 * wants a named wildcard (`*path`), Fastify's router a bare `*`, and neither takes the other.
 */
function createController() {
  class SvcController {
    readonly #handle: RequestHandler;

    constructor(handle: RequestHandler) {
      this.#handle = handle;
    }

    /** Not async: a warm bundle is answered in the same tick, with no promise made. */
    serve(req: PlatformRequest, res: PlatformResponse): Promise<void> | undefined {
      const raw = req.raw ?? req;
      const pattern = req.route?.path ?? req.routeOptions?.url ?? "";
      const url = belowPattern(raw.url ?? "/", pattern);
      // On Fastify, take the reply over, so Fastify does not send one of its own.
      res.hijack?.();
      const response = this.#handle(toSvcRequest(raw, url));
      const out = res.raw ?? res;
      if (response instanceof Promise) {
        return response.then((ready) => writeNodeResponse(out, ready));
      }
      writeNodeResponse(out, response);
      return undefined;
    }
  }
  nest.Controller()(SvcController);
  nest.Inject(REQUEST_HANDLER)(SvcController, undefined, 0);
  nest.Req()(SvcController.prototype, "serve", 0);
  nest.Res()(SvcController.prototype, "serve", 1);
  return SvcController;
}

function routeFor(controller: ReturnType<typeof createController>, platform: string): void {
  const proto = controller.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(proto, "serve") as PropertyDescriptor;
  nest.All(platform === "fastify" ? "*" : "*path")(proto, "serve", descriptor);
}

const { ConfigurableModuleClass } = new nest.ConfigurableModuleBuilder<SvcModuleOptions>({
  optionsInjectionToken: OPTIONS,
})
  .setClassMethodName("forRoot")
  .setExtras({}, (definition) => {
    const controller = createController();
    return {
      ...definition,
      controllers: [controller],
      providers: [
        ...(definition.providers ?? []),
        {
          provide: REQUEST_HANDLER,
          inject: [OPTIONS, HttpAdapterHost],
          // Providers are made when the application is created, routes registered when it
          // starts: the route is added here, once the platform is known.
          useFactory: (options: SvcModuleOptions, host: InstanceType<typeof HttpAdapterHost>) => {
            const source = options.handlers ?? options.registry;
            if (source === undefined) {
              throw new TypeError("SvcModule.forRoot needs a `registry` (or `handlers`) option");
            }
            routeFor(controller, host.httpAdapter.getType());
            return createBridgeHandler(source, options);
          },
        },
      ],
    };
  })
  .build();

/**
 * The svc endpoints as a NestJS 11 dynamic module, on the Express or the Fastify platform.
 * Mount it with `RouterModule` (or a global prefix):
 *
 * ```ts
 * imports: [
 *   SvcModule.forRoot({ registry }),
 *   RouterModule.register([{ path: "api", module: SvcModule }]),
 * ]
 * ```
 *
 * `SvcModule.forRootAsync({ imports, inject, useFactory })` takes the options from other
 * providers (a config service, say).
 */
export class SvcModule extends (ConfigurableModuleClass as ConfigurableModuleCls<
  SvcModuleOptions,
  "forRoot"
>) {}

nest.Module({})(SvcModule);
