import type { Server } from "node:http";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { svcHono } from "../../../packages/server/src/transports/hono.ts";
import { type Driver, runningNode } from "./driver.ts";

/**
 * `app.use(`${prefix}/*`, svcHono(…))`, served by @hono/node-server. Which Hono runs is the
 * test file's choice: `hono-lowest.test.ts` maps "hono" to hono@4.0.0 with `vi.mock` (the
 * middleware itself needs nothing of Hono at run time).
 */
export const honoDriver: Driver = {
  name: "hono",
  normalisesDotSegments: true,
  async start({ source, options, prefix }) {
    const app = new Hono();
    app.use(`${prefix}/*`, svcHono(source, options));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    // @hono/node-server's `serve` makes a node:http server unless told otherwise.
    return runningNode(server as Server);
  },
};
