import type { Server } from "node:http";
import { createAdaptorServer } from "@hono/node-server";
import { createFetchHandler } from "../../../packages/server/src/transports/fetch.ts";
import { type Driver, listenNode } from "./driver.ts";

/** The web-standard handler, served by @hono/node-server's Request/Response adaptor. */
export const fetchDriver: Driver = {
  name: "fetch (createFetchHandler)",
  normalisesDotSegments: true,
  start({ source, options, prefix }) {
    const fetch = createFetchHandler(source, { ...options, prefix });
    return listenNode(createAdaptorServer({ fetch }) as Server);
  },
};
