/**
 * Builds the playground `svc serve` shows at `/`: `dist/playground/index.html` plus hashed
 * `app-<hash>.js` and `app-<hash>.css`, served under `/svc/playground/`. React, TanStack
 * Query and `@svc/react` (from source) are bundled in. The page has no inline script, so a
 * Content-Security-Policy of `script-src 'self' blob:` is enough.
 *
 * Run with `node playground/build.ts` (Node 24 runs TypeScript directly), or import
 * `buildPlayground`.
 */
import { mkdir, readdir, rename, rm, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import * as esbuild from "esbuild";

const here = fileURLToPath(new URL(".", import.meta.url));

/** The URL path the dev server serves the files under. */
export const PLAYGROUND_ASSET_PATH = "/svc/playground/";

export interface BuildPlaygroundOptions {
  /** Output directory. Default: `packages/server/dist/playground`. */
  outdir?: string;
}

export interface BuiltPlayground {
  outdir: string;
  /** File names written (index.html last), with their sizes in bytes. */
  files: { name: string; bytes: number }[];
}

export async function buildPlayground(
  options: BuildPlaygroundOptions = {},
): Promise<BuiltPlayground> {
  const outdir = options.outdir ?? join(here, "..", "dist", "playground");
  const result = await esbuild.build({
    entryPoints: { app: join(here, "src", "main.tsx") },
    bundle: true,
    format: "esm",
    platform: "browser",
    target: "es2022",
    jsx: "automatic",
    // Workspace packages are read from their TypeScript sources: no prior build needed.
    conditions: ["source"],
    // Development React and svc: the playground is where components are worked on, so it
    // shows React's warnings and validates props against schema.json.
    define: { "process.env.NODE_ENV": '"development"' },
    minify: true,
    entryNames: "[name]-[hash]",
    outdir,
    write: false,
    legalComments: "none",
    logLevel: "warning",
  });
  await mkdir(outdir, { recursive: true });
  const assets = result.outputFiles.map((file) => ({ name: basename(file.path), file }));
  const script = assets.find((asset) => asset.name.endsWith(".js"));
  const style = assets.find((asset) => asset.name.endsWith(".css"));
  if (script === undefined) throw new Error("esbuild produced no playground script");
  for (const asset of assets) await writeAtomically(join(outdir, asset.name), asset.file.contents);
  const html = page(script.name, style?.name);
  // The page last: a server reading it meanwhile still finds the files it names.
  await writeAtomically(join(outdir, "index.html"), html);
  const current = new Set([...assets.map((asset) => asset.name), "index.html"]);
  for (const name of await readdir(outdir)) {
    if (!current.has(name) && /^app-[A-Z0-9]+\.(js|css)$/.test(name)) {
      await rm(join(outdir, name), { force: true });
    }
  }
  return {
    outdir,
    files: [
      ...assets.map((asset) => ({ name: asset.name, bytes: asset.file.contents.byteLength })),
      { name: "index.html", bytes: Buffer.byteLength(html) },
    ],
  };
}

function page(script: string, style: string | undefined): string {
  const stylesheet =
    style === undefined ? "" : `<link rel="stylesheet" href="${PLAYGROUND_ASSET_PATH}${style}">`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="color-scheme" content="light dark">
<title>svc playground</title>
<link rel="icon" href="data:,">
${stylesheet}
<script type="module" src="${PLAYGROUND_ASSET_PATH}${script}"></script>
</head>
<body>
<div id="root"></div>
<noscript>The svc playground needs JavaScript.</noscript>
</body>
</html>
`;
}

/** Writes beside the target and renames: readers never see half a file. */
async function writeAtomically(file: string, contents: Uint8Array | string): Promise<void> {
  const temporary = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  await writeFile(temporary, contents);
  await rename(temporary, file);
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const built = await buildPlayground();
  const sizes = built.files.map((f) => `${f.name} ${(f.bytes / 1024).toFixed(1)} KiB`);
  console.log(`built ${built.outdir}: ${sizes.join(", ")}`);
}
