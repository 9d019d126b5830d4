/**
 * The dev cache never serves a stale bundle, whatever changed how the bundle resolves: each
 * case builds a component (and shows the build was cached), changes one thing, and expects
 * the very next request to carry the new code. Real files, real esbuild.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, symlinkSync, unlinkSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { cn, countingBundler, settleWrites, writeTree } from "../test/fixtures.ts";

interface Change {
  /** Files of the project (a `package.json` at its root); `components/card` is the component. */
  files: Record<string, string>;
  /** Links to make after the files: path → target (relative to the link's directory). */
  links?: Record<string, string>;
  /** What the first bundle says. */
  before: string;
  change(root: string): void;
  /** What the first bundle after the change must say. */
  after: string;
}

const OLD = "OLD-MARK";
const NEW = "NEW-MARK";
const PROJECT = { "package.json": JSON.stringify({ name: "app", private: true }) };
const card = (source: string) => ({ "components/card/index.tsx": source });
const value = (text: string) => `export const value = "${text}";\n`;
const importValue = (specifier: string) =>
  `import { value } from "${specifier}";\nexport default function Card() { return value; }\n`;

function write(root: string, path: string, content: string): void {
  const file = join(root, path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, content);
}

/** `ln -sfn target link`: a new link renamed over the old one. */
function relink(root: string, link: string, target: string): void {
  const path = join(root, link);
  const temporary = `${path}.tmp-link`;
  symlinkSync(target, temporary);
  renameSync(temporary, path);
}

const tsconfig = (options: Record<string, unknown>) => JSON.stringify({ compilerOptions: options });
/** A tsconfig mapping `@lib/*` to `<dir>/*`. */
const libPaths = (dir: string) => tsconfig({ baseUrl: ".", paths: { "@lib/*": [`${dir}/*`] } });
/**
 * A project whose `tsconfig.json` extends `target`; `tsconfig.base.json` maps `@lib/*` to
 * `lib-a` (OLD), `lib-b` says NEW; the card imports `@lib/value`.
 */
const extendingProject = (target: string) => ({
  "tsconfig.base.json": libPaths("lib-a"),
  "tsconfig.json": JSON.stringify({ extends: target }),
  "lib-a/value.ts": value(OLD),
  "lib-b/value.ts": value(NEW),
  ...card(importValue("@lib/value")),
});

