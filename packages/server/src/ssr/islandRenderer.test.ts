import { execFile } from "node:child_process";
import { readFileSync, renameSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { build } from "../build/build.ts";
import { type Bundler, esbuildBundler } from "../bundling/bundler.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import { cn, settleWrites, writeTree } from "../test/fixtures.ts";

const COMPONENTS = {
  "counter/index.tsx": `import { useState } from "react";
export default function Counter({ start = 0, label = "Count" }: { start?: number; label?: string }) {
  const [count] = useState(start);
  return <p className="counter">{label}: {count}</p>;
}
`,
  "counter/schema.json": JSON.stringify({
    type: "object",
    properties: { start: { type: "integer" }, label: { type: "string" } },
  }),
  "outer/index.tsx": `import { useComponent } from "@svc/react";
export default function Outer() {
  const Inner = useComponent<{ text: string }>("inner");
  return <div className="outer"><Inner text="from outer" /></div>;
}
`,
  "inner/index.tsx": `export default function Inner({ text }: { text: string }) {
  return <em>{text}</em>;
}
`,
  "swatch/index.tsx": `import { css, styled } from "goober";
import { useComponent } from "@svc/react";
const Box = styled("div")<{ color: string }>\`border: 1px solid \${(p) => p.color};\`;
export default function Swatch({ color = "red", note = "" }: { color?: string; note?: string }) {
  const Label = useComponent<{ text: string }>("label");
  return <Box color={color} className={css({ content: JSON.stringify(note) })}><Label text={color} /></Box>;
}
`,
  "label/index.tsx": `import { css } from "goober";
export default function Label({ text }: { text: string }) {
  return <span className={css\`font-weight: 700;\`}>{text}</span>;
}
`,
  "thrower/index.tsx": `export { default } from "./Thrower";\n`,
  "thrower/Thrower.tsx": `export default function Thrower() {
  const message = "no";
  throw new Error("thrown " + message);
}
`,
};

function setup(files: Record<string, string> = COMPONENTS, options = {}) {
  const dir = writeTree(files);
  const registry = new ComponentRegistry(dir, { logger: silentLogger });
  return {
    dir,
    registry,
    handlers: createHandlers(registry, { logger: silentLogger, ...options }),
  };
}

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (error: Error & { kind?: string }) => error,
  );

/**
 * Renders "counter" warm three times, makes `start` a string in its `schema.json`, and
 * expects the next turn's render to check the props against the new schema.
 */
async function expectSchemaEditSeen(dir: string, handlers: Handlers): Promise<void> {
  for (let i = 0; i < 3; i++) {
    expect(await handlers.renderIsland(cn("counter"), { start: i })).toContain(`${i}</p>`);
  }
  await new Promise((resolve) => setImmediate(resolve));
  writeFileSync(
    join(dir, "counter/schema.json"),
    JSON.stringify({ type: "object", properties: { start: { type: "string" } } }),
  );
  await new Promise((resolve) => setImmediate(resolve));
  const refused = await failure(handlers.renderIsland(cn("counter"), { start: 1 }));
  expect(refused).toMatchObject({ kind: "InvalidProps" });
  expect(refused?.message).toMatch(/start: .*string/);
}

/** Each render isolation: the tests of the first group run against both. */
const MODES = [
  ["in the render pool (the default)", {}],
  ["in the server's thread", { renderIsolation: "none" }],
] as const;

