/**
 * The server of the soak test, in a process of its own so its memory is its own:
 * `node --conditions=source --expose-gc soakServer.ts <componentsDir> <cacheMaxBytes>`,
 * forked with an IPC channel. It serves the node handler at `/api` on 127.0.0.1 (an
 * ephemeral port, sent as `{ type: "listening", port }`), samples its RSS every 20 ms, and
 * answers `{ type: "memory" }` with its memory after a full garbage collection.
 */
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { ComponentRegistry, createNodeHandler, type Logger } from "../conformance/svc.ts";

const [dir, maxBytes] = process.argv.slice(2) as [string, string];

/** Unexpected errors the server logs (InternalError answers); the soak expects none. */
const logged: string[] = [];
const logger: Logger = {
  info() {},
  warn() {},
  error(message, error) {
    logged.push(`${message} ${error instanceof Error ? (error.stack ?? error.message) : ""}`);
  },
};

const registry = new ComponentRegistry(dir, { logger });
const recycle = process.env.SVC_SOAK_RENDER_RECYCLE_BYTES;
const handler = createNodeHandler(registry, {
  prefix: "/api",
  cacheMaxBytes: Number(maxBytes),
  renderRecycleBytes: recycle === undefined ? undefined : Number(recycle),
  logger,
});
const server = createServer(handler);
server.keepAliveTimeout = 30_000;

let peakRss = process.memoryUsage.rss();
setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage.rss());
}, 20).unref();

export interface MemoryReport {
  type: "memory";
  rss: number;
  peakRss: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  logged: string[];
}

process.on("message", (message: { type: string }) => {
  if (message.type !== "memory") return;
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  gc?.();
  const usage = process.memoryUsage();
  peakRss = Math.max(peakRss, usage.rss);
  const report: MemoryReport = {
    type: "memory",
    rss: usage.rss,
    peakRss,
    heapUsed: usage.heapUsed,
    external: usage.external,
    arrayBuffers: usage.arrayBuffers,
    logged,
  };
  process.send?.(report);
});

server.listen(0, "127.0.0.1", () => {
  process.send?.({ type: "listening", port: (server.address() as AddressInfo).port });
});
process.on("disconnect", () => process.exit(0));
