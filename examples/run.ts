/**
 * Starts the store example on one framework:
 *
 *   npm run example -- <express|fastify|hono|koa|nest> [--production] [--no-build] [--port 3000] [--host 127.0.0.1]
 *
 * Development (default): components are bundled on request and rebuilt when a file changes.
 * `--production`: first `svc build` into $SVC_BUILD_DIR (default examples/store/dist/svc),
 * then serve those files statically with the bundle API off; `--no-build` serves an existing
 * build as it is. Data lives in $STORE_DATA_DIR (default examples/data).
 */
import { parseArgs } from "node:util";
import { build, ComponentRegistry, formatBuildReport } from "@svc/server";
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

type Start = (store: Store, options?: StartOptions) => Promise<RunningApp>;

/** The `start` function of an example app. */
export async function loadApp(framework: Framework): Promise<Start> {
  const module = (await import(`./${framework}/app.ts`)) as { start: Start };
  return module.start;
}

const USAGE =
  "usage: npm run example -- <express|fastify|hono|koa|nest> [--production] [--no-build] [--port 3000] [--host 127.0.0.1]";

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
  const framework = positionals[0] as Framework | undefined;
  if (values.help || framework === undefined || !FRAMEWORKS.includes(framework)) {
    console.error(
      framework === undefined || values.help ? USAGE : `unknown framework "${framework}"\n${USAGE}`,
    );
    process.exit(values.help ? 0 : 2);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, not "${values.port}"\n${USAGE}`);
    process.exit(2);
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
  const start = await loadApp(framework);
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
