import { svcFastify } from "../../../packages/server/src/transports/fastify.ts";
import { type Driver, isHandlers } from "./driver.ts";

type Fastify = typeof import("fastify");

/** `app.register(svcFastify, { prefix, registry })` on the Fastify installed as `pkg`. */
export function fastifyDriver(pkg: "fastify" | "fastify-lowest"): Driver {
  return {
    name: `fastify (${pkg})`,
    normalisesDotSegments: false,
    async start({ source, options, prefix }) {
      const fastify = ((await import(pkg)) as { default: Fastify["default"] }).default;
      const app = fastify();
      const sourceOption = isHandlers(source) ? { handlers: source } : { registry: source };
      await app.register(svcFastify, { prefix, ...sourceOption, ...options });
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      return { url, close: () => app.close() };
    },
  };
}
