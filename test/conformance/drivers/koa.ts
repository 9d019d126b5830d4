import { svcKoa } from "../../../packages/server/src/transports/koa.ts";
import { type Driver, listenNode } from "./driver.ts";

type Koa = typeof import("koa");

/** `app.use(svcKoa(…, { prefix }))` on the Koa installed as `pkg` ("koa", "koa2"). */
export function koaDriver(pkg: "koa" | "koa2"): Driver {
  return {
    name: `koa (${pkg})`,
    normalisesDotSegments: false,
    async start({ source, options, prefix }) {
      const Koa = ((await import(pkg)) as { default: Koa }).default;
      const app = new Koa();
      app.use(svcKoa(source, { ...options, prefix }));
      return listenNode(app.callback());
    },
  };
}