const cases: Record<string, Change> = {
  "tsconfig.json paths edited": {
    files: {
      "tsconfig.json": libPaths("lib-a"),
      "lib-a/value.ts": value(OLD),
      "lib-b/value.ts": value(NEW),
      ...card(importValue("@lib/value")),
    },
    before: OLD,
    change: (root) => write(root, "tsconfig.json", libPaths("lib-b")),
    after: NEW,
  },
  "tsconfig.json baseUrl edited": {
    files: {
      "tsconfig.json": tsconfig({ baseUrl: "src-a" }),
      "src-a/shared/value.ts": value(OLD),
      "src-b/shared/value.ts": value(NEW),
      ...card(importValue("shared/value")),
    },
    before: OLD,
    change: (root) => write(root, "tsconfig.json", tsconfig({ baseUrl: "src-b" })),
    after: NEW,
  },
  "tsconfig.json jsxImportSource edited": {
    files: {
      "tsconfig.json": tsconfig({ jsxImportSource: "jsx-a" }),
      "node_modules/jsx-a/package.json": JSON.stringify({ name: "jsx-a" }),
      "node_modules/jsx-a/jsx-runtime.js": `export const jsx = () => "${OLD}";\nexport const jsxs = jsx;\n`,
      "node_modules/jsx-b/package.json": JSON.stringify({ name: "jsx-b" }),
      "node_modules/jsx-b/jsx-runtime.js": `export const jsx = () => "${NEW}";\nexport const jsxs = jsx;\n`,
      ...card("export default function Card() { return <p>card</p>; }\n"),
    },
    before: OLD,
    change: (root) => write(root, "tsconfig.json", tsconfig({ jsxImportSource: "jsx-b" })),
    after: NEW,
  },
  "a tsconfig.json it extends edited": {
    files: extendingProject("./tsconfig.base.json"),
    before: OLD,
    change: (root) => write(root, "tsconfig.base.json", libPaths("lib-b")),
    after: NEW,
  },
  "the tsconfig.json an extends names without .json edited (read with .json added)": {
    files: extendingProject("./tsconfig.base"),
    before: OLD,
    change: (root) => write(root, "tsconfig.base.json", libPaths("lib-b")),
    after: NEW,
  },
  "the file an extends names without .json created (it was read with .json added)": {
    files: extendingProject("./tsconfig.base"),
    before: OLD,
    change: (root) => write(root, "tsconfig.base", libPaths("lib-b")),
    after: NEW,
  },
  "a closer jsconfig.json created": {
    files: {
      "node_modules/@lib/value/package.json": JSON.stringify({ name: "@lib/value" }),
      "node_modules/@lib/value/index.js": value(OLD),
      "lib-b/value.ts": value(NEW),
      ...card(importValue("@lib/value")),
    },
    before: OLD,
    change: (root) =>
      write(
        root,
        "components/jsconfig.json",
        tsconfig({ baseUrl: "..", paths: { "@lib/*": ["lib-b/*"] } }),
      ),
    after: NEW,
  },
  "package.json main edited": {
    files: {
      "node_modules/pkg/package.json": JSON.stringify({ name: "pkg", main: "a.js" }),
      "node_modules/pkg/a.js": value(OLD),
      "node_modules/pkg/b.js": value(NEW),
      ...card(importValue("pkg")),
    },
    before: OLD,
    change: (root) =>
      write(root, "node_modules/pkg/package.json", JSON.stringify({ name: "pkg", main: "b.js" })),
    after: NEW,
  },
  "package.json exports edited": {
    files: {
      "node_modules/pkg/package.json": JSON.stringify({ name: "pkg", exports: "./a.js" }),
      "node_modules/pkg/a.js": value(OLD),
      "node_modules/pkg/b.js": value(NEW),
      ...card(importValue("pkg")),
    },
    before: OLD,
    change: (root) =>
      write(
        root,
        "node_modules/pkg/package.json",
        JSON.stringify({ name: "pkg", exports: "./b.js" }),
      ),
    after: NEW,
  },
  "the project's package.json browser field edited": {
    files: {
      "lib/value.js": value(OLD),
      "lib/value-browser.js": value(NEW),
      ...card(importValue("../../lib/value.js")),
    },
    before: OLD,
    change: (root) =>
      write(
        root,
        "package.json",
        JSON.stringify({ name: "app", browser: { "./lib/value.js": "./lib/value-browser.js" } }),
      ),
    after: NEW,
  },
  "lib.ts created next to the imported lib.js": {
    files: { "components/card/lib.js": value(OLD), ...card(importValue("./lib")) },
    before: OLD,
    change: (root) => write(root, "components/card/lib.ts", value(NEW)),
    after: NEW,
  },
  "utils.ts created where ./utils resolved to utils/index.ts": {
    files: { "components/card/utils/index.ts": value(OLD), ...card(importValue("./utils")) },
    before: OLD,
    change: (root) => write(root, "components/card/utils.ts", value(NEW)),
    after: NEW,
  },
  "a closer node_modules/pkg created": {
    files: {
      "node_modules/pkg/package.json": JSON.stringify({ name: "pkg" }),
      "node_modules/pkg/index.js": value(OLD),
      ...card(importValue("pkg")),
    },
    before: OLD,
    change: (root) => {
      write(root, "components/node_modules/pkg/package.json", JSON.stringify({ name: "pkg" }));
      write(root, "components/node_modules/pkg/index.js", value(NEW));
    },
    after: NEW,
  },
  "a symlinked component directory re-pointed (ln -sfn)": {
    files: {
      "components/versions-store/v1/index.tsx": importValue("./value"),
      "components/versions-store/v1/value.ts": value(OLD),
      "components/versions-store/v2/index.tsx": importValue("./value"),
      "components/versions-store/v2/value.ts": value(NEW),
    },
    links: { "components/card": "versions-store/v1" },
    before: OLD,
    change: (root) => relink(root, "components/card", "versions-store/v2"),
    after: NEW,
  },
  "a symlinked file re-pointed (ln -sfn)": {
    files: {
      "components/card/variants/a.ts": value(OLD),
      "components/card/variants/b.ts": value(NEW),
      ...card(importValue("./Widget")),
    },
    links: { "components/card/Widget.ts": "variants/a.ts" },
    before: OLD,
    change: (root) => relink(root, "components/card/Widget.ts", "variants/b.ts"),
    after: NEW,
  },
  "index.tsx added next to index.ts": {
    files: {
      "components/card/index.ts": `export default function Card() { return "${OLD}"; }\n`,
    },
    before: OLD,
    change: (root) =>
      write(
        root,
        "components/card/index.tsx",
        `export default function Card() { return "${NEW}"; }\n`,
      ),
    after: NEW,
  },
};

