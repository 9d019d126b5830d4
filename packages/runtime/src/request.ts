import { componentNameProblem, ISLAND_ATTRIBUTES, isErrorBody } from "@svc/protocol";
import type { ClientCore } from "./clientCore.ts";
import { BundleLoadError, ComponentNotFoundError, InvalidComponentNameError } from "./errors.ts";
import { verifyIntegrity } from "./integrity.ts";

/**
 * GET `url` for component `name` (`""`: the manifest) with the client's `fetch`: the response
 * when it is OK, else the svc error it means (a failed request, the API's error body, a status).
 */
export async function request(
  core: ClientCore,
  name: string,
  url: string,
  init?: RequestInit,
): Promise<Response> {
  const { fetch } = core;
  let response: Response;
  try {
    response = await fetch(url, init);
  } catch (error) {
    throw new BundleLoadError(
      name,
      `Component "${name}": request to ${url} failed: ${(error as Error).message}`,
      { cause: error, url },
    );
  }
  if (!response.ok) throw await errorFromResponse(name, url, response);
  return response;
}

/**
 * The text at `url` (see {@link request}), checked first against `integrity` when there is
 * one (`what` it is, for the message: a bundle by default).
 */
export async function requestText(
  core: ClientCore,
  name: string,
  url: string,
  integrity: string | undefined,
  what?: string,
): Promise<string> {
  const bytes = await (await request(core, name, url)).arrayBuffer();
  if (integrity !== undefined) await verifyIntegrity(bytes, integrity, name, url, what);
  return new TextDecoder().decode(bytes);
}

/** Turns an error response of the API (JSON `{ error, message, name? }`) into an svc error. */
async function errorFromResponse(name: string, url: string, response: Response): Promise<Error> {
  let parsed: unknown;
  try {
    parsed = await response.json();
  } catch {
    // Not JSON (a static server's 404 page, a proxy's error): the status has to do.
  }
  const body = isErrorBody(parsed) ? parsed : undefined;
  const message = body?.message;
  const where = `GET ${url} → ${response.status}`;
  const options = { status: response.status, url };
  switch (body?.error) {
    case "ComponentNotFound": {
      // The server's suggestion of the closest name it has, kept.
      const closest = /did you mean "([^"]+)"\?/.exec(message ?? "")?.[1];
      return new ComponentNotFoundError(
        name,
        closest === undefined ? where : `did you mean "${closest}"? (${where})`,
      );
    }
    case "InvalidComponentName":
      return new InvalidComponentNameError(
        name,
        componentNameProblem(name) ?? "the server rejected it",
      );
    case "StaticMode":
      return new BundleLoadError(
        name,
        `Component "${name}": the server is in static mode and serves no bundles from ${url}; ` +
          `load through the manifest instead (${ISLAND_ATTRIBUTES.manifest}, or the manifestUrl option).`,
        options,
      );
    case "BundleError":
      return new BundleLoadError(
        name,
        `Component "${name}" failed to build: ${message ?? "unknown bundler error"}`,
        // Development: where, with the lines around it (the error overlay's code frame).
        Array.isArray(body?.locations) ? { ...options, locations: body.locations } : options,
      );
  }
  if (response.status === 404) {
    // The component itself may be fine while the URL is wrong, so say which URL.
    return name === ""
      ? new BundleLoadError(name, `svc: ${where}`, options)
      : new ComponentNotFoundError(name, where);
  }
  return new BundleLoadError(
    name,
    `${name === "" ? "svc" : `Component "${name}"`}: ${where}${message ? `: ${message}` : ""}`,
    options,
  );
}
