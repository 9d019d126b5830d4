import { readFileSync } from "node:fs";
import { createRequire, registerHooks } from "node:module";
import type { AddressInfo } from "node:net";
import { isAbsolute, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { expect, it } from "vitest";
import { importNest, nestDriver, nestModules } from "./drivers/nest.ts";
import { createFixture } from "./fixture.ts";
import { conformance, send } from "./suite.ts";
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
