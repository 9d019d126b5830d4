/**
 * `svc init`: adds svc to an existing npm project. It creates what is missing and never
 * touches what is there — a second run changes nothing and says so.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { CONFIG_FILES, UsageError } from "./config.ts";

/** The frameworks `svc init` recognises in `package.json`, checked in this order. */
export const FRAMEWORKS = ["nest", "fastify", "hono", "koa", "express"] as const;
export type Framework = (typeof FRAMEWORKS)[number];

/** The package whose presence in `dependencies`/`devDependencies` names the framework. */
const FRAMEWORK_PACKAGES: Record<Framework, string> = {
  // Before express and fastify: a Nest app depends on @nestjs/platform-* rather than on them.
  nest: "@nestjs/core",
  fastify: "fastify",
  hono: "hono",
  koa: "koa",
  express: "express",
};

/** The scripts added to `package.json` (an existing script of the same name is kept). */
export const INIT_SCRIPTS: Readonly<Record<string, string>> = {
  "svc:serve": "svc serve",
  "svc:build": "svc build",
};

const EXAMPLE = "hello";

const EXAMPLE_FILES: Readonly<Record<string, string>> = {
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

const CONFIG = `import { defineConfig } from "@svc/server";

// Read by \`svc serve\` and \`svc build\`; command-line flags override it.
export default defineConfig({
  sources: ["components"],
  build: { output: "dist/svc" },
});
`;

const REGISTRY = `new ComponentRegistry("./components")`;
const IMPORT_REGISTRY = `import { ComponentRegistry } from "@svc/server";`;

/** A bridge's server lines: import the registry and the bridge, then mount it. */
function bridge(importLine: string, mountLine: string): { server: string[]; page: string[] } {
  return {
    server: [IMPORT_REGISTRY, importLine, mountLine],
    page: pageLines("/api/loader.js", "/api"),
  };
}

/** What to paste into the app: three lines for the server, then the page's part. */
const SNIPPETS: Record<Framework | "none", { server: string[]; page: string[] }> = {
  express: bridge(
    `import { svcExpress } from "@svc/server/express";`,
    `app.use("/api", svcExpress(${REGISTRY}));`,
  ),
  fastify: bridge(
    `import { svcFastify } from "@svc/server/fastify";`,
    `app.register(svcFastify, { prefix: "/api", registry: ${REGISTRY} });`,
  ),
  hono: bridge(
    `import { svcHono } from "@svc/server/hono";`,
    `app.use("/api/*", svcHono(${REGISTRY}));`,
  ),
  koa: bridge(
    `import { svcKoa } from "@svc/server/koa";`,
    `app.use(svcKoa(${REGISTRY}, { prefix: "/api" }));`,
  ),
  nest: bridge(
    `import { SvcModule } from "@svc/server/nest"; // and RouterModule from "@nestjs/core"`,
    `SvcModule.forRoot({ registry: ${REGISTRY} }), RouterModule.register([{ path: "api", module: SvcModule }]), // in @Module({ imports: [...] })`,
  ),
  none: {
    server: [],
    page: pageLines("http://localhost:8000/svc/loader.js", "http://localhost:8000/api"),
  },
};

function pageLines(loader: string, api: string): string[] {
  return [
    `<script src="${loader}" data-svc-api="${api}" defer></script>`,
    `<div data-svc-component="${EXAMPLE}" data-svc-props='{"name":"you"}'></div>`,
  ];
}

export interface InitOptions {
  /** The project directory (holding `package.json`). Default: process.cwd(). */
  cwd?: string;
  /**
   * Whether this Node.js runs TypeScript files (`svc.config.ts`); without it the config is
   * written as `svc.config.mjs`. Default: `process.features.typescript` is set.
   */
  typescript?: boolean;
}

export interface InitResult {
  /** Paths created, relative to the project, in the order written. */
  created: string[];
  /** Scripts added to `package.json`. */
  scriptsAdded: string[];
  /** What was already there and left as it is (paths, or `scripts.<name>`). */
  kept: string[];
  framework: Framework | undefined;
  /** Lines to paste into the server (empty without a framework) and into a page. */
  snippet: { server: string[]; page: string[] };
  /** Advice that needs the user's judgement, one line each. */
  notes: string[];
}

interface PackageJson {
  type?: unknown;
  scripts?: unknown;
  dependencies?: unknown;
  devDependencies?: unknown;
}

/**
 * Adds svc to the npm project in `cwd`: `components/` with one example component, an
 * `svc.config` file and the `svc:serve`/`svc:build` scripts. Never overwrites a file.
 * @throws UsageError when `cwd` has no readable `package.json`.
 */
export function init(options: InitOptions = {}): InitResult {
  const cwd = options.cwd ?? process.cwd();
  const pkgFile = join(cwd, "package.json");
  const text = readPackageJson(pkgFile);
  const pkg = parsePackageJson(text);
  const result: InitResult = {
    created: [],
    scriptsAdded: [],
    kept: [],
    framework: detectFramework(pkg),
    snippet: { server: [], page: [] },
    notes: [],
  };

  if (existsSync(join(cwd, "components"))) {
    result.kept.push("components/");
  } else {
    mkdirSync(join(cwd, "components", EXAMPLE), { recursive: true });
    for (const [file, contents] of Object.entries(EXAMPLE_FILES)) {
      const path = `components/${EXAMPLE}/${file}`;
      writeFileSync(join(cwd, path), contents, { flag: "wx" });
      result.created.push(path);
    }
  }

  const existingConfig = CONFIG_FILES.find((name) => existsSync(join(cwd, name)));
  if (existingConfig !== undefined) {
    result.kept.push(existingConfig);
  } else {
    const name = configFileName(pkg, options.typescript ?? hasTypeStripping());
    // The same text is valid JavaScript: it has no type annotations.
    writeFileSync(join(cwd, name), CONFIG, { flag: "wx" });
    result.created.push(name);
  }

  const scripts = (pkg.scripts ?? {}) as Record<string, unknown>;
  for (const [name, command] of Object.entries(INIT_SCRIPTS)) {
    if (name in scripts) result.kept.push(`scripts.${name}`);
    else {
      scripts[name] = command;
      result.scriptsAdded.push(name);
    }
  }
  if (result.scriptsAdded.length > 0) {
    pkg.scripts = scripts;
    writeFileSync(pkgFile, `${JSON.stringify(pkg, null, indentOf(text))}${newlineOf(text)}`);
  }

  const snippet = SNIPPETS[result.framework ?? "none"];
  result.snippet = {
    server: writesImports(cwd, pkg) ? snippet.server : snippet.server.map(toRequire),
    page: snippet.page,
  };
  if (result.created.includes(`components/${EXAMPLE}/index.tsx`)) {
    const tsconfig = join(cwd, "tsconfig.json");
    const text = existsSync(tsconfig) ? readFileSync(tsconfig, "utf8") : "";
    // Without "include", tsc compiles every file below it — the components too.
    if (text !== "" && !/"include"\s*:/.test(text) && !text.includes('"components')) {
      result.notes.push(
        'tsconfig.json has no "include", so tsc would compile components/ too: add "components" to its "exclude" (svc bundles the components itself)',
      );
    }
  }
  return result;
}

/** The report `svc init` prints. */
export function formatInitReport(result: InitResult): string {
  const lines: string[] = [];
  for (const path of result.created) lines.push(`created ${path}`);
  if (result.scriptsAdded.length > 0) {
    const added = result.scriptsAdded.map((name) => `"${name}"`).join(", ");
    lines.push(`added to package.json: scripts ${added}`);
  }
  for (const kept of result.kept) lines.push(`already there, left as is: ${kept}`);
  if (result.created.length === 0 && result.scriptsAdded.length === 0) {
    lines.push("svc init changed nothing: this project is already set up");
  }
  lines.push("");
  const { server, page } = result.snippet;
  if (result.framework !== undefined) {
    lines.push(`${FRAMEWORK_TITLES[result.framework]} found in package.json. Add to your server:`);
    lines.push("", ...server.map((line) => `  ${line}`), "");
    lines.push("and to a page:");
  } else {
    lines.push(
      "No Express, Fastify, Hono, Koa or NestJS in package.json. Serve the components with",
      "`npm run svc:serve -- --cors-origin <your page's origin>` and add to a page:",
    );
  }
  lines.push("", ...page.map((line) => `  ${line}`), "");
  lines.push("Try it: npm run svc:serve, then open http://localhost:8000/");
  for (const note of result.notes) lines.push(`note: ${note}`);
  return lines.join("\n");
}

const FRAMEWORK_TITLES: Record<Framework, string> = {
  express: "Express",
  fastify: "Fastify",
  hono: "Hono",
  koa: "Koa",
  nest: "NestJS",
};

function readPackageJson(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") {
      throw new UsageError(
        "no package.json here — run svc init in your project's directory (or npm init -y first)",
      );
    }
    throw new UsageError(`cannot read package.json (${(error as NodeJS.ErrnoException).code})`);
  }
}

