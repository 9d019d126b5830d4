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
  if (link.sheet === null) {
    await new Promise((settle) => {
      link.addEventListener("load", settle, { once: true });
      link.addEventListener("error", settle, { once: true });
    });
  }
  try {
    const rules = link.sheet?.cssRules;
    return rules === undefined ? undefined : Array.from(rules, (rule) => rule.cssText).join("\n");
  } catch {
    return undefined;
  }
}