const importing = (...specifiers: string[]) =>
  `${specifiers.map((s) => `import ${JSON.stringify(s)};`).join("\n")}\nexport default function Card() { return "card"; }\n`;
const svg = (text: string) =>
  `<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><title>${text}</title></svg>`;

Object.assign(cases, {
  "a CSS file the component imports edited": {
    files: {
      "components/card/card.css": `.card { content: "${OLD}"; }\n`,
      ...card(importing("./card.css")),
    },
    before: OLD,
    change: (root) => write(root, "components/card/card.css", `.card { content: "${NEW}"; }\n`),
    after: NEW,
  },
  "a CSS file @imported by one it imports edited": {
    files: {
      "shared/base.css": `.base { content: "${OLD}"; }\n`,
      "components/card/card.css": `@import "../../shared/base.css";\n.card { color: red; }\n`,
      ...card(importing("./card.css")),
    },
    before: OLD,
    change: (root) => write(root, "shared/base.css", `.base { content: "${NEW}"; }\n`),
    after: NEW,
  },
  "a CSS module edited": {
    files: {
      "components/card/card.module.css": `.title { content: "${OLD}"; }\n`,
      ...card(
        `import styles from "./card.module.css";\nexport default function Card() { return styles.title; }\n`,
      ),
    },
    before: OLD,
    change: (root) =>
      write(root, "components/card/card.module.css", `.title { content: "${NEW}"; }\n`),
    after: NEW,
  },
  "a CSS module composed from edited": {
    files: {
      "components/card/base.module.css": `.base { content: "${OLD}"; }\n`,
      "components/card/card.module.css": `.title { composes: base from "./base.module.css"; }\n`,
      ...card(
        `import styles from "./card.module.css";\nexport default function Card() { return styles.title; }\n`,
      ),
    },
    before: OLD,
    change: (root) =>
      write(root, "components/card/base.module.css", `.base { content: "${NEW}"; }\n`),
    after: NEW,
  },
  "an image a CSS url() names replaced": {
    files: {
      "components/card/dot.svg": svg(OLD),
      "components/card/card.css": `.card { background: url(./dot.svg); }\n`,
      ...card(importing("./card.css")),
    },
    before: OLD,
    change: (root) => write(root, "components/card/dot.svg", svg(NEW)),
    after: NEW,
  },
  "an imported image replaced": {
    files: {
      "components/card/dot.svg": svg(OLD),
      ...card(`import dot from "./dot.svg";\nexport default function Card() { return dot; }\n`),
    },
    before: OLD,
    change: (root) => write(root, "components/card/dot.svg", svg(NEW)),
    after: NEW,
  },
} satisfies Record<string, Change>);

