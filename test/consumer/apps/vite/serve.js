// Serves the Vite build (dist/) and the svc API at /api from one node:http server.
import { readFile } from "node:fs/promises";
import { createServer } from "node:http";
import { extname, join, normalize } from "node:path";
import { ComponentRegistry } from "@svc/server";
import { createNodeHandler } from "@svc/server/node";

const api = createNodeHandler(new ComponentRegistry("./components"), { prefix: "/api" });
const types = { ".html": "text/html", ".js": "text/javascript", ".map": "application/json" };

const server = createServer((req, res) => {
  const path = new URL(req.url ?? "/", "http://x").pathname;
  if (path.startsWith("/api/")) return api(req, res);
  const file = join("dist", normalize(path === "/" ? "/index.html" : path));
  readFile(file).then(
    (body) => {
      res.writeHead(200, { "content-type": types[extname(file)] ?? "application/octet-stream" });
      res.end(body);
    },
    () => {
      res.writeHead(404).end();
    },
  );
});
server.listen(0, "127.0.0.1", () => {
  console.log(`LISTENING http://127.0.0.1:${server.address().port}`);
});
