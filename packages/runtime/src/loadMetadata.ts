import { type ComponentMetadata, metadataPath } from "@svc/protocol";
import { type ClientCore, remember } from "./clientCore.ts";
import { assertComponentName } from "./componentName.ts";
import { request } from "./request.ts";

/** Component `name`'s metadata from the API, fetched once (a failure is forgotten). */
export function loadMetadata(core: ClientCore, name: string): Promise<ComponentMetadata> {
  try {
    assertComponentName(name);
  } catch (error) {
    return Promise.reject(error);
  }
  const cached = core.metadata.get(name);
  if (cached !== undefined) return cached;
  const url = `${core.apiBase}${metadataPath(name)}`;
  // As urgent as the bundle it describes (a module script): in the import-map mode it names
  // what to preload, and Chromium otherwise may hold a fetch back behind the page's scripts.
  const promise = request(core, name, url, { priority: "high" }).then(
    (response) => response.json() as Promise<ComponentMetadata>,
  );
  remember(core.metadata, name, promise, promise);
  return promise;
}
