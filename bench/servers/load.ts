/**
 * A server for the warm-throughput and load benchmarks, run in its own process:
 * `node --conditions=source bench/servers/load.ts <node|fastify|bare> <componentsDir> <name>`.
 * "node" mounts svc's node handler at /api, "fastify" mounts the Fastify bridge at /api, and
 * "bare" sends the very same bytes and headers from a plain node:http handler (the baseline).
 * The bundle is built before listening, so every request is a warm one. Prints the port.
 */
import { createServer, type RequestListener } from "node:http";
import type { AddressInfo } from "node:net";
import {
  ComponentRegistry,
  createHandlers,
  createNodeHandler,
  parseComponentName,
  silentLogger,
} from "@svc/server";

const [mode, dir, name] = process.argv.slice(2) as [string, string, string];
const registry = new ComponentRegistry(dir, { logger: silentLogger });
const handlers = createHandlers(registry, { logger: silentLogger });
const bundle = await handlers.getBundle(parseComponentName(name));

let port: number;
let close: () => Promise<unknown>;
if (mode === "fastify") {
  const { default: Fastify } = await import("fastify");
  const { svcFastify } = await import("@svc/server/fastify");
  const app = Fastify();
  await app.register(svcFastify, { prefix: "/api", handlers });
  await app.listen({ port: 0, host: "127.0.0.1" });
  port = (app.server.address() as AddressInfo).port;
  close = () => app.close();
} else {
  const bare: RequestListener = (_req, res) => {
    res.writeHead(200, {
      "content-type": "application/javascript; charset=utf-8",
      "cache-control": "public, max-age=31536000, immutable",
      etag: `"${bundle.hash}"`,
      "content-length": String(bundle.code.byteLength),
    });
    res.end(bundle.code);
  };
  const server = createServer(
    mode === "node" ? createNodeHandler(handlers, { prefix: "/api" }) : bare,
  );
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  port = (server.address() as AddressInfo).port;
  close = () => new Promise((resolve) => server.close(resolve));
}
process.stdout.write(`PORT=${port}\n`);
process.on("SIGTERM", () => {
  setTimeout(() => process.exit(0), 2000).unref();
  void close().then(() => process.exit(0));
});
