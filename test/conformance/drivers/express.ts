import { svcExpress } from "../../../packages/server/src/transports/express.ts";
import { type Driver, frameworkDriver, listenNode } from "./driver.ts";

type Express = typeof import("express");

/** `app.use(prefix, svcExpress(…))` on the Express installed as `pkg` ("express", "express4"). */
export function expressDriver(pkg: "express" | "express4"): Driver {
  return frameworkDriver<Express>("express", pkg, (express, { source, options, prefix }) => {
    const app = express();
    app.use(prefix, svcExpress(source, options));
    return listenNode(app);
  });
}
