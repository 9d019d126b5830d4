/**
 * Sass and PostCSS (Tailwind v4) through real esbuild, real `sass`, real `postcss` and
 * `@tailwindcss/postcss`: fixtures in a temp dir inside the repository (so the packages resolve
 * from its `node_modules`), and a project in the system's temp dir, where none is installed.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { BundleError } from "../errors.ts";
import { cn, writeTree } from "../test/fixtures.ts";
import { nowNs } from "../util/fileStamp.ts";
import { BundleInputs } from "./bundleInputs.ts";
import { type BundleOutput, esbuildBundler } from "./bundler.ts";

const REPO = fileURLToPath(new URL("../../../../", import.meta.url));
const inRepo: string[] = [];
afterAll(() => {
  for (const dir of inRepo.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** `files` under a new directory of the repository's `tmp/` (ignored by git). */
function writeRepoTree(files: Record<string, string>): string {
  mkdirSync(join(REPO, "tmp"), { recursive: true });
  const dir = mkdtempSync(join(REPO, "tmp", "svc-styles-"));
  inRepo.push(dir);
  return writeTree(files, dir);
}

function component(root: string, name: string) {
  const found = new ComponentRegistry(join(root, "components")).get(cn(name));
  if (!found) throw new Error(`fixture ${name} missing`);
  return found;
}

const css = (output: BundleOutput) =>
  (output.stylesheets ?? []).map((sheet) => Buffer.from(sheet.bytes).toString("utf8")).join("");
const code = (output: BundleOutput) => Buffer.from(output.code).toString("utf8");
/** The bundle's inline source map, as text (its `sources` and `sourcesContent`). */
const sourceMap = (output: BundleOutput) => {
  const match = /sourceMappingURL=data:application\/json;base64,([A-Za-z0-9+/=]+)/.exec(
    code(output),
  );
  if (!match?.[1]) throw new Error("no inline source map");
  return Buffer.from(match[1], "base64").toString("utf8");
};

const PACKAGE = { "package.json": JSON.stringify({ name: "styles-app", private: true }) };

const TAILWIND = {
  ...PACKAGE,
  "postcss.config.mjs": 'export default { plugins: { "@tailwindcss/postcss": {} } };\n',
  "components/tw/tw.css": '@import "tailwindcss";\n',
  "components/tw/index.tsx":
    'import "./tw.css";\nimport { Badge } from "./Badge";\nexport default function Tw() {\n  return <p className="bg-[rgb(1,2,3)] p-3">tw <Badge /></p>;\n}\n',
  "components/tw/Badge.tsx":
    'export function Badge() {\n  return <b className="text-[rgb(4,5,6)]">b</b>;\n}\n',
};

const SCSS = {
  ...PACKAGE,
  "shared/_palette.scss": "$accent: rgb(7, 8, 9);\n",
  "shared/global.scss": "@use 'palette';\nbody .page { outline-color: palette.$accent; }\n",
  "components/card/_vars.scss": "$pad: 5px;\n",
  "components/card/card.module.scss":
    "@use 'vars';\n@use '../../shared/palette';\n.title {\n  padding: vars.$pad * 2;\n  &:hover { color: palette.$accent; }\n}\n",
  "components/card/index.tsx":
    'import "../../shared/global.scss";\nimport styles from "./card.module.scss";\nexport default function Card() {\n  return <h2 className={styles.title}>card</h2>;\n}\n',
};

/**
 * A component whose stylesheet `@use`s a partial in another folder that names images beside
 * itself. `panel/bg.png` is a decoy: resolved from the component's folder, `./bg.png` would
 * quietly be the wrong file (and `img/x.svg`, there only beside the partial, not found).
 */
const SHARED_IMAGES = {
  ...PACKAGE,
  "shared/bg.png": "PARTIAL-BG",
  "shared/img/x.svg":
    '<svg xmlns="http://www.w3.org/2000/svg" width="1" height="1"><rect width="1" height="1"/></svg>',
  "shared/_theme.scss":
    '// url(./missing.png) in a comment is no reference\n.hero {\n  background: url(./bg.png) no-repeat;\n  content: "url(./nope.png)";\n}\n@mixin icon {\n  mask: url("img/x.svg");\n}\n',
  "components/panel/bg.png": "COMPONENT-BG",
  "components/panel/panel.module.scss":
    "@use '../../shared/theme';\n.box {\n  @include theme.icon;\n}\n",
  "components/panel/index.tsx":
    'import styles from "./panel.module.scss";\nexport default function Panel() {\n  return <div className={styles.box}>panel</div>;\n}\n',
};

