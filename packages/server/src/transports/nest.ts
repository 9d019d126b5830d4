// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { DynamicModule, ModuleMetadata, Provider } from "@nestjs/common";
import type { KnownName, PropsFor, PropsParameters } from "@svc/protocol";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { SvcIslands as Islands } from "../http/islands.ts";
import type { RequestHandler } from "../http/requestHandler.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import type { IslandOptions } from "../ssr/islandRenderer.ts";
import { andThen, type MaybePromise } from "../util/maybePromise.ts";
import { requirePeer } from "../util/peer.ts";
import { type BridgeHandler, type BridgeOptions, createFrameworkHandler } from "./bridgeHandler.ts";
import { toSvcRequest, writeNodeResponse } from "./internal/node.ts";
import { createPatternMount } from "./mount.ts";

export interface SvcModuleOptions extends BridgeOptions {
  /** The components to serve; or pass a ready handler set as `handlers`. */
  registry?: ComponentRegistry;
  handlers?: Handlers;
}

/** `SvcModule.forRootAsync`: the options made by a factory with injected providers. */
export interface SvcModuleAsyncOptions extends Pick<ModuleMetadata, "imports"> {
  // biome-ignore lint/suspicious/noExplicitAny: Nest's own factory type
  useFactory: (...args: any[]) => SvcModuleOptions | Promise<SvcModuleOptions>;
  // biome-ignore lint/suspicious/noExplicitAny: Nest's injection tokens
  inject?: any[];
}

const OPTIONS = Symbol("svc:module-options");
const REQUEST_HANDLER = Symbol("svc:request-handler");
const INSTALL = "@nestjs/common @nestjs/core";

type Common = typeof import("@nestjs/common");
type Core = typeof import("@nestjs/core");

/** Nest itself, loaded on first use (not at import: `require()` of this module must work). */
function nest(): { common: Common; core: Core } {
  return {
    common: requirePeer<Common>("@nestjs/common", "@svc/server/nest", INSTALL),
    core: requirePeer<Core>("@nestjs/core", "@svc/server/nest", INSTALL),
  };
}

/**
 * The svc endpoints as a NestJS 11 dynamic module, on the Express or the Fastify platform,
 * live reload included in development. It loads from ESM and from CommonJS (the Nest CLI's
 * default). Mount it with `RouterModule` (or a global prefix):
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
// biome-ignore lint/complexity/noStaticOnlyClass: a Nest module is a class Nest knows by identity
export class SvcModule {
  static forRoot(options: SvcModuleOptions): DynamicModule {
    return defineModule([{ provide: OPTIONS, useValue: options }]);
  }

  static forRootAsync(options: SvcModuleAsyncOptions): DynamicModule {
    return defineModule(
      [{ provide: OPTIONS, useFactory: options.useFactory, inject: options.inject ?? [] }],
      options.imports,
    );
  }
}

/**
 * The islands of the module's handler set, for the app's controllers and services: inject it
 * (`constructor(private readonly svc: SvcIslands)`) and `await this.svc.island("card", props)`.
 * `SvcModule` is global, so every module can.
 */
export class SvcIslands implements Islands {
  readonly #islands: Islands;

  constructor(islands: Islands) {
    this.#islands = islands;
  }

  island<P extends object = never, N extends string = string>(
    name: KnownName<N>,
    ...args: PropsParameters<Readonly<PropsFor<P, N>>, [options?: IslandOptions]>
  ): Promise<string> {
    return this.#islands.island<P, N>(name, ...args);
  }
}

let decorated = false;

function defineModule(
  optionProviders: Provider[],
  imports: ModuleMetadata["imports"] = [],
): DynamicModule {
  const { common, core } = nest();
  if (!decorated) {
    common.Module({})(SvcModule);
    decorated = true;
  }
  const controller = createController(common);
  return {
    module: SvcModule,
    global: true,
    imports,
    exports: [SvcIslands],
    controllers: [controller],
    providers: [
      ...optionProviders,
      {
        provide: REQUEST_HANDLER,
        inject: [OPTIONS, core.HttpAdapterHost],
        // Providers are made when the application is created, routes registered when it
        // starts: the route is added here, once the platform is known.
        useFactory: (options: SvcModuleOptions, host: InstanceType<Core["HttpAdapterHost"]>) => {
          const source = options.handlers ?? options.registry;
          const handle = createFrameworkHandler(
            "SvcModule.forRoot",
            "@nestjs/common",
            INSTALL,
            source,
            options,
          );
          routeFor(common, controller, host.httpAdapter.getType());
          // Nest calls it on `app.close()` (and on signals, with `enableShutdownHooks()`):
          // renders in flight finish, the render workers stop.
          return Object.assign(handle, { onApplicationShutdown: () => handle.close() });
        },
      },
      {
        provide: SvcIslands,
        inject: [REQUEST_HANDLER],
        useFactory: (handle: BridgeHandler) => new SvcIslands(handle.islands),
      },
    ],
  };
}

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
function createController(common: Common) {
  class SvcController {
    readonly #handle: RequestHandler;
    readonly #below = createPatternMount();

    constructor(handle: RequestHandler) {
      this.#handle = handle;
    }

    /** Not async: an answer at hand is written at once, with no promise made. */
    serve(req: PlatformRequest, res: PlatformResponse): MaybePromise<void> {
      const raw = req.raw ?? req;
      const pattern = req.route?.path ?? req.routeOptions?.url ?? "";
      const url = this.#below(raw.url ?? "/", pattern);
      // On Fastify, take the reply over, so Fastify does not send one of its own.
      res.hijack?.();
      const out = res.raw ?? res;
      // On Fastify the parsed body is the request object's, not the raw message's.
      const parsed = req.raw === undefined ? undefined : () => (req as { body?: unknown }).body;
      const response = this.#handle(toSvcRequest(raw, url, out, parsed));
      return andThen(response, (ready) => writeNodeResponse(out, ready));
    }
  }
  common.Controller()(SvcController);
  common.Inject(REQUEST_HANDLER)(SvcController, undefined, 0);
  common.Req()(SvcController.prototype, "serve", 0);
  common.Res()(SvcController.prototype, "serve", 1);
  return SvcController;
}

function routeFor(common: Common, controller: { prototype: object }, platform: string): void {
  const proto = controller.prototype;
  const descriptor = Object.getOwnPropertyDescriptor(proto, "serve") as PropertyDescriptor;
  common.All(platform === "fastify" ? "*" : "*path")(proto, "serve", descriptor);
}
