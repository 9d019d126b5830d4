import type { Manifest } from "@svc/protocol";
import type { ClientCore, ManifestFile } from "./clientCore.ts";
import { BundleLoadError } from "./errors.ts";
import { request } from "./request.ts";

/** The client's manifest (static mode), fetched once; a failure is forgotten, to be tried again. */
export function loadManifestFile(core: ClientCore): Promise<ManifestFile> {
  const { manifestUrl } = core;
  if (manifestUrl === undefined) {
    return Promise.reject(new Error("svc: loadManifest() needs the manifestUrl option"));
  }
  if (core.manifest === undefined) {
    const promise = (async () => {
      let url: URL;
      try {
        url = new URL(manifestUrl, core.baseUrl());
      } catch (error) {
        throw new BundleLoadError("", `svc: invalid manifest URL "${manifestUrl}"`, {
          cause: error,
        });
      }
      const response = await request(core, "", url.href);
      let entries: unknown;
      try {
        entries = await response.json();
      } catch (error) {
        throw new BundleLoadError("", `svc: the manifest ${url.href} is not valid JSON`, {
          cause: error,
          url: url.href,
        });
      }
      if (typeof entries !== "object" || entries === null || Array.isArray(entries)) {
        throw new BundleLoadError("", `svc: the manifest ${url.href} is not a JSON object`, {
          url: url.href,
        });
      }
      return { url, entries: entries as Manifest };
    })();
    core.manifest = promise;
    promise.catch(() => {
      if (core.manifest === promise) core.manifest = undefined;
    });
  }
  return core.manifest;
}
