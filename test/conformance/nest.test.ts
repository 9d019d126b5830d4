import { readFileSync } from "node:fs";
import { createRequire, registerHooks } from "node:module";
import type { AddressInfo } from "node:net";
import { isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import type { INestApplication, MiddlewareConsumer } from "@nestjs/common";
import type { NestExpressApplication } from "@nestjs/platform-express";
import type { NestFastifyApplication } from "@nestjs/platform-fastify";
import express from "express";
import { afterAll, describe, expect, it } from "vitest";
import { svcFastify } from "../../packages/server/src/transports/fastify.ts";
import { BODY_LIMIT, propsOfSize } from "./cases.ts";
import { importNest, nestDriver, nestModules } from "./drivers/nest.ts";
import { createFixture } from "./fixture.ts";
import { type Answer, conformance, expectSvcBodyRule, post, send, svcErrorKind } from "./suite.ts";
import { type ComponentRegistry, silentLogger } from "./svc.ts";

// With SVC_NEST_MODULES (see nest-lowest.sh), the bridge's own `@nestjs/common` and
// `@nestjs/core` (which it loads with `require` on first use) resolve from that node_modules
// directory too, so app and bridge share one Nest of the version under test.
if (nestModules !== undefined && nestModules !== "") {
  const modules = nestModules;
  const requireNest = createRequire(join(modules, "..", "resolve-from-here.js"));
  let resolving = false;
  // Vite resolves a test file's imports to paths before Node sees them, so a path into the
  // repository's own `@nestjs/common` or `@nestjs/core` is mapped as well as a bare name.
  const resolved = /[\\/]node_modules[\\/](@nestjs[\\/](?:common|core)(?:[\\/].*)?)$/;
  const inside = (path: string) => path.startsWith(modules);
  registerHooks({
    resolve(specifier, context, nextResolve) {
      // Resolved here rather than by passing another parentURL on: Node's require() keeps
      // its own parent for the lookup, so only a resolved URL reaches the other directory.
      if (!resolving && /^@nestjs\/(?:common|core)(?:\/|$)/.test(specifier)) {
        resolving = true;
        try {
          return { url: pathToFileURL(requireNest.resolve(specifier)).href, shortCircuit: true };
        } finally {
          resolving = false;
        }
      }
      const path = specifier.startsWith("file:") ? fileURLToPath(specifier) : specifier;
      const match = isAbsolute(path) && !inside(path) ? resolved.exec(path) : null;
      return match?.[1] !== undefined
        ? nextResolve(pathToFileURL(join(modules, match[1])).href, context)
        : nextResolve(specifier, context);
    },
  });
}

it("runs the Nest under test in the app and in the bridge", async () => {
  const version = (pkg: string) =>
    (
      JSON.parse(
        readFileSync(
          nestModules
            ? join(nestModules, pkg, "package.json")
            : new URL(import.meta.resolve(`${pkg}/package.json`)),
          "utf8",
        ),
      ) as { version: string }
    ).version;
  console.info(
    `@nestjs/common ${version("@nestjs/common")}, @nestjs/core ${version("@nestjs/core")}`,
  );
  const common = await importNest<typeof import("@nestjs/common")>("@nestjs/common");
  const core = await importNest<typeof import("@nestjs/core")>("@nestjs/core");
  expect((await import("@nestjs/common")).Module).toBe(common.Module);
  expect((await import("@nestjs/core")).HttpAdapterHost).toBe(core.HttpAdapterHost);
});

conformance(nestDriver("express"));
conformance(nestDriver("fastify"));

const fx = createFixture();

it("SvcModule.forRootAsync takes its options from another module's provider", async () => {
  const { Module } = await importNest<typeof import("@nestjs/common")>("@nestjs/common");
  const { NestFactory, RouterModule } =
    await importNest<typeof import("@nestjs/core")>("@nestjs/core");
  const { SvcModule } = await import("../../packages/server/src/transports/nest.ts");
  const REGISTRY = "REGISTRY";
  class ConfigModule {}
  Module({ providers: [{ provide: REGISTRY, useValue: fx.registry() }], exports: [REGISTRY] })(
    ConfigModule,
  );
  class AppModule {}
  Module({
    imports: [
      SvcModule.forRootAsync({
        imports: [ConfigModule],
        inject: [REGISTRY],
        useFactory: async (registry: ComponentRegistry) => ({ registry, logger: silentLogger }),
      }),
      RouterModule.register([{ path: "api", module: SvcModule }]),
    ],
  })(AppModule);
  const app = await NestFactory.create(AppModule, { logger: false, abortOnError: false });
  await app.listen(0, "127.0.0.1");
  try {
    const { port } = app.getHttpServer().address() as AddressInfo;
    const listing = await send(`http://127.0.0.1:${port}`, "/api/bundles");
    expect(listing.status).toBe(200);
    expect(JSON.parse(listing.body.toString())).toContainEqual({ name: "greeting" });
  } finally {
    await app.close();
  }
});

/**
 * Nest's body parser runs before every route of the app, svc's included: what each setting
 * of docs/frameworks/nest.md ("Request bodies") gives the island endpoint.
 */
describe("nest: request bodies, by the app's settings", () => {
  const apps: INestApplication[] = [];
  afterAll(() => Promise.all(apps.map((app) => app.close())));
  const island = "/api/bundles/greeting/html";

  /**
   * An app with SvcModule under /api and a controller of its own that echoes its JSON body at
   * `POST /echo`, given Nest's parsers through the module's `configure` when `ownParsers`.
   */
  async function start(
    options: { bodyParser?: boolean; ownParsers?: boolean; fastify?: boolean; svc?: boolean } = {},
    before?: (app: INestApplication) => Promise<void> | void,
  ): Promise<string> {
    const common = await importNest<typeof import("@nestjs/common")>("@nestjs/common");
    const { NestFactory, RouterModule } =
      await importNest<typeof import("@nestjs/core")>("@nestjs/core");
    const { SvcModule } = await import("../../packages/server/src/transports/nest.ts");
    class EchoController {
      echo(body: unknown) {
        return body;
      }
    }
    common.Controller()(EchoController);
    const echo = Object.getOwnPropertyDescriptor(EchoController.prototype, "echo");
    common.Post("echo")(EchoController.prototype, "echo", echo as PropertyDescriptor);
    common.Body()(EchoController.prototype, "echo", 0);
    class AppModule {
      configure(consumer: MiddlewareConsumer) {
        if (options.ownParsers) {
          consumer
            .apply(express.json(), express.urlencoded({ extended: true }))
            .forRoutes(EchoController);
        }
      }
    }
    common.Module({
      imports:
        options.svc === false
          ? []
          : [
              SvcModule.forRoot({ registry: fx.registry(), logger: silentLogger }),
              RouterModule.register([{ path: "api", module: SvcModule }]),
            ],
      controllers: [EchoController],
    })(AppModule);
    const settings = {
      logger: false,
      abortOnError: false,
      bodyParser: options.bodyParser,
    } as const;
    const app = options.fastify
      ? await NestFactory.create(
          AppModule,
          new (
            await importNest<typeof import("@nestjs/platform-fastify")>("@nestjs/platform-fastify")
          ).FastifyAdapter(),
          settings,
        )
      : await NestFactory.create(AppModule, settings);
    apps.push(app);
    await before?.(app);
    await app.listen(0, "127.0.0.1");
    return `http://127.0.0.1:${(app.getHttpServer().address() as AddressInfo).port}`;
  }

  const nestsOwn = (answer: Answer, status: number) => {
    expect(answer.status).toBe(status);
    expect(JSON.parse(answer.body.toString())).toMatchObject({ statusCode: status });
  };

  it("Express platform, as created by default: props up to Nest's 100 kb render, Nest refuses more itself", async () => {
    const base = await start();
    expect((await post(base, island, propsOfSize(100 * 1024))).status).toBe(200);
    nestsOwn(await post(base, island, propsOfSize(200 * 1024)), 413);
    nestsOwn(await post(base, island, "{oops"), 400);
    // Not JSON: Nest's parsers leave it, svc refuses it.
    const text = await post(base, island, '{"who":"x"}', "text/plain");
    expect(svcErrorKind(text)).toBe("UnsupportedMediaType");
  });

  it('Express platform, app.useBodyParser("json", { limit: "1mb" }): props up to 1 MiB render', async () => {
    const base = await start({}, (app) => {
      (app as NestExpressApplication).useBodyParser("json", { limit: "1mb" });
    });
    expect((await post(base, island, propsOfSize(200 * 1024))).status).toBe(200);
    expect((await post(base, island, propsOfSize(BODY_LIMIT))).status).toBe(200);
    nestsOwn(await post(base, island, propsOfSize(BODY_LIMIT + 1)), 413);
  });

  it("Express platform, bodyParser: false and Nest's parsers on the app's own controllers: svc's rule exactly, the app's routes still parse JSON", async () => {
    const base = await start({ bodyParser: false, ownParsers: true });
    await expectSvcBodyRule(base, island);
  });

  it("Fastify platform: Fastify refuses some bodies itself, before any route; svcFastify registered on Nest's Fastify instance has svc's rule exactly", async () => {
    const module = await start({ fastify: true });
    expect((await post(module, island, propsOfSize(BODY_LIMIT))).status).toBe(200);
    nestsOwn(await post(module, island, propsOfSize(BODY_LIMIT + 1)), 413);
    nestsOwn(await post(module, island, ""), 400);
    const plugin = await start({ fastify: true, svc: false }, async (app) => {
      // The cast: @nestjs/platform-fastify has a Fastify of its own here, whose types differ.
      const svcPlugin = svcFastify as unknown as Parameters<NestFastifyApplication["register"]>[0];
      await (app as NestFastifyApplication).register(svcPlugin, {
        prefix: "/api",
        registry: fx.registry(),
        logger: silentLogger,
      });
    });
    expect((await post(plugin, island, propsOfSize(BODY_LIMIT))).status).toBe(200);
    expect(svcErrorKind(await post(plugin, island, propsOfSize(BODY_LIMIT + 1)))).toBe(
      "PayloadTooLarge",
    );
    expect((await post(plugin, island, "")).status).toBe(200);
    expect(svcErrorKind(await post(plugin, island, "{}", null))).toBe("UnsupportedMediaType");
    // The app's own routes keep Nest's parsers.
    const echo = await post(plugin, "/echo", '{"a":1}');
    expect(JSON.parse(echo.body.toString())).toEqual({ a: 1 });
  });
});
