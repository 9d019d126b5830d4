/**
 * A server for the warm-throughput benchmark, run in its own process:
 * `node --conditions=source bench/servers/warm.ts <svc|bare> <componentsDir> <name>`.
 * "svc" serves through @svc/server/node; "bare" sends the very same bytes and headers from a
 * plain node:http handler. Prints the port on stdout.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ComponentRegistry, createHandlers, createNodeHandler, silentLogger } from "@svc/server";

const [mode, dir, name] = process.argv.slice(2) as [string, string, string];
const registry = new ComponentRegistry(dir, { logger: silentLogger });
const handlers = createHandlers(registry, { logger: silentLogger });
const bundle = await handlers.getBundle(name);

const server =
  mode === "svc"
    ? createServer(createNodeHandler(handlers, { prefix: "/api" }))
    : createServer((_req, res) => {
        res.writeHead(200, {
          "content-type": "application/javascript; charset=utf-8",
          "cache-control": "public, max-age=31536000, immutable",
          etag: `"${bundle.hash}"`,
          "content-length": String(bundle.code.byteLength),
        });
        res.end(bundle.code);
      });
server.listen(0, "127.0.0.1", () => {
  process.stdout.write(`PORT=${(server.address() as AddressInfo).port}\n`);
});
process.on("SIGTERM", () => server.close(() => process.exit(0)));
