/**
 * Starts the store example on one framework:
 *
 *   npm run example -- <express|fastify|hono|koa|nest> [--production] [--no-build] [--port 3000] [--host 127.0.0.1]
 *   npm run example -- <django|flask> [--port 3000] [--host 127.0.0.1]
 *
 * Development (default): components are bundled on request and rebuilt when a file changes.
 * `--production`: first `svc build` into $SVC_BUILD_DIR (default examples/store/dist/svc),
 * then serve those files statically with the bundle API off; `--no-build` serves an existing
 * build as it is. Data lives in $STORE_DATA_DIR (default examples/data).
 *
 * `django` and `flask` serve the product pages from a Python server on `--port`, its islands
 * rendered by svc on the next port (`svc serve` with `--public-url` and `--cors-origin` for
 * the Python site), through the Python client in clients/python.
 */
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { build, ComponentRegistry, formatBuildReport, startDevServer } from "@svc/server";
import {
  COMPONENT_PREFIX,
  COMPONENTS_DIR,
  DEFAULT_BUILD_DIR,
  openStore,
  type RunningApp,
  resolveStoreConfig,
  type StartOptions,
  type Store,
} from "@svc-examples/store";

export const FRAMEWORKS = ["express", "fastify", "hono", "koa", "nest"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** The store's product pages on a Python server, islands rendered by svc beside it. */
export const PYTHON_FRAMEWORKS = ["django", "flask"] as const;
export type PythonFramework = (typeof PYTHON_FRAMEWORKS)[number];

type Start = (store: Store, options?: StartOptions) => Promise<RunningApp>;

/** The `start` function of an example app. */
export async function loadApp(framework: Framework): Promise<Start> {
  const module = (await import(`./${framework}/app.ts`)) as { start: Start };
  return module.start;
}

const USAGE =
  "usage: npm run example -- <express|fastify|hono|koa|nest|django|flask> [--production] [--no-build] [--port 3000] [--host 127.0.0.1]";

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url));

/** A free port on `host` (the operating system's pick). */
async function freePort(host: string): Promise<number> {
  const server = createServer().listen(0, host);
  await once(server, "listening");
  const { port } = server.address() as { port: number };
  server.close();
  await once(server, "close");
  return port;
}

/**
 * The Python example of `framework`: svc (the store's components, islands naming its public
 * URL, CORS for the Python site) and the Python server, stopped together.
 */
async function startPython(
  framework: PythonFramework,
  options: { host: string; port: number },
): Promise<{ url: string; svcUrl: string; child: ChildProcess; close(): Promise<void> }> {
  const module = framework === "django" ? "django" : "flask";
  const python = ["/usr/bin/python3", "python3"].find(
    (candidate) =>
      spawnSync(candidate, ["-c", `import ${module}, jinja2`], { stdio: "ignore" }).status === 0,
  );
  if (python === undefined) {
    throw new Error(
      `the ${framework} example needs python3 with ${module}: apt-get install python3-django python3-flask python3-jinja2 (or pip install ${module})`,
    );
  }
  const { host } = options;
  const shown = host === "0.0.0.0" || host === "::" ? "127.0.0.1" : host;
  const port = options.port === 0 ? await freePort(host) : options.port;
  const svcPort = options.port === 0 ? await freePort(host) : port + 1;
  const api = `http://${shown}:${svcPort}/api`;
  const registry = new ComponentRegistry();
  registry.addSource(COMPONENTS_DIR, { prefix: COMPONENT_PREFIX });
  // What `svc serve --port P+1 --public-url http://…:P+1/api --cors-origin http://…:P` runs.
  const svc = await startDevServer({
    registry,
    host,
    port: svcPort,
    publicUrl: api,
    corsOrigins: [`http://${shown}:${port}`, `http://localhost:${port}`],
    log: "off",
  });
  await svc.handlers.warm?.().catch(() => {});
  const args =
    framework === "django"
      ? [here("./django/manage.py"), "runserver", "--noreload", `${host}:${port}`]
      : [here("./flask/app.py")];
  const child = spawn(python, args, {
    env: {
      ...process.env,
      SVC_URL: api,
      HOST: host,
      PORT: String(port),
      PYTHONPATH: here("../clients/python"),
      PYTHONDONTWRITEBYTECODE: "1",
    },
    stdio: ["ignore", "inherit", "inherit"],
  });
  const url = `http://${shown}:${port}`;
  const close = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = once(child, "exit");
      child.kill("SIGTERM");
      await exited;
    }
    await svc.close();
  };
  for (let tries = 0; ; tries++) {
    if (child.exitCode !== null) {
      await svc.close();
      throw new Error(`the ${framework} server exited with code ${child.exitCode}`);
    }
    try {
      await (await fetch(`${url}/`)).arrayBuffer();
      break;
    } catch (error) {
      if (tries > 200) {
        await close();
        throw new Error(`the ${framework} server did not answer at ${url}: ${error}`);
      }
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }
  return { url, svcUrl: svc.url, child, close };
}

