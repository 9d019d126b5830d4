// Runs one documentation snippet (already transpiled to JavaScript) the way its page says
// to run it, on 127.0.0.1 and a free port, and prints `SNIPPET_PORT=<port>` once it serves.
//
// - `listen(3000)` and the like: every net server listens on 127.0.0.1:0 instead.
// - `export const GET`, `POST`, … (a Next.js route handler) and `export default { fetch }`
//   (Bun, Deno, Workers, Hono): served by @hono/node-server, as a web-standard fetch handler.
// - `Bun.serve({ fetch })` and `Deno.serve(handler)`: stand-ins that do the same. Bun and
//   Deno are not installed here; the snippets run on Node with these shims.
import { Server } from "node:net";
import { pathToFileURL } from "node:url";
import { createAdaptorServer } from "@hono/node-server";

const listen = Server.prototype.listen;
Server.prototype.listen = function (...args) {
  const callback = typeof args.at(-1) === "function" ? args.at(-1) : undefined;
  this.once("listening", () => {
    process.stdout.write(`SNIPPET_PORT=${this.address().port}\n`);
  });
  return listen.call(this, 0, "127.0.0.1", callback);
};

function serveFetch(fetch) {
  createAdaptorServer({ fetch }).listen(3000);
}

globalThis.Bun = { serve: (options) => serveFetch(options.fetch) };
globalThis.Deno = {
  serve: (options, handler) => serveFetch(typeof options === "function" ? options : handler),
};

const module = await import(pathToFileURL(process.argv[2]).href);
if (typeof module.GET === "function") {
  // As Next.js routes: the handler exported under the request's method (HEAD falls back to
  // GET), else 405.
  serveFetch((request) => {
    const handler = module[request.method] ?? (request.method === "HEAD" ? module.GET : undefined);
    return typeof handler === "function" ? handler(request) : new Response(null, { status: 405 });
  });
} else if (typeof module.default?.fetch === "function") {
  serveFetch((request) => module.default.fetch(request));
}
