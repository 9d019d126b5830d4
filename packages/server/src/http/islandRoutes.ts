/**
 * The island endpoints: `POST {prefix}/bundles/{name}/html` (one island) and
 * `POST {prefix}/islands` (a page's islands in one request). Both take JSON only — a page of
 * another origin can make a browser POST `text/plain` without a CORS preflight, not
 * `application/json`, so the CORS allow-list decides who renders — up to 1 MiB.
 */
import {
  type ComponentName,
  type HydrateStrategy,
  InvalidPropsError,
  isValidName,
  parseHydrate,
  SvcError,
} from "@svc/protocol";
import {
  InvalidComponentNameError,
  PayloadTooLargeError,
  toErrorResponse,
  UnsupportedMediaTypeError,
} from "../errors.ts";
import type { Handlers } from "../service/handlerTypes.ts";
import type { IslandOptions } from "../ssr/islandRenderer.ts";
import { CACHE, HTML_TYPE, JSON_TYPE } from "./headers.ts";
import type { SvcRequest, SvcResponse } from "./svcRequest.ts";

/** The largest request body svc reads (the props of an island, or a page's islands): 1 MiB. */
export const MAX_BODY_BYTES = 1024 * 1024;

/** The most islands one batch request may ask for. */
export const MAX_BATCH_ISLANDS = 256;

/** A batch request that is not one (400, the usual body, no component named). */
class InvalidBatchError extends SvcError {
  readonly malformed = true;
  constructor(problem: string) {
    super("InvalidProps", `Invalid islands request: ${problem}`);
    this.name = "InvalidBatchError";
  }
}

/**
 * One island: the component rendered with the JSON props of the body, hydrated by the
 * `hydrate` query's strategy (default `load`); `?fallback=client` answers a container the
 * browser renders itself should the render fail.
 */
export async function islandResponse(
  handlers: Handlers,
  request: SvcRequest,
  name: ComponentName,
): Promise<SvcResponse> {
  const query = new URLSearchParams(queryOf(request.url) ?? "");
  const options: IslandOptions = {
    hydrate: strategyOf(query.get("hydrate"), (problem) => {
      throw new InvalidPropsError(name, problem, { malformed: true });
    }),
  };
  const fallback = fallbackOf(query.get("fallback"), (problem) => {
    throw new InvalidPropsError(name, problem, { malformed: true });
  });
  if (fallback !== undefined) options.fallback = fallback;
  const props = await readJson(request, name, {}, (problem) => {
    throw new InvalidPropsError(name, problem, { malformed: true });
  });
  const started = performance.now();
  const html = await handlers.renderIsland(name, props, options);
  return {
    status: 200,
    headers: { "content-type": HTML_TYPE, "cache-control": CACHE.never, ...timing(started) },
    body: html,
  };
}

/**
 * A page's islands in one request: `{"islands":[{"id","name","props","hydrate","fallback"},
 * …]}` answers `200 {"islands":[{"id","status":200,"html"} | {"id","status","error"}]}`, in
 * the order asked. One island's failure never fails the others; they render together (in one
 * batch where they can); the whole batch has the render time limit. At most
 * {@link MAX_BATCH_ISLANDS} islands and 1 MiB (400 and 413 otherwise, with the usual body).
 */
