import type { IncomingMessage, ServerResponse } from "node:http";
import { DEFAULT_API_BASE, STATIC_PATH } from "@svc/protocol";
import { HostNotAllowedError, NotFoundError } from "../errors.ts";
import { isHostAllowed } from "../http/hostCheck.ts";
import { errorResponse } from "../http/requestHandler.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import type { BridgeHandler } from "../transports/bridgeHandler.ts";
import { answerNode, writeNodeResponse } from "../transports/internal/node.ts";
import { belowPrefix } from "../transports/mount.ts";
import { PLAYGROUND_PREFIX, type PlaygroundOptions, playgroundResponse } from "./playground.ts";

/** Where `svc serve` exposes the files of its build directory (`--build-dir`). */
export const STATIC_PREFIX = `${STATIC_PATH}svc/`;

/**
 * What `svc serve` answers at each path: the API below `/api` (and its friendlier aliases),
 * the playground at `/`, and 404 for anything else — the last two behind the same `Host`
 * guard as the API.
 */
export class DevRoutes {
  readonly #api: BridgeHandler;
  readonly #handlers: Handlers;
  readonly #allowedHosts: true | readonly string[];
  readonly #playground: PlaygroundOptions;

  constructor(
    api: BridgeHandler,
    handlers: Handlers,
    allowedHosts: true | readonly string[],
    playground: PlaygroundOptions,
  ) {
    this.#api = api;
    this.#handlers = handlers;
    this.#allowedHosts = allowedHosts;
    this.#playground = playground;
  }

  answer(req: IncomingMessage, res: ServerResponse): void {
    const url = req.url ?? "/";
    const below = belowPrefix(url, DEFAULT_API_BASE) ?? aliasOf(url);
    if (below !== undefined) {
      answerNode(this.#api, req, res, below);
      return;
    }
    // The playground's answers and the 404s outside the API pass the same guards.
    const allowedHosts = this.#allowedHosts;
    if (allowedHosts !== true && !isHostAllowed(req.headers.host, allowedHosts)) {
      writeNodeResponse(res, errorResponse(new HostNotAllowedError(req.headers.host ?? "")));
      return;
    }
    const path = url.split("?")[0] ?? "/";
    const answer =
      (req.method === "GET" || req.method === "HEAD") &&
      playgroundResponse(this.#handlers, path, this.#playground);
    if (!answer) {
      writeNodeResponse(res, errorResponse(new NotFoundError(`Nothing at ${path.slice(0, 80)}.`)));
      return;
    }
    void answer.then((response) => {
      response.headers["x-content-type-options"] = "nosniff";
      if (req.method === "HEAD") response.body = null;
      writeNodeResponse(res, response);
    });
  }
}

/**
 * The core path of `svc serve`'s own paths: `/svc/…` is the API too (`/svc/loader.js`, and
 * everything a loader served from there asks of its own directory), and `/static/svc/…` the
 * build's files.
 */
function aliasOf(url: string): string | undefined {
  if (url.startsWith(STATIC_PREFIX)) return `${STATIC_PATH}${url.slice(STATIC_PREFIX.length)}`;
  // The playground's own files are not the API's.
  if (url.startsWith(PLAYGROUND_PREFIX)) return undefined;
  return belowPrefix(url, "/svc");
}
