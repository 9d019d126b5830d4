import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parse } from "es-module-lexer/minimal/js";
import ts from "typescript";
import { describe, expect, it, onTestFinished } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import { evaluateServerBundle } from "../ssr/serverModule.ts";
import { cn, typicalComponent, writeTree } from "../test/fixtures.ts";
import { EXTERNALS, envDefines, esbuildBundler, finishOutput } from "./bundler.ts";
import { serverBundleOf } from "./serverBundle.ts";

function component(dir: string, name: string) {
  const found = new ComponentRegistry(dir).get(cn(name));
  if (!found) throw new Error(`fixture ${name} missing`);
  return found;
}

function inlineMap(code: string): { sources: string[]; sourcesContent: string[] } {
  const match = /\/\/# sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)\n$/.exec(
    code,
  );
  if (!match?.[1]) throw new Error("no inline source map");
  return JSON.parse(Buffer.from(match[1], "base64").toString("utf8"));
}

describe("esbuildBundler", () => {
  const tree = {
    ...typicalComponent("card"),
    "shared/format.ts": "export const format = (s: string) => `«${s}»`;\n",
    "card/Extra.tsx":
      'import { createPortal } from "react-dom";\nimport { css } from "goober";\nimport { useComponent } from "@svc/react";\nimport { format } from "../shared/format";\nexport const Extra = () => createPortal(<b className={css`color: red`}>{format(String(useComponent))}</b>, document.body);\n',
    "card/index.tsx": 'export { default } from "./View";\nexport { Extra } from "./Extra";\n',
  };

  it("emits ESM whose only imports are the shared runtime modules", async () => {
    const dir = writeTree(tree);
    const { code } = await esbuildBundler.bundle(component(dir, "card"));
    const text = Buffer.from(code).toString("utf8");
    const [imports, exports] = parse(text);
    const specifiers = imports.map((i) => i.n);
    expect(specifiers.length).toBeGreaterThan(0);
    for (const s of specifiers) expect(EXTERNALS).toContain(s);
    expect(specifiers).toEqual(
      expect.arrayContaining(["react", "react/jsx-runtime", "react-dom", "goober", "@svc/react"]),
    );
    expect(exports.map((e) => e.n).sort()).toEqual(["Extra", "default"]);
  });

  it("inlines a source map whose sources are component:// paths with their content", async () => {
    const dir = writeTree(tree);
    const { code } = await esbuildBundler.bundle(component(dir, "card"));
    const map = inlineMap(Buffer.from(code).toString("utf8"));
    expect(map.sources).toEqual(
      expect.arrayContaining([
        "component://card/View.tsx",
        "component://card/Extra.tsx",
        "component://card/label.ts",
        "component://card/../shared/format.ts",
      ]),
    );
    for (const source of map.sources) expect(source.startsWith("component://card/")).toBe(true);
    expect(map.sourcesContent.join("\n")).toContain("toUpperCase");
  });

  it("rewrites sources whose file names hold JSON punctuation", async () => {
    const odd = 'we"ird],\n  "x.ts';
    const dir = writeTree({
      "odd/index.tsx": `import { v } from ${JSON.stringify(`./${odd}`)};\nexport const w = v + 1;\n`,
      [`odd/${odd}`]: "export const v = 1;\n",
    });
    const { code } = await esbuildBundler.bundle(component(dir, "odd"));
    const map = inlineMap(Buffer.from(code).toString("utf8"));
    // esbuild writes sources as URLs: the odd characters arrive percent-encoded.
    expect(map.sources.map(decodeURIComponent)).toEqual([
      `component://odd/${odd}`,
      "component://odd/index.tsx",
    ]);
    expect(map.sourcesContent[0]).toBe("export const v = 1;\n");
  });

  it("rewrites a source map of another shape by parsing it whole", () => {
    const dir = writeTree(typicalComponent("card"));
    const card = component(dir, "card");
    const file = (path: string, text: string) => {
      const contents = Buffer.from(text);
      return { path, contents, text, hash: "" };
    };
    const map = { version: 3, sourceRoot: "/abs/", sources: ["card/View.tsx"], mappings: "" };
    const out = finishOutput(
      card,
      file(join(dir, "card.js"), "export default 1;\n"),
      file(join(dir, "card.js.map"), JSON.stringify(map)),
    );
    const text = Buffer.from(out.code).toString("utf8");
    // The reserved empty line, the code, its import table (see `readImportTable`), the map.
    expect(text).toMatch(/^\nexport default 1;\n\/\/# svcImports=\{.*\}\n\/\/# sourceMappingURL=/);
    const rewritten = inlineMap(text) as unknown as {
      sources: string[];
      sourceRoot?: string;
      mappings: string;
    };
    expect(rewritten.sources).toEqual(["component://card/View.tsx"]);
    expect(rewritten.sourceRoot).toBeUndefined();
    expect(rewritten.mappings).toBe(";"); // one line down, past the reserved one
  });

  it("bundles npm packages the component imports", async () => {
    // Inside the repository, so es-module-lexer resolves from its node_modules.
    const inRepo = mkdtempSync(join(process.cwd(), "node_modules", ".svc-test-"));
    let text: string;
    try {
      writeTree(
        {
          "src/uses_pkg/index.tsx":
            'import { parse } from "es-module-lexer/minimal/js";\nexport default () => String(typeof parse);\n',
        },
        inRepo,
      );
      const { code } = await esbuildBundler.bundle(component(join(inRepo, "src"), "uses_pkg"));
      text = Buffer.from(code).toString("utf8");
    } finally {
      rmSync(inRepo, { recursive: true, force: true });
    }
    expect(text).not.toMatch(/from\s*"es-module-lexer"/);
    expect(text).toContain("es-module-lexer");
  });

  it("never leaks an absolute path: two copies in different directories give identical bytes", async () => {
    const a = writeTree(tree);
    const b = writeTree(tree);
    const [first, second] = await Promise.all([
      esbuildBundler.bundle(component(a, "card")),
      esbuildBundler.bundle(component(b, "card")),
    ]);
    const text = Buffer.from(first.code).toString("utf8");
    const decoded = JSON.stringify(inlineMap(text));
    for (const leak of [a, b, tmpdir(), process.cwd()]) {
      expect(text).not.toContain(leak);
      expect(decoded).not.toContain(leak);
    }
    expect(Buffer.compare(first.code, second.code)).toBe(0);
    expect(first.hash).toBe(second.hash);
    expect(first.hash).toMatch(/^[0-9a-f]{12}$/);
  });

  it("reports every input file, including helpers outside the component", async () => {
    const dir = writeTree(tree);
    const { inputs } = await esbuildBundler.bundle(component(dir, "card"));
    expect(inputs).toEqual(
      expect.arrayContaining([
        join(dir, "card/index.tsx"),
        join(dir, "card/View.tsx"),
        join(dir, "shared/format.ts"),
      ]),
    );
  });

  it("turns a syntax error into a BundleError with file:line:column relative to the component", async () => {
    const dir = writeTree({
      "broken/index.tsx": 'export { default } from "./Impl";\n',
      "broken/Impl.tsx": "export default function Impl() {\n  const x = ;\n  return x;\n}\n",
    });
    const error = await esbuildBundler.bundle(component(dir, "broken")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    expect((error as BundleError).message).toMatch(/^Could not bundle "broken": Impl\.tsx:2:\d+: /);
    expect((error as BundleError).message).not.toContain(dir);
  });
});

describe("import.meta.env", () => {
  /** Sets environment variables for one test. */
  function setEnv(values: Record<string, string>): void {
    for (const [name, value] of Object.entries(values)) {
      const before = process.env[name];
      process.env[name] = value;
      onTestFinished(() => {
        if (before === undefined) delete process.env[name];
        else process.env[name] = before;
      });
    }
  }

  // What a component reads; `import.meta.url` sends its server bundle through esbuild's
  // transform instead of the conversion by hand: both must give the same values.
  const reads = (transform: boolean) =>
    `export const values = {
  mode: import.meta.env.MODE,
  dev: import.meta.env.DEV,
  prod: import.meta.env.PROD,
  greeting: import.meta.env.SVC_PUBLIC_GREETING,
  unset: import.meta.env.SVC_PUBLIC_UNSET,
  secret: import.meta.env.SVC_TEST_SECRET,
  all: import.meta.env,
  processSecret: typeof process === "undefined" ? "no process" : typeof process.env.SVC_TEST_SECRET,
  ${transform ? "url: typeof import.meta.url," : ""}
};
export default function Env() {
  return null;
}
`;

  it("gives MODE, DEV, PROD and the SVC_PUBLIC_ variables, in browser and server bundles alike, and nothing else of the environment", async () => {
    setEnv({ SVC_PUBLIC_GREETING: "hello from the env", SVC_TEST_SECRET: "hunter2-do-not-ship" });
    const dir = writeTree({ "plain/index.ts": reads(false), "transformed/index.ts": reads(true) });
    for (const mode of ["development", "production"] as const) {
      for (const name of ["plain", "transformed"]) {
        const browser = await esbuildBundler.bundle(component(dir, name), { mode, minify: true });
        const text = Buffer.from(browser.code).toString("utf8");
        expect(text).toContain("hello from the env");
        expect(text).not.toContain("hunter2-do-not-ship");
        // `process.env` other than NODE_ENV is left as written (browsers have no `process`).
        expect(text).toContain("process.env.SVC_TEST_SECRET");
        const { values } = (await import(
          `data:text/javascript;base64,${Buffer.from(browser.code).toString("base64")}`
        )) as { values: Record<string, unknown> };
        const expected = {
          mode,
          dev: mode === "development",
          prod: mode === "production",
          greeting: "hello from the env",
          unset: undefined,
          secret: undefined,
        };
        expect(values).toMatchObject(expected);
        expect(values.all).toEqual({
          MODE: mode,
          DEV: mode === "development",
          PROD: mode === "production",
          SVC_PUBLIC_GREETING: "hello from the env",
        });

        // The values' module is esbuild's own: no file, none outside the component.
        expect(browser.inputs.some((input) => input.includes("<define:"))).toBe(false);
        const withMap = await esbuildBundler.bundle(component(dir, name), { mode });
        expect(inlineMap(Buffer.from(withMap.code).toString("utf8")).sources).toEqual([
          `component://${name}/<define:import.meta.env>`,
          `component://${name}/index.ts`,
        ]);

        const server = await serverBundleOf({ name, code: browser.code, stylesheets: [] });
        const serverText = Buffer.from(server.code).toString("utf8");
        expect(serverText).toContain("hello from the env");
        expect(serverText).not.toContain("hunter2-do-not-ship");
        expect(serverText.includes("import.meta.url"), name).toBe(false);
        const { module } = evaluateServerBundle(serverText, name, server.hash, {});
        expect(module.values).toMatchObject(expected);
        expect((module.values as { all: unknown }).all).toEqual(values.all);
      }
    }
  });

  it("keeps the define keys valid and the bytes the same whatever order the environment lists", () => {
    const one = envDefines("production", {
      SVC_PUBLIC_B: "2",
      SVC_PUBLIC_A: "1",
      "SVC_PUBLIC_C-D": "3",
    });
    const two = envDefines("production", {
      "SVC_PUBLIC_C-D": "3",
      SVC_PUBLIC_A: "1",
      SVC_PUBLIC_B: "2",
    });
    expect(JSON.stringify(one)).toBe(JSON.stringify(two));
    expect(one["import.meta.env"]).toBe(
      '{"MODE":"production","DEV":false,"PROD":true,"SVC_PUBLIC_A":"1","SVC_PUBLIC_B":"2","SVC_PUBLIC_C-D":"3"}',
    );
    // A name that is no identifier is reached through the object only.
    expect(Object.keys(one)).not.toContain("import.meta.env.SVC_PUBLIC_C-D");
    expect(
      envDefines("development", { PATH: "/bin", SVC_PUBLIC_: "bare" })["import.meta.env"],
    ).toBe('{"MODE":"development","DEV":true,"PROD":false}');
  });

  it("is typed for components by @svc/server/client", () => {
    const dir = writeTree({
      "env.ts": `const mode: "development" | "production" = import.meta.env.MODE;
const flags: boolean[] = [import.meta.env.DEV, import.meta.env.PROD];
const greeting: string | undefined = import.meta.env.SVC_PUBLIC_GREETING;
export { flags, greeting, mode };
`,
      "wrong.ts": `export const secret = import.meta.env.SECRET;
export const notAString: string = import.meta.env.SVC_PUBLIC_GREETING;
`,
    });
    const client = fileURLToPath(new URL("../../client.d.ts", import.meta.url));
    const program = ts.createProgram([join(dir, "env.ts"), join(dir, "wrong.ts"), client], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.ESNext,
      target: ts.ScriptTarget.ES2022,
      lib: ["lib.es2022.d.ts"],
      types: [],
    });
    const problems = ts
      .getPreEmitDiagnostics(program)
      .map(
        (d) =>
          `${d.file?.fileName.split("/").pop()}: ${ts.flattenDiagnosticMessageText(d.messageText, "\n")}`,
      );
    expect(problems).toEqual([
      expect.stringMatching(/^wrong\.ts: Property 'SECRET' does not exist on type 'ImportMetaEnv'/),
      expect.stringMatching(
        /^wrong\.ts: Type 'string \| undefined' is not assignable to type 'string'/,
      ),
    ]);
  });
});

describe("runEsbuild", () => {
  it("restarts esbuild's service after it died, so the next bundle succeeds", async () => {
    const dir = writeTree(typicalComponent("card"));
    await esbuildBundler.bundle(component(dir, "card")); // the service is running
    const children = execFileSync("pgrep", ["-f", "-P", String(process.pid), "--", "--service"])
      .toString()
      .trim()
      .split("\n")
      .filter(Boolean);
    expect(children.length).toBeGreaterThan(0);
    for (const pid of children) {
      try {
        process.kill(Number(pid), "SIGKILL");
      } catch {
        // already gone
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100)); // let the exit be noticed
    const { code } = await esbuildBundler.bundle(component(dir, "card"));
    expect(Buffer.from(code).toString("utf8")).toContain("toUpperCase");
  });
});