describe.each(MODES)("renderIsland %s", (_mode, isolation) => {
  const setupIn = (files: Record<string, string> = COMPONENTS, options = {}) =>
    setup(files, { ...isolation, ...options });

  it("renders the component inside its container, props escaped", async () => {
    const { handlers } = setupIn();
    const label = `</p><script>alert(1)</script>"'&`;
    const html = await handlers.renderIsland(cn("counter"), { start: 3, label });
    const bundle = await handlers.getBundle(cn("counter"));
    expect(html).toMatch(
      /^<div data-svc-component="counter" data-svc-props='[^']*' data-svc-ssr="" /,
    );
    expect(html).toContain(`data-svc-hash="${bundle.hash}" data-svc-hydrate="load">`);
    expect(html).not.toContain("<script>");
    expect(html).toContain("&lt;/p&gt;&lt;script&gt;alert(1)&lt;/script&gt;");
    const props = /data-svc-props='([^']*)'/.exec(html)?.[1] ?? "";
    // In single quotes the JSON's own `"` stay as they are.
    expect(props).toContain('{"start":3,"label":"&lt;/p&gt;');
    expect(props).not.toContain("&quot;");
    const decoded = props
      .replaceAll("&lt;", "<")
      .replaceAll("&gt;", ">")
      .replaceAll("&#39;", "'")
      .replaceAll("&amp;", "&");
    expect(JSON.parse(decoded)).toEqual({ start: 3, label });
  });

  it("builds each component once: its server bundle is made from its browser bundle", async () => {
    const builds: string[] = [];
    const bundler: Bundler = {
      bundle(component, options) {
        builds.push(component.name);
        return esbuildBundler.bundle(component, options);
      },
    };
    const { handlers } = setupIn(COMPONENTS, { bundler });
    const html = await handlers.renderIsland(cn("outer"), {});
    expect(html).toContain("<em>from outer</em>");
    // No server build: each component's browser bundle, and nothing else, was built.
    expect(new Set(builds)).toEqual(new Set(["inner", "outer"]));
    const outer = await handlers.getBundle(cn("outer"));
    expect(html).toContain(`data-svc-hash="${outer.hash}"`);
  });

  it("renders nested components and lists them with their hashes", async () => {
    const { handlers } = setupIn();
    const html = await handlers.renderIsland(cn("outer"), {}, { hydrate: "visible" });
    const inner = await handlers.getBundle(cn("inner"));
    expect(html).toContain("<em>from outer</em>");
    expect(html).toContain(`data-svc-hydrate="visible"`);
    expect(html).toContain(`data-svc-deps='{"inner":"${inner.hash}"}'`);
  });

  it("waits for what a component suspends on, its own promise or a nested component, on every render", async () => {
    const { handlers } = setupIn({
      ...COMPONENTS,
      "waiter/index.tsx": `import { use } from "react";
const ready = new Promise<string>((resolve) => setTimeout(() => resolve("arrived"), 20));
export default function Waiter() {
  return <p className="waiter">{use(ready)}</p>;
}
`,
    });
    for (let i = 0; i < 2; i++) {
      const [waiter, outer] = await Promise.all([
        handlers.renderIsland(cn("waiter"), {}),
        handlers.renderIsland(cn("outer"), {}),
      ]);
      expect(waiter).toContain('<p class="waiter">arrived</p>');
      expect(outer).toContain("<em>from outer</em>");
      expect(outer).toContain("data-svc-deps=");
      for (const html of [waiter, outer]) expect(html).not.toMatch(/<!--\$[!?]-->/);
    }
  });

  it("refuses props that are no object (400) or fail schema.json (422)", async () => {
    const { handlers } = setupIn();
    const malformed = await failure(handlers.renderIsland(cn("counter"), [1]));
    expect(malformed).toMatchObject({ kind: "InvalidProps", malformed: true });
    const invalid = await failure(handlers.renderIsland(cn("counter"), { start: "three" }));
    expect(invalid).toMatchObject({ kind: "InvalidProps", malformed: false });
    expect(invalid?.message).toMatch(/start: .*integer/);
    // A strategy the browser could not follow, asked for in process as over HTTP.
    const strategy = await failure(
      handlers.renderIsland(cn("counter"), {}, { hydrate: "media:bogus" as never }),
    );
    expect(strategy).toMatchObject({ kind: "InvalidProps", malformed: true });
    expect(strategy?.message).toMatch(/is no strategy/);
  });

  it("checks props against schema.json as it is now, after an edit", async () => {
    const { dir, handlers } = setupIn();
    expect(await handlers.renderIsland(cn("counter"), { start: 1 })).toContain("1</p>");
    writeFileSync(
      join(dir, "counter/schema.json"),
      JSON.stringify({ type: "object", properties: { start: { type: "string" } } }),
    );
    const refused = await failure(handlers.renderIsland(cn("counter"), { start: 1 }));
    expect(refused).toMatchObject({ kind: "InvalidProps" });
    expect(refused?.message).toMatch(/start: .*string/);
  });

  it("renders each call's own props, strategy and API base when warm, many at once", async () => {
    const { handlers } = setupIn();
    settleWrites(); // or the builds are racy and never kept: every render would be cold
    await handlers.renderIsland(cn("counter"), { start: 0 });
    const asked = Array.from({ length: 12 }, (_, i) => ({
      props: { start: i, label: `L${i}&` },
      options: {
        hydrate: (["load", "visible", "idle"] as const)[i % 3],
        // An empty API base is one too: not the same as none.
        ...(i % 4 === 0 ? { apiBase: `/api${i}` } : i === 6 ? { apiBase: "" } : {}),
      },
    }));
    const islands = await Promise.all(
      asked.map(({ props, options }) => handlers.renderIsland(cn("counter"), props, options)),
    );
    islands.forEach((html, i) => {
      const { options } = asked[i] as (typeof asked)[number];
      expect(html).toContain(`<p class="counter">L${i}&amp;<!-- -->: <!-- -->${i}</p>`);
      expect(html).toContain(`data-svc-props='{"start":${i},"label":"L${i}&amp;"}'`);
      expect(html).toContain(`data-svc-hydrate="${options.hydrate}"`);
      if ("apiBase" in options) expect(html).toContain(`data-svc-api="${options.apiBase}">`);
      else expect(html).not.toContain("data-svc-api");
    });
    const invalid = await failure(handlers.renderIsland(cn("counter"), { start: 0.5 }));
    expect(invalid?.message).toMatch(/start: .*integer/);
  });

  it("checks a warm component's props against schema.json as it is in the next turn after an edit", async () => {
    const { dir, handlers } = setupIn();
    settleWrites(); // or the builds are racy and never kept: every render would be cold
    await expectSchemaEditSeen(dir, handlers);
    expect(await handlers.renderIsland(cn("counter"), { start: "2" })).toContain("2</p>");
  });

  it("puts each render's goober rules, nested components' included, in a style before the island", async () => {
    const { handlers } = setupIn();
    const [red, blue] = await Promise.all([
      handlers.renderIsland(cn("swatch"), { color: "red" }),
      handlers.renderIsland(cn("swatch"), { color: "blue" }),
    ]);
    for (const [html, color, other] of [
      [red, "red", "blue"],
      [blue, "blue", "red"],
    ] as const) {
      const style =
        /^<style data-svc-styles="swatch">(.*?)<\/style><div data-svc-component="swatch"/.exec(
          html,
        );
      expect(style?.[1]).toContain(`border:1px solid ${color};`);
      expect(style?.[1]).toContain("font-weight:700;");
      // Concurrent renders do not share rules; the classes the HTML uses are all defined.
      expect(style?.[1]).not.toContain(`solid ${other}`);
      for (const [, name] of html.matchAll(/class="[^"]*?(go\d+)/g)) {
        expect(style?.[1]).toContain(`.${name}{`);
      }
    }
    // A prop that ends up in a rule cannot end the style element.
    const note = "</style><script>alert(1)</script>";
    const html = await handlers.renderIsland(cn("swatch"), { note });
    expect(html).not.toContain("</style><script>");
    expect(html.indexOf("</style>") + "</style>".length).toBe(html.indexOf("<div"));
    expect(html).toContain(`content:"<\\/style><script>alert(1)</script>"`);
  });

  it("puts the goober rules of a component rendered alone, warm, in its own style", async () => {
    const { handlers } = setupIn();
    settleWrites(); // or the builds are racy and never kept: every render would be cold
    for (let i = 0; i < 3; i++) {
      const islands = await Promise.all(
        ["a", "b"].map((text) => handlers.renderIsland(cn("label"), { text })),
      );
      for (const html of islands) {
        expect(html).toMatch(
          /^<style data-svc-styles="label">[^<]*font-weight:700;[^<]*<\/style><div data-svc-component="label"/,
        );
      }
    }
  });

  it("answers a component that throws with a RenderError whose stack is in the component's files", async () => {
    const { dir, handlers } = setupIn();
    const error = await failure(handlers.renderIsland(cn("thrower"), {}));
    expect(error).toMatchObject({ kind: "RenderError", component: "thrower" });
    expect(error?.message).toMatch(
      /thrown no\n\s+at Thrower \(component:\/\/thrower\/Thrower\.tsx:3:9\)/,
    );
    // Only frames in the component's own files: nothing of the machine's layout.
    const frames = error?.message.split("\n").slice(1) ?? [];
    expect(frames.length).toBeGreaterThan(0);
    for (const frame of frames) expect(frame).toMatch(/^\s+at .*component:\/\/thrower\//);
    expect(error?.message).not.toContain(dir);
    expect(error?.message).not.toContain("node_modules");
  });

  it("answers a render that never finishes with RenderTimeout", async () => {
    const { handlers } = setupIn(
      {
        "stuck/index.tsx":
          "const never = new Promise(() => {});\nexport default () => { throw never; };\n",
      },
      { renderTimeoutMs: 200 },
    );
    const error = await failure(handlers.renderIsland(cn("stuck"), {}));
    expect(error).toMatchObject({ kind: "RenderTimeout", component: "stuck" });
  });

  it("renders each new version of a nested component, never a stale one", async () => {
    const { dir, handlers } = setupIn();
    for (let version = 0; version < 6; version++) {
      writeFileSync(
        join(dir, "inner/index.tsx"),
        `export default function Inner({ text }: { text: string }) {\n  return <em>{text} v${version}</em>;\n}\n`,
      );
      const html = await handlers.renderIsland(cn("outer"), {});
      expect(html.replaceAll("<!-- -->", "")).toContain(`<em>from outer v${version}</em>`);
    }
  });

  it("renders the new version on the next request after an edit", async () => {
    const { dir, handlers } = setupIn();
    expect(await handlers.renderIsland(cn("inner"), { text: "a" })).toContain("<em>a</em>");
    writeFileSync(
      join(dir, "inner/index.tsx"),
      "export default function Inner({ text }: { text: string }) {\n  return <strong>{text}</strong>;\n}\n",
    );
    await new Promise((resolve) => setImmediate(resolve));
    expect(await handlers.renderIsland(cn("inner"), { text: "a" })).toContain("<strong>a</strong>");
  });
});