function parsePackageJson(text: string): PackageJson {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `package.json is not valid JSON (${(error as Error).message}) — fix it and run svc init again`,
    );
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    throw new UsageError("package.json must hold a JSON object — fix it and run svc init again");
  }
  const pkg = value as PackageJson;
  if (
    pkg.scripts !== undefined &&
    (typeof pkg.scripts !== "object" || pkg.scripts === null || Array.isArray(pkg.scripts))
  ) {
    throw new UsageError(
      'package.json: "scripts" must be an object — fix it and run svc init again',
    );
  }
  return pkg;
}

/**
 * Whether the project's server code says `import`: an ES module package, or TypeScript
 * (which compiles `import` to `require` itself). A plain CommonJS project gets `require`.
 */
function writesImports(cwd: string, pkg: PackageJson): boolean {
  if (pkg.type === "module" || existsSync(join(cwd, "tsconfig.json"))) return true;
  return [pkg.dependencies, pkg.devDependencies].some(
    (deps) => typeof deps === "object" && deps !== null && "typescript" in deps,
  );
}

/** `import { a } from "x";` → `const { a } = require("x");` (other lines as they are). */
function toRequire(line: string): string {
  return line.replace(/^import (\{[^}]*\}) from ("[^"]+");/, "const $1 = require($2);");
}

/** The framework the project depends on, by `FRAMEWORKS` order. */
export function detectFramework(pkg: PackageJson): Framework | undefined {
  const names = new Set<string>();
  for (const deps of [pkg.dependencies, pkg.devDependencies]) {
    if (typeof deps === "object" && deps !== null) for (const name in deps) names.add(name);
  }
  return FRAMEWORKS.find((framework) => names.has(FRAMEWORK_PACKAGES[framework]));
}

/**
 * `svc.config.ts` in an ES module package; `.mts` when `.ts` files would load as CommonJS
 * (a package without `"type": "module"`), where `export default` would not parse; `.mjs`
 * when this Node.js does not run TypeScript.
 */
function configFileName(pkg: PackageJson, typescript: boolean): string {
  if (!typescript) return "svc.config.mjs";
  return pkg.type === "module" ? "svc.config.ts" : "svc.config.mts";
}

function hasTypeStripping(): boolean {
  return Boolean((process.features as { typescript?: unknown }).typescript);
}

function indentOf(text: string): string | number {
  return /^[{[]\r?\n([ \t]+)/.exec(text)?.[1] ?? 2;
}

function newlineOf(text: string): string {
  return text.endsWith("\n") ? "\n" : "";
}
