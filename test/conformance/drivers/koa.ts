import { svcKoa } from "../../../packages/server/src/transports/koa.ts";
import { type Driver, frameworkDriver, listenNode } from "./driver.ts";

type Koa = typeof import("koa");

/** `app.use(svcKoa(…, { prefix }))` on the Koa installed as `pkg` ("koa", "koa2"). */
export function koaDriver(pkg: "koa" | "koa2"): Driver {
  return frameworkDriver<Koa>("koa", pkg, (Koa, { source, options, prefix }) => {
    const app = new Koa();
    app.use(svcKoa(source, { ...options, prefix }));
    return listenNode(app.callback());
  });
}
