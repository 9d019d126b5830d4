/**
 * The components, loader script and build directory every conformance run serves, written
 * once per test file into a temp dir (removed after the file's tests).
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll } from "vitest";
import { writeTree } from "../../packages/server/src/test/fixtures.ts";
import { ComponentRegistry, contentHash, fileSafeName, silentLogger } from "./svc.ts";

export interface Prebuilt {
  file: string;
  hash: string;
  code: Buffer;
}

export interface Fixture {
  /** Components without prefix: greeting, gallery, plain, broken, widgets.chart, …. */
  appDir: string;
  /** Components registered with the prefix "ui": ui:card. */
  uiDir: string;
  loaderScript: string;
  loaderCode: Buffer;
  devLoaderScript: string;
  devLoaderCode: Buffer;
  loaderExtras: string;
  loaderExtrasCode: Buffer;
  loaderLive: string;
  loaderLiveCode: Buffer;
  islandsScript: string;
  islandsScriptCode: Buffer;
  /** A `svc build`-shaped directory listing greeting and ui:card (not plain). */
  buildDir: string;
  prebuilt: Record<"greeting" | "ui:card", Prebuilt>;
  /** greeting's stylesheet and asset in the build directory (paths relative to it). */
  prebuiltFiles: { stylesheet: string; css: Buffer; asset: string; svg: Buffer };
  /** A fresh registry over both sources. */
  registry(): ComponentRegistry;
}

const COMPONENTS: Record<string, string> = {
  "greeting/index.tsx": 'export { default } from "./Greeting";\n',
  "greeting/Greeting.tsx":
    'import { useState } from "react";\nexport default function Greeting({ who = "world" }: { who?: string }) {\n  const [n] = useState(0);\n  return <p>Hello, {who} {n}</p>;\n}\n',
  "greeting/schema.json": JSON.stringify({
    title: "Greeting",
    description: "Says hello.",
    version: "1.0.0",
    type: "object",
    properties: { who: { type: "string", default: "world" } },
    required: [],
  }),
  "plain/index.ts": 'export default function Plain() {\n  return "plain";\n}\n',
  "broken/index.tsx": 'export { default } from "./Impl";\n',
  "broken/Impl.tsx": "export default function Impl() {\n  const x = ;\n  return x;\n}\n",
  // Asks for components by literal names: two that exist, one that does not.
  "gallery/index.tsx":
    'import { ServerComponent, useComponent } from "@svc/react";\n// useComponent("commented") is no dependency\nexport default function Gallery() {\n  const Greeting = useComponent("greeting");\n  return <><Greeting /><ServerComponent name="ui:card" /><ServerComponent name="missing" /></>;\n}\n',
  "widgets/chart/index.tsx": "export default function Chart() {\n  return <svg />;\n}\n",
  "styled/index.tsx":
    'import "./styled.css";\nexport default function Styled() {\n  return <p className="styled">styled</p>;\n}\n',
  "styled/styled.css": ".styled { color: rgb(1, 2, 3); }\n",
  // Islands: one that throws while rendering, one whose render never finishes.
  "thrower/index.tsx":
    'export default function Thrower() {\n  throw new Error("thrown on purpose");\n}\n',
  "stuck/index.tsx":
    "const never = new Promise(() => {});\nexport default function Stuck() {\n  throw never;\n}\n",
};

const UI_COMPONENTS: Record<string, string> = {
  "card/index.tsx": "export default function Card() {\n  return <div>card</div>;\n}\n",
};

const PREBUILT: Record<"greeting" | "ui:card", string> = {
  greeting: 'export default function Greeting() { return "prebuilt greeting"; }\n',
  "ui:card": 'export default function Card() { return "prebuilt card"; }\n',
};

export function createFixture(): Fixture {
  const root = mkdtempSync(join(tmpdir(), "svc-conformance-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const appDir = join(root, "components");
  const uiDir = join(root, "ui-components");
  writeTree(COMPONENTS, appDir);
  writeTree(UI_COMPONENTS, uiDir);

  const loaderScript = join(root, "loader.js");
  const loaderCode = Buffer.from("/* svc loader (fixture) */\nwindow.svcLoaded = true;\n");
  writeFileSync(loaderScript, loaderCode);
  const devLoaderScript = join(root, "loader.dev.js");
  const devLoaderCode = Buffer.from(
    "/* svc loader, development (fixture) */\nwindow.svcDev = 1;\n",
  );
  writeFileSync(devLoaderScript, devLoaderCode);
  const loaderExtras = join(root, "loader.extras.js");
  const loaderExtrasCode = Buffer.from("/* svc loader extras (fixture) */\nexport {};\n");
  writeFileSync(loaderExtras, loaderExtrasCode);
  const loaderLive = join(root, "loader.live.js");
  const loaderLiveCode = Buffer.from("/* svc loader live part (fixture) */\nexport {};\n");
  writeFileSync(loaderLive, loaderLiveCode);
  const islandsScript = join(root, "islands.js");
  const islandsScriptCode = Buffer.from(
    "/* svc islands start (fixture) */\nwindow.svcIslands = 1;\n",
  );
  writeFileSync(islandsScript, islandsScriptCode);

  const buildDir = join(root, "build");
  const prebuilt = {} as Record<"greeting" | "ui:card", Prebuilt>;
  for (const [name, text] of Object.entries(PREBUILT) as ["greeting" | "ui:card", string][]) {
    const code = Buffer.from(text);
    const hash = contentHash(code);
    const file = `bundles/${fileSafeName(name)}.${hash}.js`;
    prebuilt[name] = { file, hash, code };
  }
  const css = Buffer.from(".greeting{color:rgb(4,5,6)}\n");
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>',
  );
  const prebuiltFiles = {
    stylesheet: `bundles/greeting-${contentHash(css)}.css`,
    css,
    asset: "bundles/assets/logo-ABCD2345.svg",
    svg,
  };
  const entries = Object.fromEntries(
    Object.entries(prebuilt).map(([n, p]) => [n, { file: p.file, hash: p.hash }]),
  );
  writeTree(
    {
      "manifest.json": JSON.stringify({
        ...entries,
        greeting: {
          ...entries.greeting,
          css: [{ file: prebuiltFiles.stylesheet }],
          assets: [{ file: prebuiltFiles.asset }],
          // greeting's dependencies: one the build holds, one nothing serves.
          dependencies: ["gone", "ui:card"],
        },
      }),
      ...Object.fromEntries(Object.values(prebuilt).map((p) => [p.file, p.code.toString()])),
      [prebuiltFiles.stylesheet]: css.toString(),
      [prebuiltFiles.asset]: svg.toString(),
    },
    buildDir,
  );

  return {
    appDir,
    uiDir,
    loaderScript,
    loaderCode,
    devLoaderScript,
    devLoaderCode,
    loaderExtras,
    loaderExtrasCode,
    loaderLive,
    loaderLiveCode,
    islandsScript,
    islandsScriptCode,
    buildDir,
    prebuilt,
    prebuiltFiles,
    registry() {
      const registry = new ComponentRegistry(appDir, { logger: silentLogger });
      registry.addSource(uiDir, { prefix: "ui" });
      return registry;
    },
  };
}
