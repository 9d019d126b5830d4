// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Handlers } from "../http/handlers.ts";
import type { SvcResponse } from "../http/requestHandler.ts";
import { type BridgeOptions, createFrameworkHandler } from "./bridgeHandler.ts";
import { toNodeBody, toSvcRequest } from "./internal/node.ts";
import { belowDepth, mountDepth } from "./mount.ts";

export interface SvcFastifyOptions extends BridgeOptions {
  /** The components to serve; or pass a ready handler set as `handlers`. */
  registry?: ComponentRegistry;
  handlers?: Handlers;
}

/**
 * The svc endpoints as a Fastify 5 plugin, live reload included in development. It is
 * encapsulated (no `fastify-plugin`), so `prefix` works. It routes `<prefix>/*` to svc; the
 * app's own routes below the same prefix still win, as Fastify prefers static and parametric
 * routes over a wildcard.
 *
 * ```ts
 * app.register(svcFastify, { prefix: "/api", registry });
 * ```
 */
export const svcFastify: FastifyPluginAsync<SvcFastifyOptions> = async (app, options) => {
  const source = options.handlers ?? options.registry;
  const handle = createFrameworkHandler("svcFastify", "fastify", "fastify", source, options);
  const depth = mountDepth(app.prefix);
  // This plugin's routes take bodies as bytes (svc parses an island's JSON props itself, with
  // its own limit and errors); being encapsulated, the app's parsers stay as they are.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser(
    "*",
    { parseAs: "buffer", bodyLimit: 16 * 1024 * 1024 },
    (_request, body, done) => done(null, body),
  );
  // Not an async handler: an answer at hand is sent at once, with no promise made.
  app.all("/*", (request, reply) => {
    const url = belowDepth(request.raw.url ?? "/", depth);
    const response = handle(toSvcRequest(request.raw, url, reply.raw, () => request.body));
    return response instanceof Promise
      ? response.then((ready) => send(reply, ready))
      : send(reply, response);
  });
};

function send(reply: FastifyReply, { status, headers, body }: SvcResponse): FastifyReply {
  reply.code(status).headers(headers);
  return reply.send(toNodeBody(body));
}

/** @deprecated Renamed {@link svcFastify}; this alias goes in the next minor version. */
export const svcPlugin = svcFastify;
/** @deprecated Renamed {@link SvcFastifyOptions}. */
export type SvcPluginOptions = SvcFastifyOptions;
