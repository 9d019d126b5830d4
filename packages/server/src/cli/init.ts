/**
 * `svc init`: adds svc to an existing npm project. It creates what is missing and never
 * touches what is there — a second run changes nothing and says so. It writes all or nothing:
 * everything that can be checked is checked before the first write, and should a write fail
 * anyway, what this run created is removed again.
 */
import { randomBytes } from "node:crypto";
import {
  accessSync,
  chmodSync,
  chownSync,
  closeSync,
  constants,
  existsSync,
  lstatSync,
  mkdirSync,
  openSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  renameSync,
  rmdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { basename, dirname, join, relative } from "node:path";
import { isInside, toPosix } from "../util/paths.ts";
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
 * `svc.config` file and the `svc:serve`/`svc:build` scripts. Never overwrites a file, never
 * writes through a link that leads out of `cwd`, and leaves the project as it was when it
 * cannot finish.
 * @throws UsageError when `cwd` has no readable `package.json`, when something in the way
 * is found before writing (a read-only `package.json`, a link out of the project, a link to
 * nothing), or when a write fails (after removing what this run created).
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
  const plan: InitPlan = { dirs: [], files: [], packageJson: undefined };

  if (existsSync(join(cwd, "components"))) {
    result.kept.push("components/");
  } else {
    plan.dirs.push("components", `components/${EXAMPLE}`);
    for (const [file, contents] of Object.entries(EXAMPLE_FILES)) {
      plan.files.push([`components/${EXAMPLE}/${file}`, contents]);
    }
  }

  const existingConfig = CONFIG_FILES.find((name) => existsSync(join(cwd, name)));
  if (existingConfig !== undefined) {
    result.kept.push(existingConfig);
  } else {
    const name = configFileName(pkg, options.typescript ?? hasTypeStripping());
    // The same text is valid JavaScript: it has no type annotations.
    plan.files.push([name, CONFIG]);
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
    plan.packageJson = `${JSON.stringify(pkg, null, indentOf(text))}${newlineOf(text)}`;
  }

  const target = preflight(cwd, plan);
  apply(cwd, plan, target);
  result.created = plan.files.map(([path]) => path);

  const snippet = SNIPPETS[result.framework ?? "none"];
  result.snippet = {
    server: writesImports(cwd, pkg) ? snippet.server : snippet.server.map(toRequire),
    page: snippet.page,
  };
  if (result.created.includes(`components/${EXAMPLE}/index.tsx`)) {
    const tsconfig = readText(join(cwd, "tsconfig.json"));
    // Without "include", tsc compiles every file below it — the components too.
    if (tsconfig !== "" && !/"include"\s*:/.test(tsconfig) && !tsconfig.includes('"components')) {
      result.notes.push(
        'tsconfig.json has no "include", so tsc would compile components/ too: add "components" to its "exclude" (svc bundles the components itself)',
      );
    }
  }
  return result;
}

/** What `init` will write, paths relative to the project, in the order written. */
interface InitPlan {
  /** Directories to create (each inside the one before, or the project). */
  dirs: string[];
  /** New files and their text. */
  files: [path: string, contents: string][];
  /** The new text of `package.json`, when it changes. */
  packageJson: string | undefined;
}

/**
 * Checks everything `apply` needs before anything is written: the project takes new files,
 * no path to create is a link (which `wx` and `mkdir` would refuse halfway), and
 * `package.json`, when it changes, is a writable file inside the project (its link followed).
 * Returns the real path of `package.json`.
 * @throws UsageError saying what is in the way and how to clear it.
 */
