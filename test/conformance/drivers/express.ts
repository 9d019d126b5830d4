import { svcExpress } from "../../../packages/server/src/transports/express.ts";
import { type Driver, listenNode } from "./driver.ts";

type Express = typeof import("express");

/** `app.use(prefix, svcExpress(…))` on the Express installed as `pkg` ("express", "express4"). */
export function expressDriver(pkg: "express" | "express4"): Driver {
  return {
    name: `express (${pkg})`,
    normalisesDotSegments: false,
    async start({ source, options, prefix }) {
      const express = ((await import(pkg)) as { default: Express }).default;
      const app = express();
      app.use(prefix, svcExpress(source, options));
      return listenNode(app);
    },
  };
}
