/**
 * `svc serve` cannot be locked out by clients that hold connections: floods of event-stream
 * clients and of slow request bodies, over real sockets against the real dev server, while a
 * normal request must be answered within a second. Every client here comes from loopback;
 * Linux routes all of 127/8 there, so a second client address is `localAddress: 127.0.0.2`.
 */
import { execFileSync } from "node:child_process";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { writeTree } from "../../packages/server/src/test/fixtures.ts";
import {
  type DevServer,
  type DevServerOptions,
  silentLogger,
  startDevServer,
} from "../conformance/svc.ts";

/** Open files this process may have (Node raises its soft limit to the hard one at start). */
function openFileLimit(): number {
  try {
    const out = execFileSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).trim();
    return out === "unlimited" ? Number.POSITIVE_INFINITY : Number(out);
  } catch {
    return 0;
  }
}

/** Whether this machine can reach the server from a second loopback address. */
function secondLoopback(): boolean {
  return process.platform === "linux";
}

const FLOOD = 2_000;
// Both ends of each connection are in this process, plus the server's own files.
const NEEDED_FILES = 2 * FLOOD + 500;
const files = openFileLimit();
const enoughFiles = files >= NEEDED_FILES;
if (!enoughFiles) {
  console.log(
    `connections.test: skipping the floods of ${FLOOD} clients: ulimit -n is ${files}, they need ${NEEDED_FILES} (raise it with ulimit -n ${NEEDED_FILES})`,
  );
}
if (!secondLoopback()) {
  console.log(
    "connections.test: skipping the per-address test: 127.0.0.2 is loopback on Linux only",
  );
}

const servers: DevServer[] = [];
const sockets: Socket[] = [];
afterEach(async () => {
  for (const socket of sockets.splice(0)) socket.destroy();
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(options: DevServerOptions = {}): Promise<DevServer> {
  const dir = writeTree({ "card/index.tsx": 'export default () => "card";\n' });
  const server = await startDevServer({
    componentsDir: dir,
    host: "127.0.0.1",
    port: 0,
    logger: silentLogger,
    logRequests: false,
    live: { pollMs: 0, watch: false },
    ...options,
  });
  servers.push(server);
  return server;
}

/** A raw connection and the head of its answer (status 0: closed before any answer). */
interface Held {
  socket: Socket;
  status: number;
  headers: Record<string, string>;
  /** What arrived after the head, so far. */
  body(): string;
  closed: Promise<void>;
}

/**
 * Opens a connection (from `localAddress`), sends `head` (and `body`, possibly less than its
 * Content-Length says) and resolves once the answer's head is in, or the connection closed.
 */
function hold(
  port: number,
  head: string,
  options: { localAddress?: string; body?: string; waitForAnswer?: boolean } = {},
): Promise<Held> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1", localAddress: options.localAddress });
    sockets.push(socket);
    let received = "";
    let answered = false;
    const closed = new Promise<void>((done) => socket.once("close", () => done()));
    const held = (status: number, headers: Record<string, string>, rest: number): Held => ({
      socket,
      status,
      headers,
      body: () => received.slice(rest),
      closed,
    });
    socket.setEncoding("latin1");
    socket.on("error", () => {});
    socket.on("data", (chunk: string) => {
      received += chunk;
      const end = received.indexOf("\r\n\r\n");
      if (answered || end === -1) return;
      answered = true;
      const [statusLine = "", ...lines] = received.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(":");
        headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve(held(Number(statusLine.split(" ")[1]), headers, end + 4));
    });
    socket.once("close", () => {
      if (!answered) resolve(held(0, {}, 0));
    });
    socket.once("connect", () => {
      socket.write(head + (options.body ?? ""));
      if (options.waitForAnswer === false) resolve(held(0, {}, 0));
    });
  });
}

const eventsHead = (port: number) =>
  `GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAccept: text/event-stream\r\n\r\n`;

/** `count` event-stream clients, connected a few hundred at a time (as a flood arrives). */
async function floodEvents(port: number, count: number): Promise<Held[]> {
  const all: Held[] = [];
  for (let at = 0; at < count; at += 250) {
    const batch = Array.from({ length: Math.min(250, count - at) }, () =>
      hold(port, eventsHead(port)),
    );
    for (const client of await Promise.all(batch)) {
      // A refused client goes, as a browser's would after reading the answer.
      if (client.status !== 200) client.socket.destroy();
      all.push(client);
    }
  }
  return all;
}

/** `GET /api/bundles` on a fresh connection: its status and how long it took, in ms. */
function normalRequest(port: number, localAddress = "127.0.0.1") {
  const started = performance.now();
  return new Promise<{ status: number; ms: number; body: string }>((resolve) => {
    const req = request(
      { host: "127.0.0.1", port, path: "/api/bundles", localAddress, agent: false, timeout: 5_000 },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (chunk: string) => {
          body += chunk;
        });
        res.on("end", () =>
          resolve({ status: res.statusCode ?? 0, ms: performance.now() - started, body }),
        );
      },
    );
    const fail = () => resolve({ status: 0, ms: performance.now() - started, body: "" });
    req.on("error", fail);
    req.on("timeout", () => req.destroy());
    req.end();
  });
}