/** Runs `script` (an ES module) in a Node process of its own, from svc's sources. */
const run = promisify(execFile);
const SERVER_INDEX = new URL("../index.ts", import.meta.url).href;

describe("renderIsland in the server's thread (renderIsolation: none)", () => {
  it("renders in the server's own thread, with its React: no worker, one React for all", async () => {
    const { handlers } = setup(
      {
        "here/index.tsx": `export default function Here() {
  return <p>{String((globalThis as { svcRenderMarker?: string }).svcRenderMarker)}</p>;
}
`,
      },
      { renderIsolation: "none" },
    );
    const global = globalThis as { svcRenderMarker?: string };
    global.svcRenderMarker = "this thread";
    try {
      expect(await handlers.renderIsland(cn("here"), {})).toContain("<p>this thread</p>");
    } finally {
      delete global.svcRenderMarker;
    }
  });

  it("renders a component that loads another by a name computed at run time (svc's tree, not the component alone)", async () => {
    const { handlers } = setup(
      {
        ...COMPONENTS,
        "dynamic/index.tsx": `import { useComponent } from "@svc/react";
export default function Dynamic({ which = "inn" }: { which?: string }) {
  const Inner = useComponent<{ text: string }>(which + "er");
  return <div><Inner text="computed" /></div>;
}
`,
      },
      { renderIsolation: "none" },
    );
    for (let i = 0; i < 2; i++) {
      const html = await handlers.renderIsland(cn("dynamic"), {});
      expect(html).toContain("<div><em>computed</em></div>");
      expect(html).toContain("data-svc-deps=");
    }
  });

  it("times out a render that waits for ever, and renders on", async () => {
    const { handlers } = setup(
      {
        ...COMPONENTS,
        "stuck/index.tsx": `import { useComponent } from "@svc/react";
const never = new Promise(() => {});
export default function Stuck() {
  const Inner = useComponent<{ text: string }>("inner");
  throw never;
  return <Inner text="unreachable" />;
}
`,
      },
      { renderTimeoutMs: 300, renderIsolation: "none" },
    );
    const started = Date.now();
    const [stuck, bystander] = await Promise.all([
      failure(handlers.renderIsland(cn("stuck"), {})),
      handlers.renderIsland(cn("counter"), { start: 1 }),
    ]);
    expect(stuck).toMatchObject({ kind: "RenderTimeout", component: "stuck" });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(bystander).toContain("Count<!-- -->: <!-- -->1");
    expect(await handlers.renderIsland(cn("counter"), { start: 2 })).toContain(
      "Count<!-- -->: <!-- -->2",
    );
  });

  it.each(
    (["none", "worker"] as const).flatMap((isolation) => [
      [
        "svc's React layer",
        isolation,
        ["@svc/react", "react", "react-dom", "@tanstack/react-query"],
        "@svc/react",
      ],
      ["React", isolation, ["react"], "react"],
    ]),
  )(
    "without %s installed (renderIsolation %s), fails with the one line that says what to install",
    async (_what, isolation, missing, named) => {
      const dir = writeTree({
        "hello/index.tsx": "export default function Hello() {\n  return <p>hello</p>;\n}\n",
      });
      const script = join(writeTree({}), "render.mjs");
      writeFileSync(
        script,
        `import { registerHooks } from "node:module";
const missing = ${JSON.stringify(missing)};
registerHooks({
  resolve(specifier, context, next) {
    if (missing.some((id) => specifier === id || specifier.startsWith(id + "/"))) {
      throw Object.assign(new Error("Cannot find module '" + specifier + "'"), { code: "MODULE_NOT_FOUND" });
    }
    return next(specifier, context);
  },
});
const svc = await import(${JSON.stringify(SERVER_INDEX)});
const handlers = svc.createHandlers(new svc.ComponentRegistry(${JSON.stringify(dir)}, { logger: svc.silentLogger }), { logger: svc.silentLogger, renderIsolation: ${JSON.stringify(isolation)} });
const answer = await handlers.renderIsland(svc.parseComponentName("hello"), {}).then(
  (html) => ({ html }),
  (error) => ({ name: error.name, kind: error.kind, message: error.message }),
);
console.log(JSON.stringify(answer));
`,
      );
      const { stdout } = await run(process.execPath, ["--conditions=source", script], {
        cwd: fileURLToPath(new URL(".", import.meta.url)),
      });
      expect(JSON.parse(stdout)).toEqual({
        name: "RenderSetupError",
        kind: "RenderError",
        message: `server-side rendering needs ${named}, which is not installed: run \`npm install react react-dom @tanstack/react-query @svc/react\``,
      });
    },
  );
});

