/**
 * Helpers of the reliability tests: exact-byte HTTP requests, loggers that remember, the
 * bridges they run against, temporary directories, signals between a test and the code it
 * holds up.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import type { Driver } from "../conformance/drivers/driver.ts";
import { expressDriver } from "../conformance/drivers/express.ts";
import { fastifyDriver } from "../conformance/drivers/fastify.ts";
import { honoDriver } from "../conformance/drivers/hono.ts";
import { koaDriver } from "../conformance/drivers/koa.ts";
import { nodeDriver } from "../conformance/drivers/node.ts";
import type { WireErrorKind as ErrorKind, Logger } from "../conformance/svc.ts";

export const JSON_TYPE = "application/json; charset=utf-8";

export const ERROR_KINDS: readonly ErrorKind[] = [
  "ComponentNotFound",
  "InvalidComponentName",
  "BundleError",
  "InvalidSchema",
  "StaticMode",
  "NotFound",
  "MethodNotAllowed",
  "InternalError",
];

export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

/**
 * Sends one request whose request line is exactly `method + " " + target` (as latin1 bytes,
 * so raw UTF-8, backslashes, even NUL and spaces go out unchanged) over a fresh connection
 * and reads the answer (Content-Length, chunked, or until close).
 */
export function sendRaw(
  base: string,
  target: string | Buffer,
  options: { method?: string; headers?: Record<string, string>; body?: string } = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(base);
  const head = [
    Buffer.from(`${options.method ?? "GET"} `, "latin1"),
    typeof target === "string" ? Buffer.from(target, "latin1") : target,
    Buffer.from(" HTTP/1.1\r\n", "latin1"),
  ];
  const headers: Record<string, string> = {
    host: `${hostname}:${port}`,
    connection: "close",
    ...options.headers,
  };
  if (options.body !== undefined)
    headers["content-length"] = String(Buffer.byteLength(options.body));
  for (const [name, value] of Object.entries(headers)) {
    head.push(Buffer.from(`${name}: ${value}\r\n`, "latin1"));
  }
  head.push(Buffer.from("\r\n"));
  if (options.body !== undefined) head.push(Buffer.from(options.body));
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    socket.on("data", (chunk: Buffer) => chunks.push(chunk));
    socket.on("error", (error: NodeJS.ErrnoException) => {
      // A server may reset a connection it refuses; what it sent first still counts.
      if (error.code === "ECONNRESET" && chunks.length > 0) return;
      reject(error);
    });
    socket.on("close", () => {
      try {
        resolve(parseResponse(Buffer.concat(chunks)));
      } catch (error) {
        reject(error);
      }
    });
    // Not `end()`: a server may drop a half-closed connection before it answers.
    socket.write(Buffer.concat(head));
  });
}

function parseResponse(raw: Buffer): RawAnswer {
  const end = raw.indexOf("\r\n\r\n");
  if (end === -1) throw new Error(`no HTTP response (${raw.length} bytes received)`);
  const [statusLine = "", ...lines] = raw.subarray(0, end).toString("latin1").split("\r\n");
  const status = Number(statusLine.split(" ")[1]);
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  let body = raw.subarray(end + 4);
  if (headers["transfer-encoding"]?.includes("chunked")) body = unchunk(body);
  else if (headers["content-length"] !== undefined) {
    body = body.subarray(0, Number(headers["content-length"]));
  }
  return { status, headers, body };
}

function unchunk(data: Buffer): Buffer {
  const parts: Buffer[] = [];
  let at = 0;
  while (at < data.length) {
    const lineEnd = data.indexOf("\r\n", at);
    const size = Number.parseInt(data.subarray(at, lineEnd).toString("latin1"), 16);
    if (!(size > 0)) break;
    parts.push(data.subarray(lineEnd + 2, lineEnd + 2 + size));
    at = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** The UTF-8 bytes of `text`, as the latin1 string `sendRaw` writes byte for byte. */
export function utf8Bytes(text: string): string {
  return Buffer.from(text, "utf8").toString("latin1");
}

/** Percent-encodes every byte of the UTF-8 form of `text`. */
export function encodeAll(text: string): string {
  return [...Buffer.from(text)]
    .map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`)
    .join("");
}

/** A logger that keeps what it is told, for assertions (and prints nothing). */
export function recordingLogger(): Logger & { errors: unknown[]; warnings: string[] } {
  const errors: unknown[] = [];
  const warnings: string[] = [];
  return {
    errors,
    warnings,
    info() {},
    warn(message) {
      warnings.push(message);
    },
    error(message, error) {
      errors.push(error ?? message);
    },
  };
}

/** The node handler and each framework bridge (its latest version), in a real server. */
export const DRIVERS: Driver[] = [
  nodeDriver,
  expressDriver("express"),
  fastifyDriver("fastify"),
  koaDriver("koa"),
  honoDriver,
];

/**
 * Temporary directories of a test file, all removed after its tests: call once at the top of
 * the file; the function it returns makes one (at load time too).
 */
export function tempDirs(): (prefix: string) => string {
  const made: string[] = [];
  afterAll(() => {
    for (const dir of made) rmSync(dir, { recursive: true, force: true });
  });
  return (prefix) => {
    const dir = mkdtempSync(join(tmpdir(), prefix));
    made.push(dir);
    return dir;
  };
}

/** A promise and the function that resolves it: a gate a test opens, or a sign it waits for. */
export function signal(): { promise: Promise<void>; resolve: () => void } {
  let resolve = () => {};
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}