function project(change: Pick<Change, "files" | "links">, watchFiles = true) {
  settleWrites();
  const root = writeTree({ ...PROJECT, ...change.files });
  for (const [link, target] of Object.entries(change.links ?? {})) {
    symlinkSync(target, join(root, link));
  }
  const bundler = countingBundler();
  const registry = new ComponentRegistry(join(root, "components"), { logger: silentLogger });
  const handlers = createHandlers(registry, { bundler, logger: silentLogger, watchFiles });
  // The bundle, its stylesheet and the assets they name, as a page loads them.
  const code = async () => {
    let text =
      Buffer.from((await handlers.getBundle(cn("card"))).code).toString("utf8") +
      Buffer.from((await handlers.getStylesheet?.(cn("card")))?.code ?? []).toString("utf8");
    for (const [path] of text.matchAll(/assets\/[\w.-]+/g)) {
      text += Buffer.from((await handlers.getBundleFile?.(path))?.body ?? []).toString("utf8");
    }
    return text;
  };
  return { root, bundler, handlers, code };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

// Checked by stats every turn, and (the default on Linux) vouched for by directory watches.
for (const watchFiles of [false, true]) {
  const by = watchFiles ? "watches and stats" : "stats alone";
  describe(`dev cache freshness (${by}): the next request after a change returns the new code`, () => {
    for (const [title, change] of Object.entries(cases)) {
      it(title, async () => {
        const { root, bundler, code } = project(change, watchFiles);
        expect(await code()).toContain(change.before);
        await nextTurn();
        expect(await code()).toContain(change.before);
        expect(bundler.builds).toBe(1); // cached: the check below is the cache's, not a rebuild's
        change.change(root);
        await nextTurn();
        const after = await code();
        expect(after).toContain(change.after);
        expect(after).not.toContain(change.before);
      });
    }

    it("keeps serving the cached bundle while nothing it depends on changes", async () => {
      const { root, bundler, code } = project(
        { files: cases["tsconfig.json paths edited"]?.files ?? {} },
        watchFiles,
      );
      await code();
      // Unrelated files: a sibling directory of the project, a file in an unrelated folder.
      write(root, "docs/readme.md", "# notes\n");
      write(root, "lib-c/other.ts", value("other"));
      for (let i = 0; i < 3; i++) {
        await nextTurn();
        await code();
      }
      expect(bundler.builds).toBe(1);
    });

    it("keeps it while only files esbuild does not read appear, as a new build shows", async () => {
      const files = extendingProject("./tsconfig.base.json");
      const { root, bundler, code } = project({ files }, watchFiles);
      expect(await code()).toContain(OLD);
      // A jsconfig.json beside the tsconfig.json, and `.json` added to a name that has it.
      const elsewhere = libPaths("lib-b");
      write(root, "jsconfig.json", elsewhere);
      write(root, "tsconfig.base.json.json", elsewhere);
      for (let i = 0; i < 3; i++) {
        await nextTurn();
        expect(await code()).toContain(OLD);
      }
      expect(bundler.builds).toBe(1);
      // A build from nothing makes the same bundle: esbuild read neither of them.
      const fresh = createHandlers(
        new ComponentRegistry(join(root, "components"), { logger: silentLogger }),
        { logger: silentLogger, watchFiles: false },
      );
      const rebuilt = Buffer.from((await fresh.getBundle(cn("card"))).code).toString("utf8");
      expect(rebuilt).toContain(OLD);
      expect(rebuilt).not.toContain(NEW);
    });
  });
}

describe("dev cache: what a bundle may read", () => {
  it("refuses a file reached through a link that leads out of the project root", async () => {
    const outside = writeTree({ "secret.ts": `export const value = "the secret";\n` });
    const { root, handlers } = project({ files: card(importValue("./Leak")) });
    symlinkSync(join(outside, "secret.ts"), join(root, "components/card/Leak.ts"));
    const failure = await handlers.getBundle(cn("card")).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.name).toBe("BundleError");
    expect(failure?.message).toMatch(
      /index\.tsx imports "\.\/Leak", which resolves to .*secret\.ts, outside the project root/,
    );
    expect(failure?.message).not.toContain(outside); // no absolute path in an answer
  });

  it("follows a link that stays inside the project root", async () => {
    const { root, code } = project({
      files: { "shared/value.ts": value(OLD), ...card(importValue("./Shared")) },
    });
    symlinkSync(join(root, "shared/value.ts"), join(root, "components/card/Shared.ts"));
    expect(await code()).toContain(OLD);
  });

  it("answers a build that never finishes (an import of a FIFO) with a BundleError in time", async () => {
    settleWrites();
    const root = writeTree({
      ...PROJECT,
      ...card(`import text from "./pipe.txt";\nexport default () => text;\n`),
    });
    execFileSync("mkfifo", [join(root, "components/card/pipe.txt")]);
    const registry = new ComponentRegistry(join(root, "components"), { logger: silentLogger });
    const handlers = createHandlers(registry, {
      logger: silentLogger,
      buildTimeoutMs: 300,
    });
    const started = performance.now();
    const failure = await handlers.getBundle(cn("card")).then(
      () => undefined,
      (error: Error) => error,
    );
    expect(failure?.message).toMatch(/did not finish within 0\.3 s/);
    expect(performance.now() - started).toBeLessThan(5_000);
    // The name is not held: after the FIFO is gone, the next request builds.
    unlinkSync(join(root, "components/card/pipe.txt"));
    write(root, "components/card/pipe.txt", "hello");
    await nextTurn();
    expect((await handlers.getBundle(cn("card"))).hash).toMatch(/^[0-9a-f]{12}$/);
  });
});