describe("renderIsland in the render pool", () => {
  it("stops a component stuck in a loop (RenderTimeout), sends the worker's other renders again, and renders on", async () => {
    const { handlers } = setup(
      {
        ...COMPONENTS,
        "spin/index.tsx": "export default function Spin() {\n  for (;;) {}\n  return null;\n}\n",
      },
      { renderTimeoutMs: 500, renderWorkers: 1 },
    );
    await handlers.renderIsland(cn("inner"), { text: "warm" });
    const spinning = failure(handlers.renderIsland(cn("spin"), {}));
    await new Promise((resolve) => setTimeout(resolve, 100));
    // Sent to the worker while it spins: answered by the worker that replaces it.
    const bystander = handlers.renderIsland(cn("inner"), { text: "bystander" });
    expect(await spinning).toMatchObject({ kind: "RenderTimeout", component: "spin" });
    expect(await bystander).toContain("<em>bystander</em>");
    expect(await handlers.renderIsland(cn("inner"), { text: "after" })).toContain("<em>after</em>");
  });

  it("renders every version across replacements of its worker", async () => {
    const { dir, handlers } = setup(COMPONENTS, { renderRecycleBytes: 1 });
    for (let version = 0; version < 6; version++) {
      writeFileSync(
        join(dir, "inner/index.tsx"),
        `export default function Inner({ text }: { text: string }) {\n  return <em>{text} v${version}</em>;\n}\n`,
      );
      const html = await handlers.renderIsland(cn("outer"), {});
      expect(html.replaceAll("<!-- -->", "")).toContain(`<em>from outer v${version}</em>`);
    }
  });
});

