/**
 * A server for the bridge benchmarks, run in its own process:
 * `node --conditions=source bench/servers/bridge.ts <framework> <componentsDir> [dev|prebuilt]`.
 * One app of `<framework>` with svc's bridge at `/api`, a plain route of the framework's own
 * at `/plain/card.js` sending the very same bytes and headers as the warm bundle, and
 * `/health`. Modes: "dev" bundles live (warm dev cache); "prebuilt" first runs `svc build`
 * into `<componentsDir>.build` and serves from it; "memory" hands the bridge a handler set
 * whose getBundle returns the warm bundle from memory, with no freshness check, so what is
 * left is the bridge's and the core's own cost. Prints the port on stdout.
 */
import type { IncomingMessage, ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { monitorEventLoopDelay } from "node:perf_hooks";
import {
  build,
  ComponentRegistry,
  createHandlers,
  type Handlers,
  parseComponentName,
  silentLogger,
} from "@svc/server";

const [framework, dir, mode = "dev"] = process.argv.slice(2) as [string, string, string?];
const registry = new ComponentRegistry(dir, { logger: silentLogger });
const buildDir = mode === "prebuilt" ? `${dir}.build` : undefined;
if (buildDir !== undefined) await build({ registry, outDir: buildDir });
const real = createHandlers(registry, { logger: silentLogger, buildDir });
const bundle = await real.getBundle(parseComponentName("card"));
const handlers: Handlers =
  mode === "memory"
    ? {
        ...real,
        peekBundle: (name) => (name === "card" ? bundle : real.peekBundle?.(name)),
        getBundle: async (name) => (name === "card" ? bundle : real.getBundle(name)),
      }
    : real;
const code = Buffer.from(bundle.code);
const headers = {
  "content-type": "application/javascript; charset=utf-8",
  // What svc sends for a bundle URL without `?<hash>` (the benchmark's): revalidate.
  "cache-control": "no-cache",
  etag: `"${bundle.hash}"`,
  "x-content-type-options": "nosniff",
  // svc times each answer (issue 33); the plain route sends a header of the same size.
  "server-timing": "cache;desc=hit, bundle;dur=0.1",
};
const HEALTH = '{"ok":true}';

// The benchmark asks over stdin/stdout, not over HTTP, so measuring adds no request of its
// own: "cpu" gets back "CPU=<user+system µs>"; "delay" gets the event loop's delay since the
// last "delay" as "DELAY=<p99 ms> <max ms>" (a blocked loop shows here, whatever the load).
const loopDelay = monitorEventLoopDelay({ resolution: 5 });
loopDelay.enable();
process.stdin.setEncoding("utf8");
process.stdin.on("data", (text: string) => {
  if (text.includes("cpu")) {
    const { user, system } = process.cpuUsage();
    process.stdout.write(`CPU=${user + system}\n`);
  }
  if (text.includes("delay")) {
    process.stdout.write(`DELAY=${loopDelay.percentile(99) / 1e6} ${loopDelay.max / 1e6}\n`);
    loopDelay.reset();
  }
});

type Close = () => Promise<unknown>;

async function express(): Promise<[number, Close]> {
  const { default: createApp } = await import("express");
  const { svcExpress } = await import("@svc/server/express");
  const app = createApp();
  app.get("/plain/card.js", (_req, res) => {
    res.set(headers).send(code);
  });
  app.get("/health", (_req, res) => {
    res.type("json").send(HEALTH);
  });
  app.use("/api", svcExpress(handlers));
  return listen(app);
}

async function fastify(): Promise<[number, Close]> {
  const { default: Fastify } = await import("fastify");
  const { svcFastify } = await import("@svc/server/fastify");
  const app = Fastify();
  app.get("/plain/card.js", (_req, reply) => reply.headers(headers).send(code));
  app.get("/health", (_req, reply) => reply.type("application/json").send(HEALTH));
  await app.register(svcFastify, { prefix: "/api", handlers });
  await app.listen({ port: 0, host: "127.0.0.1" });
  return [(app.server.address() as AddressInfo).port, () => app.close()];
}

async function hono(): Promise<[number, Close]> {
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const { svcHono } = await import("@svc/server/hono");
  const app = new Hono();
  app.get("/plain/card.js", (c) => c.body(code, 200, headers));
  app.get("/health", (c) => c.body(HEALTH, 200, { "content-type": "application/json" }));
  app.use("/api/*", svcHono(handlers));
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
  });
  return [(server.address() as AddressInfo).port, () => new Promise((r) => server.close(r))];
}