function countBy(clients: Held[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const { status } of clients) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

async function expectOverloaded(client: Held, retryAfter: string) {
  expect(client.status).toBe(503);
  expect(client.headers["retry-after"]).toBe(retryAfter);
  expect(client.headers["content-type"]).toMatch(/^application\/json/);
  const length = Number(client.headers["content-length"]);
  await expect.poll(() => client.body().length).toBeGreaterThanOrEqual(length);
  expect(JSON.parse(client.body().slice(0, length))).toMatchObject({ error: "Overloaded" });
}

describe("svc serve under connection floods", () => {
  it.skipIf(!enoughFiles)(
    `answers a normal request within 1 s while ${FLOOD} clients ask for the event stream, past 256 with 503 and Retry-After`,
    async () => {
      // No per-address limit: the cap on event streams alone must protect the server.
      const server = await serve({ maxConnectionsPerAddress: Number.POSITIVE_INFINITY });
      const clients = await floodEvents(server.port, FLOOD);
      expect(countBy(clients)).toEqual({ 200: 256, 503: FLOOD - 256 });
      await expectOverloaded(clients.find((c) => c.status === 503) as Held, "10");
      expect(server.live?.listeners).toBe(256);
      // While the 256 hold their streams, from the very same address:
      const normal = await normalRequest(server.port);
      expect(normal.status).toBe(200);
      expect(normal.ms).toBeLessThan(1_000);
      expect(JSON.parse(normal.body)).toEqual([{ name: "card" }]);
    },
  );

  it.skipIf(!secondLoopback())(
    "limits the connections of one address (64): past it 503 with Retry-After, other addresses answered within 1 s",
    async () => {
      const server = await serve();
      const port = server.port;
      const clients = await floodEvents(port, 200);
      expect(countBy(clients)).toEqual({ 200: 64, 503: 200 - 64 });
      const refused = clients.find((c) => c.status === 503) as Held;
      await expectOverloaded(refused, "5");
      expect(refused.headers.connection).toBe("close");
      // The first address is at its limit; the second is answered at once.
      expect((await normalRequest(port, "127.0.0.1")).status).toBe(503);
      const other = await normalRequest(port, "127.0.0.2");
      expect(other.status).toBe(200);
      expect(other.ms).toBeLessThan(1_000);
      // A connection past the limit that sends nothing is closed within its 2 s grace.
      const started = performance.now();
      const silent = await hold(port, "", { waitForAnswer: false });
      await silent.closed;
      expect(performance.now() - started).toBeLessThan(3_000);
      // Once its streams end, the first address is answered again.
      for (const client of clients) client.socket.destroy();
      await expect.poll(async () => (await normalRequest(port, "127.0.0.1")).status).toBe(200);
    },
  );

  it("caps the event-stream clients of a handler set: 503 Overloaded past it, a place again when one leaves", async () => {
    const server = await serve({ maxEventClients: 3 });
    const port = server.port;
    const clients = await Promise.all(
      Array.from({ length: 3 }, () => hold(port, eventsHead(port))),
    );
    expect(clients.map((c) => c.status)).toEqual([200, 200, 200]);
    const fourth = await hold(port, eventsHead(port));
    await expectOverloaded(fourth, "10");
    // A HEAD (a client asking whether a stream is served here) takes no place.
    const head = await hold(port, `HEAD /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    expect(head.status).toBe(200);
    (clients[0] as Held).socket.destroy();
    await expect.poll(() => server.live?.listeners).toBe(2);
    const again = await hold(port, eventsHead(port));
    expect(again.status).toBe(200);
    expect(again.body()).toContain("retry: 1000");
  });

  it.skipIf(!enoughFiles)(
    "answers a normal request within 1 s while 515 clients trickle request bodies, and frees them within seconds",
    async () => {
      const server = await serve({
        maxConnectionsPerAddress: Number.POSITIVE_INFINITY,
        headersTimeoutMs: 1_000,
        requestTimeoutMs: 1_000,
      });
      const port = server.port;
      const head = `POST /api/bundles/card/html HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n`;
      const started = performance.now();
      const slow = await Promise.all(
        Array.from({ length: 515 }, () =>
          hold(port, head, { body: '{"label":', waitForAnswer: false }),
        ),
      );
      const normal = await normalRequest(port);
      expect(normal.status).toBe(200);
      expect(normal.ms).toBeLessThan(1_000);
      // Each is answered 408 and closed once the request timeout is enforced.
      await Promise.all(slow.map((client) => client.closed));
      expect(performance.now() - started).toBeLessThan(4_000);
      const timedOut = slow.filter((client) => client.body().startsWith("HTTP/1.1 408")).length;
      expect(timedOut).toBe(515);
    },
  );
});