describe("renderIsland in production", () => {
  it("renders from the build's server bundles, without the sources (so without esbuild)", async () => {
    const { dir, registry } = setup();
    const outDir = join(writeTree({}), "build");
    const built = await build({ registry, outDir });
    const counter = built.manifest.counter;
    expect(counter?.server?.file).toMatch(/^bundles\/counter\.[0-9a-f]{12}\.cjs$/);
    expect(counter?.server?.integrity).toMatch(/^sha384-/);
    renameSync(dir, `${dir}-gone`); // no source left to bundle
    const handlers = createHandlers(new ComponentRegistry(undefined, { logger: silentLogger }), {
      logger: silentLogger,
      buildDir: outDir,
      staticMode: true,
    });
    const html = await handlers.renderIsland(cn("outer"), {});
    expect(html).toContain("<em>from outer</em>");
    expect(html).toContain(`data-svc-hash="${built.manifest.outer?.hash}"`);
    expect(html).toContain(`"inner":"${built.manifest.inner?.hash}"`);
  });

  it("renders warm from the build in use, a new build from the next turn on", async () => {
    const { dir, registry } = setup();
    const outDir = join(writeTree({}), "build");
    const first = await build({ registry, outDir });
    const handlers = createHandlers(registry, { logger: silentLogger, buildDir: outDir });
    for (let i = 0; i < 3; i++) {
      const html = await handlers.renderIsland(cn("inner"), { text: `x${i}` });
      expect(html).toContain(`<em>x${i}</em>`);
      expect(html).toContain(`data-svc-hash="${first.manifest.inner?.hash}"`);
    }
    writeFileSync(
      join(dir, "inner/index.tsx"),
      "export default function Inner({ text }: { text: string }) {\n  return <b>{text}</b>;\n}\n",
    );
    const next = await build({ registry, outDir });
    await new Promise((resolve) => setImmediate(resolve)); // the manifest is checked once a turn
    for (let i = 0; i < 3; i++) {
      const html = await handlers.renderIsland(cn("inner"), { text: `y${i}` });
      expect(html).toContain(`<b>y${i}</b>`);
      expect(html).toContain(`data-svc-hash="${next.manifest.inner?.hash}"`);
    }
  });

  it("checks a warm component's props against schema.json as it is, its sources beside the build", async () => {
    const { dir, registry } = setup();
    settleWrites();
    const outDir = join(writeTree({}), "build");
    await build({ registry, outDir });
    const handlers = createHandlers(registry, { logger: silentLogger, buildDir: outDir });
    await expectSchemaEditSeen(dir, handlers);
  });

  it("refuses a server bundle that does not match its integrity", async () => {
    const { registry } = setup();
    const outDir = join(writeTree({}), "build");
    const built = await build({ registry, outDir });
    const file = join(outDir, built.manifest.inner?.server?.file ?? "");
    writeFileSync(file, readFileSync(file, "utf8").replace("text", "txet"));
    const handlers = createHandlers(new ComponentRegistry(undefined, { logger: silentLogger }), {
      logger: silentLogger,
      buildDir: outDir,
    });
    const error = await failure(handlers.renderIsland(cn("inner"), { text: "x" }));
    expect(error).toMatchObject({ kind: "BundleError" });
    expect(error?.message).toMatch(/does not match its integrity/);
  });
});