describe("stylePlugin", () => {
  it("puts the Tailwind classes of a component's files in its stylesheet", async () => {
    // The project in `app/`; a file beside it that Tailwind must not scan (svc runs elsewhere).
    const root = join(
      writeRepoTree({
        ...Object.fromEntries(
          Object.entries(TAILWIND).map(([path, text]) => [`app/${path}`, text]),
        ),
        "elsewhere/Stray.tsx": 'export const Stray = () => <i className="text-[rgb(9,9,9)]" />;\n',
      }),
      "app",
    );
    const output = await esbuildBundler.bundle(component(root, "tw"));
    const text = css(output);
    // Scanned from the config's directory, not from the process's working directory.
    expect(text).not.toContain("rgb\\(9\\,9\\,9\\)");
    expect(text).toContain(".bg-\\[rgb\\(1\\,2\\,3\\)\\]");
    expect(text).toContain(".text-\\[rgb\\(4\\,5\\,6\\)\\]");
    expect(text).toContain(".p-3");
    // The config and Tailwind's own stylesheet are inputs; the scanned sources are no extra ones.
    expect(output.inputs).toContain(join(root, "postcss.config.mjs"));
    expect(output.inputs.some((input) => input.endsWith("tailwindcss/index.css"))).toBe(true);
    expect(output.stylesheets).toHaveLength(1);
  }, 30_000);

  it("rebuilds the stylesheet when a component file adds a class (its record goes stale)", async () => {
    const root = writeRepoTree(TAILWIND);
    const tw = component(root, "tw");
    const startedNs = nowNs();
    const first = await esbuildBundler.bundle(tw);
    const { inputs } = BundleInputs.collect(tw, first.inputs, first.resolutions ?? [], startedNs);
    expect(inputs.isFresh(false)).toBe(true);
    expect(css(first)).not.toContain("rgb\\(10\\,11\\,12\\)");
    writeFileSync(
      join(root, "components/tw/Badge.tsx"),
      'export function Badge() {\n  return <b className="text-[rgb(10,11,12)]">b</b>;\n}\n',
    );
    expect(inputs.isFresh(false)).toBe(false);
    const second = await esbuildBundler.bundle(tw);
    expect(css(second)).toContain(".text-\\[rgb\\(10\\,11\\,12\\)\\]");
  }, 30_000);

  it("compiles .scss and .module.scss with CSS-module class names as .module.css gets them", async () => {
    const root = writeRepoTree(SCSS);
    const output = await esbuildBundler.bundle(component(root, "card"));
    const text = css(output);
    expect(text).toContain("outline-color: rgb(7, 8, 9)");
    expect(text).toMatch(/\.card_[0-9a-f]{8}_title \{\s*padding: 10px;/);
    expect(text).toMatch(/\.card_[0-9a-f]{8}_title:hover \{\s*color: rgb\(7, 8, 9\);/);
    expect(code(output)).toMatch(/title: "card_[0-9a-f]{8}_title"/);
    expect(output.stylesheets?.map((sheet) => sheet.path)).toEqual([
      expect.stringMatching(/^global-[0-9a-f]{12}\.css$/),
      expect.stringMatching(/^card\.module-[0-9a-f]{12}\.css$/),
    ]);
    // Partials are inputs: an edit of one rebuilds the bundle.
    expect(output.inputs).toEqual(
      expect.arrayContaining([
        join(root, "components/card/_vars.scss"),
        join(root, "shared/_palette.scss"),
        join(root, "shared/global.scss"),
      ]),
    );
  }, 30_000);

  it("gives the same class names and stylesheets minified, and no absolute path anywhere", async () => {
    const root = writeRepoTree({ ...SCSS, ...TAILWIND, "postcss.config.mjs": "" });
    rmSync(join(root, "postcss.config.mjs"));
    writeFileSync(
      join(root, "postcss.config.cjs"),
      'module.exports = { plugins: [require("@tailwindcss/postcss")({ base: __dirname })] };\n',
    );
    for (const name of ["card", "tw"]) {
      const dev = await esbuildBundler.bundle(component(root, name));
      const built = await esbuildBundler.bundle(component(root, name), { minify: true });
      const names = (output: BundleOutput) =>
        [...code(output).matchAll(/card_[0-9a-f]{8}_title/g)].map((match) => match[0]);
      expect(names(built)).toEqual(names(dev).slice(0, names(built).length));
      expect(built.stylesheets?.length).toBe(dev.stylesheets?.length);
      expect(JSON.parse(sourceMap(dev)).sources).toContain(
        name === "card" ? "component://card/card.module.scss" : "component://tw/index.tsx",
      );
      for (const output of [dev, built]) {
        const all = code(output) + css(output) + sourceMap(output);
        expect(all).not.toContain(REPO);
        expect(all).not.toContain(root);
      }
    }
  }, 60_000);

  it("compiles a Sass file outside the component's folder (no Sass file in it)", async () => {
    const shared = Object.entries(SCSS).filter(([path]) => !path.startsWith("components/"));
    const root = writeRepoTree({
      ...Object.fromEntries(shared),
      "components/card/index.tsx":
        'import "../../shared/global.scss";\nexport default function Card() {\n  return <h2 className="page">card</h2>;\n}\n',
    });
    const output = await esbuildBundler.bundle(component(root, "card"));
    expect(css(output)).toContain("outline-color: rgb(7, 8, 9)");
  }, 30_000);

  it("reports a Sass error at its file, line and column", async () => {
    const root = writeRepoTree({
      ...SCSS,
      "components/card/card.module.scss": ".title {\n  color: $missing;\n}\n",
    });
    const error = await esbuildBundler.bundle(component(root, "card")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    const [location] = (error as BundleError).errors;
    expect(location).toMatchObject({
      file: "card.module.scss",
      line: 2,
      text: "Undefined variable.",
    });
  }, 30_000);

  it("resolves url()s in a partial from the partial's folder, as Vite does", async () => {
    const root = writeRepoTree(SHARED_IMAGES);
    const output = await esbuildBundler.bundle(component(root, "panel"));
    const text = css(output);
    const bg = output.assets?.find((asset) => asset.path.startsWith("assets/bg-"));
    const icon = output.assets?.find((asset) => asset.path.startsWith("assets/x-"));
    // The image beside the partial, emitted as any CSS asset is, not the one beside the component.
    expect(Buffer.from(bg?.bytes ?? []).toString("utf8")).toBe("PARTIAL-BG");
    expect(Buffer.from(icon?.bytes ?? []).toString("utf8")).toContain("<svg");
    expect(text).toContain(`url("./${bg?.path}") no-repeat`);
    expect(text).toContain(`mask: url("./${icon?.path}")`);
    // Strings and comments keep what they say.
    expect(text).toContain('content: "url(./nope.png)"');
    expect(output.assets).toHaveLength(2);
    expect(output.inputs).toContain(join(root, "shared/_theme.scss"));
  }, 30_000);

  it("reports a Sass error in a partial with url()s at its own line", async () => {
    const root = writeRepoTree({
      ...SHARED_IMAGES,
      "shared/_theme.scss": ".hero { background: url(./bg.png); }\n\n.bad { color: $missing; }\n",
      "components/panel/panel.module.scss": "@use '../../shared/theme';\n",
    });
    const error = await esbuildBundler.bundle(component(root, "panel")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    const [location] = (error as BundleError).errors;
    expect(location).toMatchObject({ line: 3, text: "Undefined variable." });
    expect(location?.file).toMatch(/shared\/_theme\.scss$/);
  }, 30_000);

  it("says in one line which package to install when sass is missing", async () => {
    const root = writeTree({
      ...SCSS,
      "components/card/index.tsx":
        'import styles from "./card.module.scss";\nexport default function Card() {\n  return <h2 className={styles.title}>card</h2>;\n}\n',
    });
    expect(root.startsWith(tmpdir())).toBe(true);
    const error = await esbuildBundler.bundle(component(root, "card")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    expect((error as Error).message).toBe(
      'Could not bundle "card": index.tsx:1:20: card.module.scss: install sass to compile it (npm install -D sass)',
    );
  }, 30_000);

  it("says which package to install when the PostCSS config's tools are missing", async () => {
    const root = writeTree({ ...TAILWIND });
    const error = await esbuildBundler.bundle(component(root, "tw")).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BundleError);
    expect((error as Error).message).toBe(
      'Could not bundle "tw": index.tsx:1:8: tw.css: install postcss to apply postcss.config.mjs (npm install -D postcss)',
    );
  }, 30_000);
});
