// First: on an older Node, one clear line instead of a failure further in.
import "../util/nodeVersion.ts";
import type { FastifyPluginAsync, FastifyReply } from "fastify";
import type { ComponentRegistry } from "../components/componentRegistry.ts";
import type { SvcResponse } from "../http/requestHandler.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { andThen } from "../util/maybePromise.ts";
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
  // `app.close()` shuts svc down too: renders in flight finish, the render workers stop.
  app.addHook("onClose", () => handle.close());
  // This plugin's routes leave bodies unread: svc reads an island's props from the request
  // itself, as on every Node transport (its limit, its errors, whatever the type). Being
  // encapsulated, the app's parsers and `bodyLimit` stay as they are for its own routes.
  app.removeAllContentTypeParsers();
  app.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined));
  // Not an async handler: an answer at hand is sent at once, with no promise made.
  app.all("/*", (request, reply) => {
    const url = belowDepth(request.raw.url ?? "/", depth);
    const response = handle(toSvcRequest(request.raw, url, reply.raw));
    return andThen(response, (ready) => send(reply, ready));
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
