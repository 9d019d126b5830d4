import type { AddressInfo } from "node:net";
import { serve } from "@hono/node-server";
import { Hono } from "hono";
import { createRoutes } from "../../../packages/server/src/transports/hono.ts";
import type { Driver } from "./driver.ts";

/**
 * `app.route(prefix, createRoutes(…))`, served by @hono/node-server. Which Hono runs is the
 * test file's choice: `hono-lowest.test.ts` maps "hono" to hono@4.0.0 with `vi.mock`, so the
 * app and the bridge's sub-app both come from the same (lowest) version.
 */
export const honoDriver: Driver = {
  name: "hono",
  normalisesDotSegments: true,
  async start({ source, options, prefix }) {
    const app = new Hono();
    app.route(prefix, createRoutes(source, options));
    const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
    });
    const { port } = server.address() as AddressInfo;
    return {
      url: `http://127.0.0.1:${port}`,
      close: () =>
        new Promise<void>((resolve) => {
          server.close(() => resolve());
          if ("closeAllConnections" in server) server.closeAllConnections();
        }),
    };
  },
};
