import { createServer } from "node:net";
import { describe, expect, it } from "vitest";
import { runSvc, startSvc, writeTree } from "../test/fixtures.ts";

const start = (args: string[], cwd?: string) => startSvc(args, { cwd });
const run = (args: string[], cwd?: string) => runSvc(args, { cwd });

function busyPort(): Promise<{ port: number; close: () => void }> {
  return new Promise((resolve) => {
    const server = createServer().listen(0, "127.0.0.1", () => {
      const address = server.address();
      resolve({
        port: typeof address === "object" && address ? address.port : 0,
        close: () => server.close(),
      });
    });
  });
}

describe("svc CLI", () => {
  it("explains every flag in --help", async () => {
    const top = await run(["--help"]);
    expect(top.code).toBe(0);
    expect(top.stdout).toMatch(/serve/);
    const serve = await run(["serve", "--help"]);
    for (const flag of ["--components-dir", "--host", "--port", "--cors-origin"])
      expect(serve.stdout).toContain(flag);
  });

  it("lists each command once and shows no default for a --no- flag", async () => {
    const top = await run(["--help"]);
    expect(top.stdout).toContain("$ svc [command] [options]");
    expect(top.stdout).not.toContain("Same as");
    const commands = /Commands:\n([\s\S]*?)\n\n/.exec(top.stdout)?.[1] ?? "";
    expect(commands.split("\n").map((line) => line.trim().split(/\s+/)[0])).toEqual([
      "serve",
      "build",
      "types",
      "init",
    ]);
    expect(top.stdout).not.toMatch(/^ {2}\$ svc --help$/m);
    for (const args of [["--help"], ["serve", "--help"], ["build", "--help"]]) {
      const { stdout } = await run(args);
      expect(stdout).not.toMatch(/\(default: true\)/);
      expect(stdout).not.toMatch(/[ \t]$/m);
    }
    expect((await run(["serve", "--help"])).stdout).toMatch(
      /^ {2}--no-live +Turn off live reload/m,
    );
  });

  it.each([
    [["--bogus"], /^svc: unknown option --bogus — run svc --help/],
    [
      ["serve", "--components-dir", "does/not/exist"],
      /^svc: components directory does\/not\/exist does not exist — pass --components-dir/,
    ],
    [["serve", "--port", "http"], /^svc: --port must be an integer/],
    [["frobnicate"], /^svc: unknown command "frobnicate"/],
  ])("rejects %j with one line and exit code 2", async (args, message) => {
    const result = await run(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stderr.trim().split("\n")).toHaveLength(1);
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it("reports a port in use with one line and exit code 2", async () => {
    const busy = await busyPort();
    try {
      const result = await run(["serve", "--host", "127.0.0.1", "--port", String(busy.port)]);
      expect(result.code).toBe(2);
      expect(result.stderr.trim()).toBe(
        `svc: port ${busy.port} is already in use — pass --port to choose another`,
      );
    } finally {
      busy.close();
    }
  });

  it("serves the built-in examples by default, logs each request and stops cleanly on SIGTERM", async () => {
    const empty = writeTree({ "README.md": "no components here" });
    const svc = start(["--host", "127.0.0.1", "--port", "0"], empty);
    const [, url] = await svc.waitFor(/api: +(http:\/\/\S+)\/api\/bundles/);
    const names = ((await (await fetch(`${url}/api/bundles`)).json()) as { name: string }[]).map(
      (e) => e.name,
    );
    expect(names).toEqual(["carousel", "counter", "crasher", "greeting", "image"]);
    await svc.waitFor(/GET \/api\/bundles 200 \d+(\.\d+)?ms/);
    svc.child.kill("SIGTERM");
    expect((await svc.exited).code).toBe(0);
  });

  it("serves the live-reload stream unless --no-live", async () => {
    const project = writeTree({ "components/mine/index.tsx": "export default () => null;\n" });
    for (const [args, status] of [
      [[], 200],
      [["--no-live"], 204],
    ] as const) {
      const svc = start(["serve", "--host", "127.0.0.1", "--port", "0", ...args], project);
      const [, url] = await svc.waitFor(/api: +(http:\/\/\S+)\/api\/bundles/);
      const controller = new AbortController();
      const res = await fetch(`${url}/api/events`, { signal: controller.signal });
      expect(res.status).toBe(status);
      controller.abort();
      svc.child.kill("SIGTERM");
      expect((await svc.exited).code).toBe(0);
    }
  });

  it("prefers ./components when it exists", async () => {
    const project = writeTree({ "components/mine/index.tsx": "export default () => null;\n" });
    const svc = start(["serve", "--host", "127.0.0.1", "--port", "0"], project);
    const [, url] = await svc.waitFor(/api: +(http:\/\/\S+)\/api\/bundles/);
    expect(await (await fetch(`${url}/api/bundles`)).json()).toEqual([{ name: "mine" }]);
    svc.child.kill("SIGINT");
    expect((await svc.exited).code).toBe(0);
  });
});