function preflight(cwd: string, plan: InitPlan): string {
  const pkgFile = join(cwd, "package.json");
  const project = realOrSelf(cwd);
  const target = realOrSelf(pkgFile);
  const creates = [...plan.dirs, ...plan.files.map(([path]) => path)];
  for (const path of creates) {
    const link = linkAt(join(cwd, path));
    if (link !== undefined) {
      throw new UsageError(
        `${path} is a link to ${link}, which does not exist — remove the link (or create what it points to) and run svc init again`,
      );
    }
  }
  if (creates.length > 0) assertWritable(cwd, "this directory");
  if (plan.packageJson === undefined) return target;
  if (!isInside(target, project)) {
    throw new UsageError(
      `package.json is a link to ${target}, outside this project — svc init writes only inside it; run it where that file is, or add the scripts "svc:serve": "svc serve" and "svc:build": "svc build" yourself`,
    );
  }
  // Root may write any file; a file nobody may write is still one to leave alone.
  if ((statSync(target).mode & 0o222) === 0) {
    throw new UsageError(
      "package.json is read-only — make it writable (chmod u+w package.json) and run svc init again",
    );
  }
  assertWritable(target, "package.json");
  assertWritable(dirname(target), `the directory of ${basename(target)}`);
  return target;
}

/** The target of the link at `path` when it points to nothing, else undefined. */
function linkAt(path: string): string | undefined {
  const info = lstatSync(path, { throwIfNoEntry: false });
  return info?.isSymbolicLink() ? readlinkSync(path) : undefined;
}

function assertWritable(path: string, what: string): void {
  try {
    accessSync(path, constants.W_OK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new UsageError(
      `cannot write to ${what} (${code}) — fix its permissions and run svc init again`,
    );
  }
}

/**
 * Writes the plan: directories and files first, each new (`wx`), then `package.json` — the
 * only file changed — through a temporary file renamed over it, so it is never half written.
 * Should a write fail, what this run created is removed before the error is thrown.
 */
function apply(cwd: string, plan: InitPlan, pkgTarget: string): void {
  const created: { path: string; dir: boolean }[] = [];
  let current = "";
  try {
    for (const dir of plan.dirs) {
      current = dir;
      mkdirSync(join(cwd, dir));
      created.push({ path: join(cwd, dir), dir: true });
    }
    for (const [file, contents] of plan.files) {
      current = file;
      writeNewFile(join(cwd, file), contents, (path) => created.push({ path, dir: false }));
    }
    if (plan.packageJson !== undefined) {
      current = "package.json";
      replaceFile(pkgTarget, plan.packageJson);
    }
  } catch (error) {
    const left = undo(created).map((path) => toPosix(relative(cwd, path)));
    const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
    throw new UsageError(
      left.length === 0
        ? `cannot write ${current} (${code}) — svc init removed what it had created, so nothing changed`
        : `cannot write ${current} (${code}) — svc init could not remove ${left.join(", ")}; remove them before running it again`,
    );
  }
}

/** Removes `created`, newest first; returns what could not be removed. */
function undo(created: readonly { path: string; dir: boolean }[]): string[] {
  const left: string[] = [];
  for (const { path, dir } of [...created].reverse()) {
    try {
      if (dir) rmdirSync(path);
      else rmSync(path);
    } catch {
      left.push(path);
    }
  }
  return left;
}

/**
 * Creates `file` (never one that exists, nor through a link) and writes `text` into it.
 * `onCreated` hears of the file as soon as it exists: a write can fail after that (a full
 * disk), leaving a file to remove.
 */
function writeNewFile(file: string, text: string, onCreated: (file: string) => void): void {
  const fd = openSync(file, "wx");
  onCreated(file);
  try {
    writeFileSync(fd, text);
  } finally {
    closeSync(fd);
  }
}

/**
 * Replaces `file` with `text` through a temporary file beside it, keeping its mode (and, when
 * run as root, its owner).
 */
function replaceFile(file: string, text: string): void {
  const { mode, uid, gid } = statSync(file);
  const temporary = join(
    dirname(file),
    `.${basename(file)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`,
  );
  let created = false;
  try {
    writeNewFile(temporary, text, () => {
      created = true;
    });
    chmodSync(temporary, mode & 0o7777);
    if (process.getuid?.() === 0 && (uid !== 0 || gid !== 0)) chownSync(temporary, uid, gid);
    renameSync(temporary, file);
  } catch (error) {
    if (created) rmSync(temporary, { force: true });
    throw error;
  }
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

/** The text of `file`, or "" when it cannot be read (missing, a directory, unreadable). */
function readText(file: string): string {
  try {
    return readFileSync(file, "utf8");
  } catch {
    return "";
  }
}

/** The real path of `path`, or `path` itself when it does not resolve. */
function realOrSelf(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}
