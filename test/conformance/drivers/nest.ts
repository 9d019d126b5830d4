import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import type { SvcModule as SvcModuleClass } from "../../../packages/server/src/transports/nest.ts";
import { type Driver, isHandlers } from "./driver.ts";

/**
 * Where `@nestjs/*` come from: the repository's (latest 11.x), or, when SVC_NEST_MODULES
 * names another node_modules directory, that one (`nest-lowest.sh` installs 11.0.0 there).
 * `nest.test.ts` maps the bridge's own `@nestjs/common` import to the same place.
 */
export const nestModules = process.env.SVC_NEST_MODULES;

export async function importNest<T>(pkg: string): Promise<T> {
  if (nestModules === undefined || nestModules === "") return (await import(pkg)) as T;
  return (await import(pathToFileURL(join(nestModules, pkg, "index.js")).href)) as T;
}

type Common = typeof import("@nestjs/common");
type Core = typeof import("@nestjs/core");
type PlatformFastify = typeof import("@nestjs/platform-fastify");

/**
 * `SvcModule.forRoot(…)` + `RouterModule.register([{ path: prefix, module: SvcModule }])`. On
 * the Express platform the app is created with `bodyParser: false`, as docs/frameworks/nest.md
 * says to for svc's body rule (Nest's JSON parser would take island props up to 100 kb only,
 * and answer the rest itself); on Fastify no setting can keep Fastify's parsers from svc's
 * routes, so its refusals are its own (`parsesBodiesFirst`).
 */
export function nestDriver(platform: "express" | "fastify"): Driver {
  return {
    name: `nest (${platform} platform)`,
    normalisesDotSegments: false,
    parsesBodiesFirst: platform === "fastify",
    async start({ source, options, prefix }) {
      const { Module } = await importNest<Common>("@nestjs/common");
      const { NestFactory, RouterModule } = await importNest<Core>("@nestjs/core");
      const { SvcModule } = (await import("../../../packages/server/src/transports/nest.ts")) as {
        SvcModule: typeof SvcModuleClass;
      };
      const sourceOption = isHandlers(source) ? { handlers: source } : { registry: source };
      class AppModule {}
      Module({
        imports: [
          SvcModule.forRoot({ ...sourceOption, ...options }),
          RouterModule.register([{ path: prefix, module: SvcModule }]),
        ],
      })(AppModule);
      const app =
        platform === "fastify"
          ? await NestFactory.create(
              AppModule,
              new (await importNest<PlatformFastify>("@nestjs/platform-fastify")).FastifyAdapter(),
              { logger: false, abortOnError: false },
            )
          : await NestFactory.create(AppModule, {
              logger: false,
              abortOnError: false,
              bodyParser: false,
            });
      await app.listen(0, "127.0.0.1");
      const { port } = app.getHttpServer().address() as AddressInfo;
      return { url: `http://127.0.0.1:${port}`, close: () => app.close() };
    },
  };
}
