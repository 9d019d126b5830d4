/** What `svc init` writes into a project, and the lines it prints to paste into the app. */
import { ATTR_API, ATTR_COMPONENT, ATTR_PROPS, DEFAULT_API_BASE, LOADER_PATH } from "@svc/protocol";
import type { Framework } from "./packageJson.ts";

/** The example component's name (its directory below `components/`). */
export const EXAMPLE = "hello";

/** The example component's files, by name. */
export const EXAMPLE_FILES: Readonly<Record<string, string>> = {
  "index.tsx": `/**
 * An svc component: a directory with an index.tsx that default-exports a React component.
 * Run \`npm run svc:serve\` and open http://localhost:8000/ to see it; edits show at once.
 */
export default function Hello({ name = "world" }: { name?: string }) {
  return <p>Hello, {name}!</p>;
}
`,
  "schema.json": `${JSON.stringify(
    {
      title: "Hello",
      description: "Greets someone by name.",
      version: "1.0.0",
      type: "object",
      properties: { name: { type: "string", default: "world" } },
    },
    null,
    2,
  )}\n`,
};

/** The config file. The same text is valid JavaScript: it has no type annotations. */
export const CONFIG = `import { defineConfig } from "@svc/server";

// Read by \`svc serve\` and \`svc build\`; command-line flags override it.
export default defineConfig({
  sources: ["components"],
  build: { output: "dist/svc" },
});
`;

/** Lines to paste into the server (none without a framework) and into a page. */
export interface Snippet {
  server: string[];
  page: string[];
}

/** Where the snippets mount svc. */
const API = DEFAULT_API_BASE;

const REGISTRY = `new ComponentRegistry("./components")`;
const IMPORT_REGISTRY = `import { ComponentRegistry } from "@svc/server";`;

/** A bridge's server lines: import the registry and the bridge, then mount it. */
function bridge(importLine: string, mountLine: string): Snippet {
  return {
    server: [IMPORT_REGISTRY, importLine, mountLine],
    page: pageLines(`${API}${LOADER_PATH}`, API),
  };
}

/** What to paste into the app: three lines for the server, then the page's part. */
const SNIPPETS: Record<Framework | "none", Snippet> = {
  express: bridge(
    `import { svcExpress } from "@svc/server/express";`,
    `app.use("${API}", svcExpress(${REGISTRY}));`,
  ),
  fastify: bridge(
    `import { svcFastify } from "@svc/server/fastify";`,
    `app.register(svcFastify, { prefix: "${API}", registry: ${REGISTRY} });`,
  ),
  hono: bridge(
    `import { svcHono } from "@svc/server/hono";`,
    `app.use("${API}/*", svcHono(${REGISTRY}));`,
  ),
  koa: bridge(
    `import { svcKoa } from "@svc/server/koa";`,
    `app.use(svcKoa(${REGISTRY}, { prefix: "${API}" }));`,
  ),
  nest: bridge(
    `import { SvcModule } from "@svc/server/nest"; // and RouterModule from "@nestjs/core"`,
    `SvcModule.forRoot({ registry: ${REGISTRY} }), RouterModule.register([{ path: "api", module: SvcModule }]), // in @Module({ imports: [...] })`,
  ),
  none: {
    server: [],
    page: pageLines(`http://localhost:8000/svc${LOADER_PATH}`, `http://localhost:8000${API}`),
  },
};

function pageLines(loader: string, api: string): string[] {
  return [
    `<script src="${loader}" ${ATTR_API}="${api}" defer></script>`,
    `<div ${ATTR_COMPONENT}="${EXAMPLE}" ${ATTR_PROPS}='{"name":"you"}'></div>`,
  ];
}

/** The lines for `framework` (or any page without one), in `import` or `require` form. */
export function snippetFor(framework: Framework | undefined, imports: boolean): Snippet {
  const snippet = SNIPPETS[framework ?? "none"];
  return {
    server: imports ? snippet.server : snippet.server.map(toRequire),
    page: snippet.page,
  };
}

/** `import { a } from "x";` → `const { a } = require("x");` (other lines as they are). */
function toRequire(line: string): string {
  return line.replace(/^import (\{[^}]*\}) from ("[^"]+");/, "const $1 = require($2);");
}