/** Time enough for a render worker to start on a busy machine. */
const SLOW_OK = { renderTimeoutMs: 30_000 };

/** A component with plain CSS, a CSS module and an image, loading another with CSS of its own. */
const STYLED = {
  "card/index.tsx": `import "./card.css";
import styles from "./card.module.css";
import photo from "./photo.png";
import { useComponent } from "@svc/react";
export default function Card({ title = "Card" }: { title?: string }) {
  const Badge = useComponent<{ text: string }>("badge");
  return (
    <article className={"card " + styles.frame}>
      <img className={styles.photo} src={photo} alt="" />
      <h3 className={styles.title}>{title}</h3>
      <Badge text="new" />
    </article>
  );
}
`,
  "card/card.css": ".card { padding: 12px; }\n",
  "card/card.module.css":
    ".frame { border: 1px solid rgb(1, 2, 3); }\n.photo { width: 40px; background: url(./photo.png); }\n.title { color: rgb(4, 5, 6); }\n",
  "card/photo.png": "not really a png, but 1 KiB of it ".repeat(40),
  "badge/index.tsx": `import "./badge.css";
export default function Badge({ text }: { text: string }) {
  return <span className="badge">{text}</span>;
}
`,
  "badge/badge.css": ".badge { color: rgb(7, 8, 9); }\n",
};

