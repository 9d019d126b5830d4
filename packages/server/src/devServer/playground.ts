import { readFile } from "node:fs/promises";
import { extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { REFRESH_RUNTIME_PATH, resolveApiBase } from "@svc/protocol";
import { NotFoundError } from "../errors.ts";
import { errorResponse, type SvcResponse } from "../http/requestHandler.ts";
import { escapeHtml } from "../http/widget.ts";
import type { Handlers } from "../service/handlerTypes.ts";

/** `refresh.js` of the API the playground uses (the dev server's, at `/api`). */
const REFRESH_RUNTIME_URL = `${resolveApiBase()}${REFRESH_RUNTIME_PATH}`;

/** Where the playground's hashed assets are served from. */
export const PLAYGROUND_PREFIX = "/svc/playground/";

/** The built playground (`node playground/build.ts`), from `src/` and from `dist/` alike. */
const playgroundDir = fileURLToPath(new URL("../../dist/playground/", import.meta.url));

/**
 * The playground page's policy: scripts from this origin and the `blob:` URLs components are
 * imported from, nothing inline, no eval. It proves the loader needs no more.
 */
const PLAYGROUND_CSP = "script-src 'self' blob:; object-src 'none'; base-uri 'none'";

const ASSET_TYPES: Record<string, string> = {
  ".js": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".svg": "image/svg+xml",
};

export interface PlaygroundOptions {
  /**
   * URL of the build's `manifest.json` in static mode: the playground loads components
   * through it (the bundle endpoint answers 404 there). Default: none (through the API).
   */
  manifestUrl?: string;
}

/**
 * The playground's answers: the page at `/` and its hashed files below
 * {@link PLAYGROUND_PREFIX}; undefined for any other path. What `svc serve` adds to the API.
 */
export function playgroundResponse(
  handlers: Handlers,
  path: string,
  options: PlaygroundOptions = {},
): Promise<SvcResponse> | undefined {
  if (path === "/") return page(handlers, options);
  if (path.startsWith(PLAYGROUND_PREFIX)) return asset(path.slice(PLAYGROUND_PREFIX.length));
  return undefined;
}

/**
 * The playground page, read on each request so a rebuild shows without a restart. Where it
 * loads from is a `<meta>` tag (the page runs no inline script).
 */
async function page(handlers: Handlers, options: PlaygroundOptions): Promise<SvcResponse> {
  const html = await readFile(join(playgroundDir, "index.html"), "utf8").catch(() => undefined);
  const body =
    html === undefined
      ? html
      : options.manifestUrl === undefined
        ? // Live: React's Fast Refresh runtime, a classic script, so it runs before the app's
          // module script evaluates react-dom (see `bundling/refreshRuntime.ts`).
          html.replace("</head>", `<script src="${REFRESH_RUNTIME_URL}"></script>\n</head>`)
        : html.replace(
            "</head>",
            `<meta name="svc-manifest" content="${escapeHtml(options.manifestUrl)}">\n</head>`,
          );
  return {
    status: 200,
    headers: {
      "content-type": "text/html; charset=utf-8",
      "cache-control": "no-cache",
      "content-security-policy": PLAYGROUND_CSP,
    },
    body: body ?? (await unbuiltPage(handlers)),
  };
}

/** The playground's hashed files: immutable, so cached for good. */
async function asset(name: string): Promise<SvcResponse> {
  const type = ASSET_TYPES[extname(name)];
  const body =
    type !== undefined && /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)
      ? await readFile(join(playgroundDir, name)).catch(() => undefined)
      : undefined;
  if (body === undefined) {
    return errorResponse(new NotFoundError(`No playground file ${name.slice(0, 80)}.`));
  }
  return {
    status: 200,
    headers: {
      "content-type": type as string,
      "cache-control": "public, max-age=31536000, immutable",
    },
    body,
  };
}

/** Shown at `/` when the playground has not been built. */
async function unbuiltPage(handlers: Handlers): Promise<string> {
  const list = await handlers.listBundles();
  const rows = list
    .map(({ name }) => {
      const safe = escapeHtml(name);
      return `<li><code>${safe}</code> — <a href="/api/bundles/${safe}.js">bundle</a> · <a href="/api/bundles/${safe}/metadata">metadata</a></li>`;
    })
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>svc</title></head>
<body><h1>svc</h1><p>The playground has not been built: run <code>npm run build -w @svc/server</code>.</p>
<p>${list.length} components. Endpoints: <a href="/api/bundles">/api/bundles</a>.</p>
<ul>${rows}</ul></body></html>`;
}