async function mainPython(
  framework: PythonFramework,
  options: { host: string; port: number; production: boolean },
): Promise<void> {
  if (options.production) {
    console.error(
      `--production is for the Node examples; for ${framework}, run svc serve --build-dir (docs/frameworks/${framework}.md)`,
    );
    process.exit(2);
  }
  const app = await startPython(framework, options);
  console.log(`\nsvc store on ${framework} (Python), islands rendered by svc at ${app.svcUrl}`);
  console.log(`  shop:  ${app.url}/`);
  console.log(`  svc:   ${app.svcUrl}/ (the playground; the API at /api)`);
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    process.exit(0);
  };
  app.child.once("exit", (code) => {
    if (stopping) return;
    console.error(`the ${framework} server exited with code ${code}`);
    void app.close().then(() => process.exit(1));
  });
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      production: { type: "boolean", default: false },
      "no-build": { type: "boolean", default: false },
      port: { type: "string", default: process.env.PORT ?? "3000" },
      host: { type: "string", default: "127.0.0.1" },
      help: { type: "boolean", short: "h", default: false },
    },
  });
  const framework = positionals[0] as Framework | PythonFramework | undefined;
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, not "${values.port}"\n${USAGE}`);
    process.exit(2);
  }
  if (!values.help && PYTHON_FRAMEWORKS.includes(framework as PythonFramework)) {
    await mainPython(framework as PythonFramework, {
      host: values.host,
      port,
      production: values.production,
    });
    return;
  }
  if (values.help || framework === undefined || !FRAMEWORKS.includes(framework as Framework)) {
    console.error(
      framework === undefined || values.help ? USAGE : `unknown framework "${framework}"\n${USAGE}`,
    );
    process.exit(values.help ? 0 : 2);
  }

  // SVC_BUILD_DIR="" turns pre-built bundles off: resolveStoreConfig then refuses production.
  if (values.production && !values["no-build"] && process.env.SVC_BUILD_DIR !== "") {
    // What a deployment does once per release: `svc build` the store's components.
    const outDir = process.env.SVC_BUILD_DIR ?? DEFAULT_BUILD_DIR;
    process.env.SVC_BUILD_DIR = outDir;
    const registry = new ComponentRegistry();
    registry.addSource(COMPONENTS_DIR, { prefix: COMPONENT_PREFIX });
    console.log(formatBuildReport(await build({ registry, outDir })));
  }

  const config = resolveStoreConfig({ production: values.production });
  const store = openStore(config);
  const start = await loadApp(framework as Framework);
  const app = await start(store, { port, host: values.host });
  const mode = config.production ? `production, bundles from ${config.buildDir}` : "development";
  console.log(`\nsvc store on ${framework} (${mode}), data in ${config.dataDir}`);
  console.log(`  shop:  ${app.url}/`);
  console.log(`  admin: ${app.url}/admin/`);

  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    await app.close();
    store.close();
    process.exit(0);
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

if (import.meta.main) {
  main().catch((error: unknown) => {
    console.error(error instanceof Error ? error.message : error);
    process.exit(1);
  });
}