/** The stylesheet links before an island's container, and the rest. */
function linksOf(html: string): { hrefs: string[]; rest: string } {
  const hrefs: string[] = [];
  let rest = html;
  for (let match = /^<link rel="stylesheet" href="([^"]+)"[^>]*>/.exec(rest); match !== null; ) {
    hrefs.push(match[1] as string);
    rest = rest.slice(match[0].length);
    match = /^<link rel="stylesheet" href="([^"]+)"[^>]*>/.exec(rest);
  }
  return { hrefs, rest };
}

describe("renderIsland with styles and assets", () => {
  it("links the stylesheets of every component it rendered before the container; CSS module class names and asset URLs as in the browser bundle", async () => {
    const { handlers } = setup(STYLED, SLOW_OK);
    const html = await handlers.renderIsland(cn("card"), {});
    const { hrefs, rest } = linksOf(html);
    expect(rest).toMatch(/^<div data-svc-component="card"/);
    // The browser bundles' own stylesheets, the card's first, each served under that URL.
    const sheets: string[] = [];
    for (const name of ["card", "badge"]) {
      const code = Buffer.from((await handlers.getBundle(cn(name))).code).toString("utf8");
      for (const [, path] of code.matchAll(/import "\.\/([\w.-]+\.css)";/g)) {
        sheets.push(path as string);
      }
    }
    expect(sheets).toHaveLength(3);
    expect(hrefs).toEqual(sheets.map((sheet) => `/api/bundles/${sheet}`));
    const moduleCss = Buffer.from(
      (await handlers.getBundleFile?.(sheets[1] as string))?.body ?? [],
    ).toString("utf8");
    // The CSS module's class names: the same in the server HTML as in the browser's stylesheet.
    const title = /\.(\w+_title)\b/.exec(moduleCss)?.[1];
    expect(title).toMatch(/^card_[0-9a-f]+_title$/);
    expect(rest).toContain(`<h3 class="${title}">Card</h3>`);
    // The image's URL: the path the browser bundle gives it on this origin, served by svc.
    const src = /<img class="[^"]+" src="([^"]+)"/.exec(rest)?.[1] ?? "";
    expect(src).toMatch(/^\/api\/bundles\/assets\/photo-[A-Z0-9]{8}\.png$/);
    expect((await handlers.getBundleFile?.(src.slice("/api/bundles/".length)))?.body).toEqual(
      Buffer.from(STYLED["card/photo.png"]),
    );
    expect(rest).toContain('<span class="badge">new</span>');
  });

  it("serves the files an island names from another handler set too (a backend of its own, a restart)", async () => {
    const { registry, handlers } = setup(STYLED, SLOW_OK);
    const html = await handlers.renderIsland(cn("card"), {});
    const api = createHandlers(registry, { logger: silentLogger });
    const paths = [...linksOf(html).hrefs, /src="([^"]+)"/.exec(html)?.[1] ?? ""].map((url) =>
      url.slice("/api/bundles/".length),
    );
    expect(paths).toHaveLength(4);
    for (const path of paths) {
      expect((await api.getBundleFile?.(path))?.body.byteLength).toBeGreaterThan(0);
    }
    expect(await api.getBundleFile?.("card-000000000000.css")).toBeUndefined();
  });

  it("starts links and asset URLs with the island's API base, a full URL of a CDN too", async () => {
    const { handlers } = setup(STYLED, { ...SLOW_OK, apiBase: "/svc" });
    const html = await handlers.renderIsland(cn("card"), {});
    expect(linksOf(html).hrefs.every((href) => href.startsWith("/svc/bundles/"))).toBe(true);
    expect(html).toMatch(/src="\/svc\/bundles\/assets\/photo-[A-Z0-9]{8}\.png"/);
    const cdn = "http://127.0.0.1:9/static/api";
    const viaCdn = await handlers.renderIsland(cn("card"), {}, { apiBase: cdn });
    expect(linksOf(viaCdn).hrefs.every((href) => href.startsWith(`${cdn}/bundles/`))).toBe(true);
    expect(viaCdn).toContain(`src="${cdn}/bundles/assets/photo-`);
    expect(viaCdn).toContain(`data-svc-api="${cdn}"`);
  });

  it("renders from a build in static mode: links the build's stylesheets where the browser bundle loads them, class names as in the built CSS, the island naming its manifest", async () => {
    const { dir, registry } = setup(STYLED, SLOW_OK);
    const outDir = join(writeTree({}), "build");
    const built = await build({ registry, outDir });
    renameSync(dir, `${dir}-gone`);
    const handlers = createHandlers(new ComponentRegistry(undefined, { logger: silentLogger }), {
      logger: silentLogger,
      buildDir: outDir,
      staticMode: true,
      ...SLOW_OK,
    });
    const html = await handlers.renderIsland(cn("card"), {});
    const { hrefs, rest } = linksOf(html);
    const listed = [...(built.manifest.card?.css ?? []), ...(built.manifest.badge?.css ?? [])];
    // One URL per file: the build's, as the bundle loaded through the manifest names them.
    expect(hrefs).toEqual(listed.map(({ file }) => `/api/static/${file}`));
    expect(html).toContain('data-svc-manifest="/api/static/manifest.json"');
    const moduleCss = listed.map(({ file }) => readFileSync(join(outDir, file), "utf8")).join("\n");
    const title = /\.(\w+_title)\b/.exec(moduleCss)?.[1];
    expect(title).toMatch(/^card_[0-9a-f]+_title$/);
    expect(rest).toContain(`<h3 class="${title}">Card</h3>`);
    const asset = built.manifest.card?.assets?.[0]?.file ?? "";
    expect(rest).toContain(`src="/api/static/${asset}"`);
  });
});
