/**
 * Which node requests count as read from a socket (`SvcRequest.readFromSocket`), the promise
 * that lets a warm bundle vouched for by its directory watches be answered at the end of the
 * turn: real HTTP/1 requests on their own connection, not pipelined ones waiting behind
 * another, not ones made in this process (an inject, on no socket). Real servers.
 */
import { createServer, IncomingMessage, ServerResponse } from "node:http";
import { type AddressInfo, connect, Socket } from "node:net";
import { PassThrough } from "node:stream";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RequestBody } from "../../http/requestHandler.ts";
import { BODY_STALL_MS, BODY_TOTAL_MS, toSvcRequest } from "./node.ts";

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

describe("node requests: reading the body", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /**
   * A server reading each request's body through `toSvcRequest`, and a client that sent the
   * head of a POST of 100 bytes and `first` of them. Resolves once the server has those.
   */
  async function slowBody(first: string) {
    let received: () => void = () => {};
    const arrived = new Promise<void>((resolve) => {
      received = resolve;
    });
    let outcome: Promise<RequestBody> | undefined;
    const server = createServer((req, res) => {
      outcome = toSvcRequest(req, req.url ?? "", res).body?.(1024);
      req.on("data", () => received());
      void outcome?.then(
        () => res.end("read"),
        () => {},
      );
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    closers.push(() => new Promise((resolve) => server.close(resolve)));
    const socket = connect((server.address() as AddressInfo).port, "127.0.0.1");
    closers.push(async () => socket.destroy());
    socket.on("error", () => {});
    let closed = false;
    socket.once("close", () => {
      closed = true;
    });
    socket.write(`POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n${first}`);
    await arrived;
    return {
      socket,
      get closed() {
        return closed;
      },
      outcome: () => outcome as Promise<RequestBody>,
      /** Sends more of the body and waits until the server has it. */
      async send(more: string) {
        const next = new Promise<void>((resolve) => {
          received = resolve;
        });
        socket.write(more);
        await next;
      },
    };
  }

  const settle = () => new Promise((resolve) => setImmediate(resolve));

  it("closes the connection of a body that stalls, and the read fails", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const client = await slowBody('{"a":');
    const failed = client.outcome().then(
      () => false,
      () => true,
    );
    vi.advanceTimersByTime(BODY_STALL_MS - 1);
    await settle();
    expect(client.closed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(await failed).toBe(true);
    await expect.poll(() => client.closed).toBe(true);
  });

  it("lets a body that keeps coming take its time, up to its whole limit", async () => {
    vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] });
    const client = await slowBody("[");
    const failed = client.outcome().then(
      () => false,
      () => true,
    );
    // A byte every 9 s keeps it going …
    let elapsed = 0;
    while (elapsed + BODY_STALL_MS - 1_000 < BODY_TOTAL_MS) {
      vi.advanceTimersByTime(BODY_STALL_MS - 1_000);
      elapsed += BODY_STALL_MS - 1_000;
      await client.send(" ");
      expect(client.closed).toBe(false);
    }
    // … until the body has taken its whole time.
    vi.advanceTimersByTime(BODY_TOTAL_MS - elapsed);
    expect(await failed).toBe(true);
    await expect.poll(() => client.closed).toBe(true);
  });

  it("reads a body that arrives in time", async () => {
    const client = await slowBody('{"a":');
    await client.send(`1}${" ".repeat(100 - 7)}`);
    const body = await client.outcome();
    expect("bytes" in body && Buffer.from(body.bytes).toString().trim()).toBe('{"a":1}');
  });
});
