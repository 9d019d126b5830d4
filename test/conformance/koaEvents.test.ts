/**
 * Koa reports an error of a body it pipes to the app (`app.on("error")`, else a stack trace in
 * its log): the live-reload stream, which ends when its client goes away, must not be one.
 */

import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { get } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import Koa from "koa";
import { afterAll, describe, expect, it } from "vitest";
import { ComponentRegistry, silentLogger } from "../../packages/server/src/index.ts";
import { svcKoa } from "../../packages/server/src/transports/koa.ts";
import { listenNode } from "./drivers/driver.ts";

const dir = mkdtempSync(join(tmpdir(), "svc-koa-events-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe("Koa: the live-reload stream", () => {
  it("ends quietly when its client goes away: no error reaches the app", async () => {
    mkdirSync(join(dir, "hello"));
    writeFileSync(join(dir, "hello", "index.tsx"), "export default () => <p>hi</p>;\n");
    const app = new Koa();
    const reported: unknown[] = [];
    app.on("error", (error) => reported.push(error));
    app.use(svcKoa(new ComponentRegistry(dir, { logger: silentLogger }), { prefix: "/api" }));
    const running = await listenNode(app.callback());
    try {
      for (let i = 0; i < 3; i++) {
        const first = await new Promise<string>((resolve, reject) => {
          const request = get(`${running.url}/api/events`, (response) => {
            expect(response.statusCode).toBe(200);
            expect(response.headers["content-type"]).toMatch(/^text\/event-stream/);
            let text = "";
            response.on("data", (chunk: Buffer) => {
              text += chunk.toString();
              if (!text.includes('"type":"hello"')) return;
              resolve(text);
              request.destroy();
            });
          });
          request.on("error", () => {});
          request.setTimeout(5_000, () => reject(new Error("no event")));
        });
        expect(first).toMatch(/"type":"hello"/);
      }
      await new Promise((resolve) => setTimeout(resolve, 200));
      expect(reported).toEqual([]);
    } finally {
      await running.close();
    }
  });
});
