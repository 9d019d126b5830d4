/** What the conformance suite needs from each transport: mount svc, listen, close. */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type { BridgeOptions, ComponentRegistry, Handlers } from "../svc.ts";

export interface MountSpec {
  /** A registry (the bridge builds its handler set) or a ready handler set. */
  source: ComponentRegistry | Handlers;
  options: BridgeOptions;
  /** e.g. "/api" or "/ui/components". */
  prefix: string;
}

export interface Running {
  /** `http://127.0.0.1:<port>` */
  url: string;
  close(): Promise<void>;
}

export interface Driver {
  name: string;
  /**
   * The transport hands svc a URL that went through a WHATWG URL parser, which removes dot
   * segments (`..`, `%2e%2e`) before svc sees the path: true for fetch-based ones.
   */
  normalisesDotSegments: boolean;
  /**
   * The framework parses request bodies before svc sees them and no route of svc's can opt
   * out (NestJS on Fastify: Fastify's parsers, its `bodyLimit`), so a body it refuses is
   * answered by it, in its own error body: the cases' `frameworkAnswers` status.
   */
  parsesBodiesFirst?: boolean;
  /** Mounts svc under `prefix` in a real server of the framework on 127.0.0.1, port 0. */
  start(spec: MountSpec): Promise<Running>;
}

/**
 * A driver for a framework installed under several package names (`pkg`: "express",
 * "express4", …): `mount` gets the default export of the one named and mounts svc on it.
 */
export function frameworkDriver<Framework>(
  framework: string,
  pkg: string,
  mount: (framework: Framework, spec: MountSpec) => Promise<Running>,
): Driver {
  return {
    name: `${framework} (${pkg})`,
    normalisesDotSegments: false,
    async start(spec) {
      return mount(((await import(pkg)) as { default: Framework }).default, spec);
    },
  };
}

export function isHandlers(source: ComponentRegistry | Handlers): source is Handlers {
  return typeof (source as Handlers).getBundle === "function";
}

/** Listens on an ephemeral loopback port; `close` also drops idle connections. */
export async function listenNode(listener: RequestListener | Server): Promise<Running> {
  const server = typeof listener === "function" ? createServer(listener) : listener;
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return runningNode(server);
}

export function runningNode(server: Server): Running {
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