async function koa(): Promise<[number, Close]> {
  const { default: Koa } = await import("koa");
  const { svcKoa } = await import("@svc/server/koa");
  const app = new Koa();
  // The app's own routes, written like svc's middleware: check the URL, else pass on.
  app.use((ctx, next) => {
    if (ctx.url === "/plain/card.js") {
      ctx.set(headers);
      ctx.body = code;
    } else if (ctx.url === "/health") {
      ctx.type = "json";
      ctx.body = HEALTH;
    } else {
      return next();
    }
  });
  app.use(svcKoa(handlers, { prefix: "/api" }));
  const { createServer } = await import("node:http");
  return listen(createServer(app.callback()));
}

/** Nest on `platform`, the plain routes in a controller of the app's own (library-specific responses). */
async function nest(platform: "express" | "fastify"): Promise<[number, Close]> {
  await import("reflect-metadata");
  const { Controller, Get, Module, Res } = await import("@nestjs/common");
  const { NestFactory, RouterModule } = await import("@nestjs/core");
  const { SvcModule } = await import("@svc/server/nest");
  type Reply = ServerResponse & {
    set?: (h: object) => { send(b: unknown): void };
    headers?: (h: object) => { send(b: unknown): void };
  };
  class PlainController {
    card(res: Reply) {
      (res.set?.(headers) ?? res.headers?.(headers))?.send(code);
    }
    health(res: Reply) {
      const h = { "content-type": "application/json" };
      (res.set?.(h) ?? res.headers?.(h))?.send(HEALTH);
    }
  }
  const proto = PlainController.prototype;
  Controller()(PlainController);
  for (const [method, path] of [
    ["card", "plain/card.js"],
    ["health", "health"],
  ] as const) {
    Get(path)(proto, method, Object.getOwnPropertyDescriptor(proto, method) as PropertyDescriptor);
    Res()(proto, method, 0);
  }
  class AppModule {}
  Module({
    controllers: [PlainController],
    imports: [
      SvcModule.forRoot({ handlers }),
      RouterModule.register([{ path: "api", module: SvcModule }]),
    ],
  })(AppModule);
  const app =
    platform === "fastify"
      ? await NestFactory.create(
          AppModule,
          new (await import("@nestjs/platform-fastify")).FastifyAdapter(),
          { logger: false },
        )
      : await NestFactory.create(AppModule, { logger: false });
  await app.listen(0, "127.0.0.1");
  return [(app.getHttpServer().address() as AddressInfo).port, () => app.close()];
}

async function listen(
  app: ((req: IncomingMessage, res: ServerResponse) => void) | import("node:http").Server,
): Promise<[number, Close]> {
  const { createServer } = await import("node:http");
  const server = typeof app === "function" ? createServer(app) : app;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return [(server.address() as AddressInfo).port, () => new Promise((r) => server.close(r))];
}

/** svc's node handler at /api; the plain route is bare `node:http` sending the same bytes. */
async function node(): Promise<[number, Close]> {
  const { createNodeHandler } = await import("@svc/server");
  const svc = createNodeHandler(handlers, { prefix: "/api" });
  return listen((req, res) => {
    if (req.url === "/plain/card.js") {
      res.writeHead(200, { ...headers, "content-length": code.byteLength }).end(code);
    } else if (req.url === "/health") {
      res.writeHead(200, { "content-type": "application/json" }).end(HEALTH);
    } else {
      svc(req, res);
    }
  });
}

const starters: Record<string, () => Promise<[number, Close]>> = {
  node,
  express,
  fastify,
  hono,
  koa,
  "nest-express": () => nest("express"),
  "nest-fastify": () => nest("fastify"),
};
const start = starters[framework];
if (start === undefined) throw new Error(`unknown framework ${framework}`);
const [port, close] = await start();
process.stdout.write(`PORT=${port}\n`);
const stop = () => {
  setTimeout(() => process.exit(0), 2000).unref();
  void close().then(() => process.exit(0));
};
process.on("SIGTERM", stop);
// The benchmark holds our stdin open; when it goes away, so do we.
process.stdin.on("close", stop);
process.stdin.resume();
