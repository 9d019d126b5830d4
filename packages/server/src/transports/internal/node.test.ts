/**
 * Which node requests count as read from a socket (`SvcRequest.readFromSocket`), the promise
 * that lets a warm bundle vouched for by its directory watches be answered at the end of the
 * turn: real HTTP/1 requests on their own connection, not pipelined ones waiting behind
 * another, not ones made in this process (an inject, on no socket). Real servers.
 */
import { createServer, IncomingMessage, ServerResponse } from "node:http";
import { type AddressInfo, connect, Socket } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it } from "vitest";
import { toSvcRequest } from "./node.ts";

const closers: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

/** A node server noting, per request path, what `toSvcRequest` says; answers after `delayMs`. */
async function noting(delayMs = 0) {
  const seen: Record<string, boolean> = {};
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    seen[req.url ?? ""] = toSvcRequest(req, req.url ?? "", res).readFromSocket === true;
    setTimeout(() => res.end("ok"), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  closers.push(() => new Promise((resolve) => server.close(resolve)));
  return { seen, port: (server.address() as AddressInfo).port };
}

describe("node requests: read from a socket", () => {
  it("a request on its own connection is; one without its response is not", async () => {
    const { seen, port } = await noting();
    await (await fetch(`http://127.0.0.1:${port}/a`)).text();
    expect(seen["/a"]).toBe(true);
    // Without the response, nothing says how the request came.
    const server = createServer((req) => {
      seen.bare = toSvcRequest(req, "/bare").readFromSocket === true;
      req.socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`).catch(() => {});
    expect(seen.bare).toBe(false);
  });

  it("a request pipelined behind another is not (it may have arrived after its poll began)", async () => {
    const { seen, port } = await noting(20);
    const socket = connect(port, "127.0.0.1");
    closers.push(async () => socket.destroy());
    const request = (path: string) => `GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`;
    let answers = "";
    await new Promise<void>((resolve) => {
      socket.on("data", (chunk) => {
        answers += chunk.toString();
        if (answers.split("HTTP/1.1 200").length === 3) resolve();
      });
      socket.write(request("/first") + request("/second"));
    });
    expect(seen).toEqual({ "/first": true, "/second": false });
  });

  it("a request made in this process is not (as an inject makes it, on no real socket)", () => {
    // What Fastify's inject (light-my-request) and similar do: node's request and response
    // objects over a stream that is no socket the event loop polls.
    const stream = new PassThrough();
    const req = new IncomingMessage(stream as unknown as Socket);
    req.httpVersionMajor = 1;
    req.url = "/x";
    const res = new ServerResponse(req);
    res.assignSocket(stream as unknown as Socket);
    expect(toSvcRequest(req, "/x", res).readFromSocket).toBe(false);
    // The same objects on a real (if unconnected) socket would count: the check is the socket.
    const real = new Socket();
    const onSocket = new ServerResponse(req);
    onSocket.assignSocket(real);
    expect(toSvcRequest(req, "/x", onSocket).readFromSocket).toBe(true);
    real.destroy();
  });
});
