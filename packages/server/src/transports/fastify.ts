import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import {
  type BridgeOptions,
  createBridgeHandler,
  type SvcResponse,
} from "../http/requestHandler.ts";
import { belowDepth, mountDepth } from "./mount.ts";
import { toBuffer, toSvcRequest } from "./node.ts";
import { importPeer } from "./peer.ts";

await importPeer("fastify", "@svc/server/fastify", "fastify");

export interface SvcPluginOptions extends BridgeOptions {
  /** The components to serve; or pass a ready handler set as `handlers`. */
  registry?: ComponentRegistry;
  handlers?: Handlers;
}

/**
 * The svc endpoints as a Fastify 5 plugin. It is encapsulated (no `fastify-plugin`), so
 * `prefix` works. It routes `<prefix>/*` to svc; the app's own routes below the same prefix
 * still win, as Fastify prefers static and parametric routes over a wildcard.
 *
 * ```ts
 * app.register(svcPlugin, { prefix: "/api", registry });
 * ```
 */
export const svcPlugin: FastifyPluginAsync<SvcPluginOptions> = async (app, options) => {
  const source = options.handlers ?? options.registry;
  if (source === undefined) {
    throw new TypeError("svcPlugin needs a `registry` (or `handlers`) option");
  }
  const handle = createBridgeHandler(source, options);
  const depth = mountDepth(app.prefix);
  // Not an async handler: a warm bundle is sent in the same tick, with no promise made.
  app.all("/*", (request, reply) => {
    const url = belowDepth(request.raw.url ?? "/", depth);
    const response = handle(toSvcRequest(request.raw, url));
    return response instanceof Promise
      ? response.then((ready) => send(reply, ready))
      : send(reply, response);
  });
};

function send(reply: FastifyReply, { status, headers, body }: SvcResponse): FastifyReply {
  reply.code(status).headers(headers);
  return reply.send(
    body === null || typeof body === "string" ? (body ?? undefined) : toBuffer(body),
  );
}