export async function batchResponse(handlers: Handlers, request: SvcRequest): Promise<SvcResponse> {
  const refuse = (problem: string): never => {
    throw new InvalidBatchError(problem);
  };
  const everyFallback = fallbackOf(
    new URLSearchParams(queryOf(request.url) ?? "").get("fallback"),
    refuse,
  );
  const body = await readJson(request, undefined, undefined, refuse);
  const list = (body as { islands?: unknown } | null)?.islands;
  if (typeof body !== "object" || body === null || !Array.isArray(list)) {
    refuse('send {"islands": [{"id": …, "name": …, "props": {…}}, …]}');
  }
  const asked = list as unknown[];
  if (asked.length > MAX_BATCH_ISLANDS) {
    refuse(`${asked.length} islands asked for; at most ${MAX_BATCH_ISLANDS} in one request`);
  }
  const ids = new Set<string>();
  const items = asked.map((item, index) => {
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return refuse(`islands[${index}] must be an object`);
    }
    const { id, name, props = {}, hydrate, fallback } = item as Record<string, unknown>;
    if (typeof id !== "string" || id === "") refuse(`islands[${index}].id must be a string`);
    if (ids.has(id as string)) refuse(`islands[${index}].id ${JSON.stringify(id)} is used twice`);
    ids.add(id as string);
    if (typeof name !== "string") refuse(`islands[${index}].name must be a string`);
    return { id: id as string, name: name as string, props, hydrate, fallback };
  });
  const started = performance.now();
  const results = await handlers.renderIslands(
    items.map((item) => ({
      name: item.name,
      props: item.props,
      options: () => {
        const options: IslandOptions = {};
        const fail = (problem: string): never => {
          throw new InvalidPropsError(item.name, problem, { malformed: true });
        };
        if (!isValidName(item.name)) throw new InvalidComponentNameError(item.name);
        if (item.hydrate !== undefined) {
          options.hydrate = strategyOf(typeof item.hydrate === "string" ? item.hydrate : "", fail);
        }
        const fallback =
          item.fallback === undefined
            ? everyFallback
            : fallbackOf(typeof item.fallback === "string" ? item.fallback : "", fail);
        if (fallback !== undefined) options.fallback = fallback;
        return options;
      },
    })),
  );
  const islands = results.map((result, index) => {
    const id = (items[index] as { id: string }).id;
    if ("html" in result) return { id, status: 200, html: result.html };
    const { status, body: error } = toErrorResponse(result.error);
    return { id, status, error };
  });
  return {
    status: 200,
    headers: { "content-type": JSON_TYPE, "cache-control": CACHE.never, ...timing(started) },
    body: JSON.stringify({ islands }),
  };
}

/**
 * The JSON of the request's body: `application/json` only (415), at most 1 MiB (413); an
 * empty body is `empty` (or refused when none is given).
 */
async function readJson(
  request: SvcRequest,
  name: string | undefined,
  empty: unknown,
  refuse: (problem: string) => never,
): Promise<unknown> {
  const contentType = request.header("content-type");
  if (!isJsonType(contentType)) throw new UnsupportedMediaTypeError(name, contentType);
  const body = (await request.body?.(MAX_BODY_BYTES)) ?? { bytes: new Uint8Array() };
  if ("tooLarge" in body) throw new PayloadTooLargeError(MAX_BODY_BYTES);
  if ("parsed" in body) return body.parsed;
  const text = new TextDecoder().decode(body.bytes);
  if (text.trim() === "") return empty === undefined ? refuse("the body is empty") : empty;
  try {
    return JSON.parse(text);
  } catch (error) {
    return refuse(`the body is not JSON (${(error as Error).message})`);
  }
}

/** The strategy `value` names (undefined when none is asked for). */
function strategyOf(
  value: string | null,
  refuse: (problem: string) => never,
): HydrateStrategy | undefined {
  if (value === null) return undefined;
  const strategy = parseHydrate(value);
  if (strategy === undefined) {
    refuse(
      `hydrate=${JSON.stringify(value.slice(0, 60))} is no strategy: use load, idle, visible, visible:<margin>, interaction, none or media:(<query>)`,
    );
  }
  return strategy;
}

function fallbackOf(
  value: string | null,
  refuse: (problem: string) => never,
): "client" | undefined {
  if (value === null) return undefined;
  if (value !== "client") {
    refuse(`fallback=${JSON.stringify(value.slice(0, 60))}: the one fallback is "client"`);
  }
  return "client";
}

/** `Server-Timing` of a render that began at `started`. */
function timing(started: number): Record<string, string> {
  return { "server-timing": `render;dur=${(performance.now() - started).toFixed(1)}` };
}

/** `application/json`, in any case, with or without parameters (`; charset=utf-8`). */
function isJsonType(contentType: string | undefined): boolean {
  return contentType?.split(";", 1)[0]?.trim().toLowerCase() === "application/json";
}

function queryOf(url: string): string | undefined {
  const q = url.indexOf("?");
  return q === -1 ? undefined : url.slice(q + 1);
}
