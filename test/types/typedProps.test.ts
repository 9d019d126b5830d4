/**
 * Typed props end to end, with real parts: `svc types` (the CLI, from source) writes the
 * declaration file into a copy of `fixture/`, and the real `tsc` checks the app against the
 * packages' published types (`dist/`), with moduleResolution NodeNext and Bundler. The app
 * uses `useComponent`, `ServerComponent` (@svc/react), `renderWidget` (@svc/server) and
 * `window.svc` (the loader) — one augmentation of `@svc/protocol` reaches them all.
 *
 * Every `@ts-expect-error` in the fixture must be needed (tsc reports one that is not), must
 * fail for the reason it gives (checked with the directives removed), and must pass without
 * the declarations (so it is the declarations that make it fail).
 */
import { execFile } from "node:child_process";
import {
  cpSync,
  globSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runSvc } from "../../packages/server/src/test/fixtures.ts";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const fixture = fileURLToPath(new URL("./fixture/", import.meta.url));
const tsc = join(repo, "node_modules/typescript/bin/tsc");
const CONFIGS = ["tsconfig.nodenext.json", "tsconfig.bundler.json"] as const;

/** What each reason given after `@ts-expect-error` must show in tsc's message. */
const REASONS: Record<string, RegExp> = {
  "unknown name": /is not assignable to (?:parameter of )?type '[^']*"app:ui\.button"[^']*'/,
  "wrong prop type":
    /is not assignable to type '(?:number|"cover" \| "contain" \| undefined|string \| \(\(\) => string\) \| undefined|number \| \(\(\) => Object\) \| undefined)'/,
  "missing required prop":
    /Property '(?:src|name|props)' is missing in type|Expected 2-3 arguments, but got 1/,
  "unknown prop": /Property 'stpe' does not exist on type/,
};

interface Diagnostic {
  file: string;
  line: number;
  code: string;
  text: string;
}

interface Directive {
  file: string;
  /** The line the directive applies to (the one after it), 1-based. */
  line: number;
  reason: string;
}

let app: string;

beforeAll(async () => {
  assertBuilt(["protocol", "runtime", "react", "server"]);
  app = mkdtempSync(join(tmpdir(), "svc-typed-props-"));
  cpSync(fixture, app, { recursive: true });
  // Resolved like an installed app's: through node_modules to the packages' dist/.
  symlinkSync(join(repo, "node_modules"), join(app, "node_modules"), "dir");
  // The loader publishes no types; its source declares `window.svc` (its modules import each
  // other as `./x.ts`, which tsconfig.bundler.json allows).
  const loader = relative(join(app, "src"), join(repo, "packages/loader/src/loader.tsx"));
  writeFileSync(join(app, "src/loaderGlobal.ts"), `import type {} from "${loader}";\n`);
  const result = await runSvc(["types"], { cwd: app });
  expect(result.stdout).toBe("svc types: wrote src/svc-env.d.ts (5 components)\n");
  expect(result.code).toBe(0);
}, 120_000);

afterAll(() => {
  if (app !== undefined) rmSync(app, { recursive: true, force: true });
});

