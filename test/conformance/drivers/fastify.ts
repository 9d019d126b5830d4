import { svcFastify } from "../../../packages/server/src/transports/fastify.ts";
import { type Driver, frameworkDriver, isHandlers } from "./driver.ts";

type Fastify = typeof import("fastify");

/** `app.register(svcFastify, { prefix, registry })` on the Fastify installed as `pkg`. */
export function fastifyDriver(pkg: "fastify" | "fastify-lowest"): Driver {
  return frameworkDriver<Fastify["default"]>(
    "fastify",
    pkg,
    async (fastify, { source, options, prefix }) => {
      const app = fastify();
      const sourceOption = isHandlers(source) ? { handlers: source } : { registry: source };
      await app.register(svcFastify, { prefix, ...sourceOption, ...options });
      const url = await app.listen({ port: 0, host: "127.0.0.1" });
      return { url, close: () => app.close() };
    },
  );
}
