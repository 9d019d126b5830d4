import { type ClientCore, remember } from "./clientCore.ts";
import { BundleLoadError } from "./errors.ts";
import { requestText } from "./request.ts";
import { type ComponentStylesheet, createStylesheet } from "./stylesheets.ts";

/**
 * A stylesheet component `name`'s bundle imports, fetched (once per URL, for every component
 * of the client), checked against its integrity when the manifest gives one, and made a
 * constructable stylesheet. One the page already links (an island's, written by the server with
 * the island's HTML) is read from the document instead of being downloaded a second time.
 */
export function loadStylesheet(
  core: ClientCore,
  name: string,
  url: string,
  integrity: string | undefined,
): Promise<ComponentStylesheet> {
  let pending = core.stylesheets.get(url);
  if (pending === undefined) {
    pending = (async () => {
      const text =
        (await linkedText(url)) ?? (await requestText(core, name, url, integrity, "stylesheet"));
      try {
        return createStylesheet(url, text);
      } catch (error) {
        throw new BundleLoadError(
          name,
          `Component "${name}": its stylesheet ${url} cannot be applied: ${(error as Error).message}`,
          { cause: error, url },
        );
      }
    })();
    remember(core.stylesheets, url, pending, pending);
  }
  return pending;
}

/** How long to wait for a page's own `<link>` before fetching the stylesheet itself. */
const LINK_WAIT_MS = 5_000;

/**
 * The CSS of a `<link rel="stylesheet">` of the page for `url`, once it has loaded; undefined
 * when there is none, it failed, or its rules cannot be read (another origin without CORS).
 */
async function linkedText(url: string): Promise<string | undefined> {
  if (typeof document === "undefined") return undefined;
  const link = Array.from(
    document.querySelectorAll<HTMLLinkElement>('link[rel~="stylesheet"]'),
  ).find((candidate) => candidate.href === url);
  if (link === undefined) return undefined;
  // Still loading: wait for it. One that failed has no sheet either, but the browser has a
  // timing entry for its URL by then, and its load event will not come again.
  if (link.sheet === null && performance.getEntriesByName(url, "resource").length === 0) {
    await new Promise((settle) => {
      const timer = setTimeout(settle, LINK_WAIT_MS);
      const done = () => {
        clearTimeout(timer);
        settle(undefined);
      };
      link.addEventListener("load", done, { once: true });
      link.addEventListener("error", done, { once: true });
    });
  }
  try {
    const rules = link.sheet?.cssRules;
    return rules === undefined ? undefined : Array.from(rules, (rule) => rule.cssText).join("\n");
  } catch {
    return undefined;
  }
}