describe("typed props (svc types + tsc)", () => {
  it("writes declarations that name no path of this machine", () => {
    const text = readFileSync(join(app, "src/svc-env.d.ts"), "utf8");
    expect(text).toContain('declare module "@svc/protocol" {');
    expect(text).toContain('    "app:ui.button": AppUiButtonProps;\n');
    expect(text).toContain("    plain: Record<string, unknown>;\n");
    expect(text).not.toContain(app);
    expect(text).not.toContain(repo);
  });

  it.each(CONFIGS)(
    "type-checks the app, every @ts-expect-error needed (%s)",
    async (config) => {
      const { code, diagnostics } = await typeCheck(config);
      expect(diagnostics).toEqual([]);
      expect(code).toBe(0);
    },
    120_000,
  ); // tsc on a cold cache, on a busy 2-core machine

  it("fails each @ts-expect-error line for the reason it gives", async () => {
    const directives = findDirectives();
    expect(new Set(directives.map((d) => d.reason))).toEqual(new Set(Object.keys(REASONS)));
    // Beside src/, so the relative import in loaderGlobal.ts still resolves.
    cpSync(join(app, "src"), join(app, "unmarked"), { recursive: true });
    for (const { file } of directives) {
      const path = join(app, "unmarked", file.slice("src/".length));
      writeFileSync(
        path,
        readFileSync(path, "utf8")
          .replace(/\/\/ @ts-expect-error .*/g, "//")
          .replace(/\{\/\* @ts-expect-error .*\*\/\}/g, "{/* */}"),
      );
    }
    writeFileSync(
      join(app, "tsconfig.unmarked.json"),
      JSON.stringify({ extends: "./tsconfig.bundler.json", include: ["unmarked"] }),
    );
    const { diagnostics } = await typeCheck("tsconfig.unmarked.json");
    const unexplained = diagnostics.filter(
      (d) => !directives.some((x) => unmarked(x.file) === d.file && x.line === d.line),
    );
    expect(unexplained).toEqual([]);
    for (const directive of directives) {
      const errors = diagnostics.filter(
        (d) => d.file === unmarked(directive.file) && d.line === directive.line,
      );
      const where = `${directive.file}:${directive.line} (${directive.reason})`;
      expect(errors.length, where).toBeGreaterThan(0);
      expect(errors.map((e) => e.text).join("\n"), where).toMatch(
        REASONS[directive.reason] as RegExp,
      );
    }
  }, 120_000); // tsc on a cold cache, on a busy 2-core machine

  it("accepts every line without the declarations: it is they that make each mistake an error", async () => {
    const declarations = join(app, "src/svc-env.d.ts");
    const text = readFileSync(declarations, "utf8");
    rmSync(declarations);
    try {
      const { diagnostics } = await typeCheck("tsconfig.bundler.json");
      const unused = diagnostics.filter((d) => d.code === "TS2578");
      const directives = findDirectives();
      expect(unused.map((d) => `${d.file}:${d.line + 1}`).sort()).toEqual(
        directives.map((d) => `${d.file}:${d.line}`).sort(),
      );
    } finally {
      writeFileSync(declarations, text);
    }
  }, 120_000); // tsc on a cold cache, on a busy 2-core machine
});

/** Fails at once, saying what to run, when a package's dist/ is older than its sources. */
function assertBuilt(packages: readonly string[]): void {
  for (const name of packages) {
    const dir = join(repo, "packages", name);
    const built = statSync(join(dir, "dist/index.d.ts"), { throwIfNoEntry: false });
    const newest = Math.max(
      ...globSync("src/**/*.{ts,tsx}", { cwd: dir })
        .filter((file) => !file.includes(".test."))
        .map((file) => statSync(join(dir, file)).mtimeMs),
    );
    if (built === undefined || built.mtimeMs < newest) {
      throw new Error(
        `packages/${name}/dist is older than its sources — run npm run build -w @svc/${name}`,
      );
    }
  }
}

/** Where the copy without directives has `file`. */
function unmarked(file: string): string {
  return file.replace(/^src\//, "unmarked/");
}

function findDirectives(): Directive[] {
  const directives: Directive[] = [];
  for (const file of readdirSync(join(app, "src"))) {
    if (!/\.tsx?$/.test(file) || file.endsWith(".d.ts")) continue;
    const lines = readFileSync(join(app, "src", file), "utf8").split("\n");
    lines.forEach((line, index) => {
      const match = /^\s*(?:\/\/|\{\/\*) @ts-expect-error (.+?)(?: \*\/\})?$/.exec(line);
      if (match) directives.push({ file: `src/${file}`, line: index + 2, reason: match[1] ?? "" });
    });
  }
  return directives;
}

/** Runs the real tsc on one of the app's projects; its diagnostics, with their detail lines. */
function typeCheck(project: string): Promise<{ code: number; diagnostics: Diagnostic[] }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [tsc, "-p", project, "--pretty", "false"],
      { cwd: app, maxBuffer: 16 * 1024 * 1024 },
      (error, stdout) => {
        const diagnostics: Diagnostic[] = [];
        for (const line of stdout.split("\n")) {
          const match = /^(.+?)\((\d+),\d+\): error (TS\d+): (.*)$/.exec(line);
          const last = diagnostics.at(-1);
          if (match) {
            const [, file = "", row = "0", code = "", text = ""] = match;
            diagnostics.push({ file, line: Number(row), code, text });
          } else if (last !== undefined && /^\s/.test(line)) {
            last.text += `\n${line}`;
          }
        }
        resolve({ code: error === null ? 0 : Number(error.code ?? 1), diagnostics });
      },
    );
  });
}
