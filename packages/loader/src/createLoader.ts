/** `window.svc`: the loader's methods over its parts, and the first render of the page. */
import { ISLAND_ATTRIBUTES } from "@svc/protocol";
import { mount, redrawAll, unmount, update } from "./containers.ts";
import { reloadIn } from "./liveReload.ts";
import { readLoaderScript } from "./loaderScript.ts";
import { installPageModules } from "./pageModules.ts";
import { sourceFor, sources } from "./sources.ts";
import type { SvcGlobal } from "./svcGlobal.ts";

/** Set by the build from `package.json` (see build.ts). */
declare const __SVC_LOADER_VERSION__: string;

export function createLoader(): SvcGlobal {
  const script = readLoaderScript();
  installPageModules();

  const svc: SvcGlobal = {
    version: __SVC_LOADER_VERSION__,

    render(root: ParentNode = document) {
      const found: Element[] = [];
      const selector = `[${ISLAND_ATTRIBUTES.component}]`;
      if (root instanceof Element && root.matches(selector)) found.push(root);
      found.push(...root.querySelectorAll(selector));
      for (const container of found) mount(container, script);
      return found;
    },

    update(container, props) {
      if (!(container instanceof Element)) throw new TypeError("svc.update: not an element");
      container.setAttribute(ISLAND_ATTRIBUTES.props, JSON.stringify(props ?? {}));
      update(container, script);
    },

    load(name, options = {}) {
      return sourceFor(options.apiBase ?? script.api, script.manifestUrl).client.load(name, {
        hash: options.hash,
      }) as Promise<never>;
    },

    async reload(name, options = {}) {
      await Promise.all(
        [...sources.values()].map((source) => reloadIn(source, name, options.hash, redrawAll)),
      );
    },

    unmount,
  };

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", () => svc.render(), { once: true });
  } else {
    svc.render();
  }
  return svc;
}
