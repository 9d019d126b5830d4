/**
 * Shared parts of the Python tests: finding a Python that can import Django, Flask and
 * Jinja2 (Debian's `/usr/bin/python3` with `python3-django python3-flask python3-jinja2`
 * first, then `python3` on PATH), running it with the client on its path, starting Python web
 * servers, and svc beside them on loopback ports.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { type DevServer, type DevServerOptions, silentLogger, startDevServer } from "@svc/server";

/** `clients/python`: the `svc_islands` package and its `unittest` tests. */
export const CLIENT_DIR = fileURLToPath(new URL("../../clients/python", import.meta.url));
export const FIXTURES_DIR = fileURLToPath(new URL("./fixtures", import.meta.url));
export const EXAMPLES_DIR = fileURLToPath(new URL("../../examples", import.meta.url));

/** Why the Python tests are skipped, as the one line they print. */
export const SKIP_LINE =
  "python tests skipped: no python3 with django and flask (apt-get install python3-django python3-flask python3-jinja2)";

function canImport(python: string): boolean {
  const result = spawnSync(python, ["-c", "import django, flask, jinja2"], {
    stdio: "ignore",
    timeout: 20_000,
  });
  return result.status === 0;
}

/**
 * The Python to run, or undefined when none can import Django and Flask: `SVC_PYTHON` when set,
 * else Debian's `/usr/bin/python3`, else `python3` on PATH.
 */
export const PYTHON: string | undefined = (
  process.env.SVC_PYTHON ? [process.env.SVC_PYTHON] : ["/usr/bin/python3", "python3"]
).find(canImport);

/** The environment a Python child gets: the client importable, no `__pycache__` written. */
export function pythonEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const path = [CLIENT_DIR, extra.PYTHONPATH].filter(Boolean).join(":");
  return {
    ...process.env,
    PYTHONDONTWRITEBYTECODE: "1",
    PYTHONUNBUFFERED: "1",
    ...extra,
    PYTHONPATH: path,
  };
}

export interface Ran {
  code: number | null;
  output: string;
}

/** Runs `python args…` to its end (killed after `timeoutMs`): exit code and output. */
export async function runPython(
  args: readonly string[],
  options: { cwd?: string; env?: Record<string, string | undefined>; timeoutMs?: number } = {},
): Promise<Ran> {
  const child = spawn(PYTHON ?? "python3", args, {
    cwd: options.cwd ?? CLIENT_DIR,
    env: pythonEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  const timer = setTimeout(() => child.kill("SIGKILL"), options.timeoutMs ?? 40_000);
  const [code] = (await once(child, "exit")) as [number | null];
  clearTimeout(timer);
  return { code, output };
}

/**
 * Runs `python -m unittest -v <modules>` in `clients/python` and fails with its whole output
 * unless every test passed (none skipped, unless `allowSkips`).
 */
export async function runUnittest(
  modules: readonly string[],
  env: Record<string, string | undefined> = {},
): Promise<string> {
  const { code, output } = await runPython(["-m", "unittest", "-v", ...modules], { env });
  if (code !== 0 || !/\nOK\b/.test(output) || /\bskipped\b/.test(output)) {
    throw new Error(`python -m unittest ${modules.join(" ")} exited ${code}:\n${output}`);
  }
  return output;
}

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const server = createServer();
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

export interface PythonServer {
  readonly url: string;
  readonly child: ChildProcess;
  output(): string;
  close(): Promise<void>;
}

/** Starts a Python web server (`args`, listening on `port`); resolves once `readyPath` answers. */
export async function startPythonServer(
  args: readonly string[],
  port: number,
  options: { cwd?: string; env?: Record<string, string | undefined>; readyPath?: string } = {},
): Promise<PythonServer> {
  const child = spawn(PYTHON ?? "python3", args, {
    cwd: options.cwd ?? CLIENT_DIR,
    env: pythonEnv(options.env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout?.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  child.stderr?.on("data", (chunk: Buffer) => {
    output += chunk;
  });
  const url = `http://127.0.0.1:${port}`;
  const close = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = once(child, "exit");
    child.kill("SIGTERM");
    await exited;
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`${args.join(" ")} exited with ${child.exitCode}:\n${output}`);
    }
    try {
      const answer = await fetch(`${url}${options.readyPath ?? "/"}`);
      await answer.arrayBuffer();
      break;
    } catch {
      if (Date.now() > deadline) {
        await close();
        throw new Error(`${args.join(" ")} did not answer at ${url}:\n${output}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, child, output: () => output, close };
}

/** What the svc of a test saw: connections accepted and requests (`METHOD /path`), in order. */
export interface Seen {
  connections: number;
  requests: string[];
}

/** `svc serve` on a loopback port, counting what it sees. */
export async function startSvc(
  options: DevServerOptions,
): Promise<{ svc: DevServer; seen: Seen; api: string }> {
  const svc = await startDevServer({
    host: "127.0.0.1",
    port: 0,
    log: "off",
    live: false,
    renderWorkers: 2,
    logger: silentLogger,
    ...options,
  });
  const seen: Seen = { connections: 0, requests: [] };
  svc.server.on("connection", () => {
    seen.connections++;
  });
  svc.server.on("request", (req: { method?: string; url?: string }) => {
    seen.requests.push(`${req.method} ${req.url}`);
  });
  await svc.handlers.warm?.();
  return { svc, seen, api: `${svc.url}/api` };
}
