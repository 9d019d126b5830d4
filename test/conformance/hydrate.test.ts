/**
 * The island endpoint's `hydrate` query over real HTTP (`createNodeHandler` on `node:http`):
 * every strategy `parseHydrate` names renders, anything else is `400 InvalidProps`.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { makeTempDir, removeDir, writeFiles } from "../browser/helpers.ts";
import { ComponentRegistry, createNodeHandler, type NodeHandler, silentLogger } from "./svc.ts";

let dir: string;
let handler: NodeHandler;
let server: Server;
let base: string;

beforeAll(async () => {
  dir = await makeTempDir("svc-hydrate-");
  await writeFiles(dir, {
    "greeting/index.tsx": "export default function Greeting() {\n  return <p>Hello</p>;\n}\n",
  });
  handler = createNodeHandler(new ComponentRegistry(dir, { logger: silentLogger }), {
    prefix: "/api",
    logger: silentLogger,
    live: false,
    renderIsolation: "none",
  });
  server = createServer((req, res) => handler(req, res, () => res.writeHead(404).end()));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await handler?.close();
  await new Promise((resolve) => server?.close(resolve));
  await removeDir(dir);
});

const render = (hydrate: string) =>
  fetch(`${base}/api/bundles/greeting/html?hydrate=${encodeURIComponent(hydrate)}`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: "{}",
  });

describe("POST …/html?hydrate=", () => {
  for (const hydrate of [
    "interaction",
    "visible",
    "visible:200px",
    "visible:200px 0px",
    "media:(min-width: 800px)",
    "media:screen and (max-width: 40em)",
    "media:(prefers-reduced-motion: reduce)",
  ]) {
    it(`renders an island of ${hydrate}`, async () => {
      const answer = await render(hydrate);
      expect(answer.status).toBe(200);
      expect(await answer.text()).toContain(`data-svc-hydrate="${hydrate}"`);
    });
  }

  for (const hydrate of [
    "media:bogus",
    "media:(min-width: 800px",
    "visible:200",
    "visible:200em",
    "visible:1px 2px 3px 4px 5px",
    "interaction:click",
    "sometimes",
  ]) {
    it(`answers 400 InvalidProps for ${hydrate}`, async () => {
      const answer = await render(hydrate);
      expect(answer.status).toBe(400);
      expect(((await answer.json()) as { error: string }).error).toBe("InvalidProps");
    });
  }
});
