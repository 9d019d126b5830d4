import { componentNameProblem, IMPORT_MAP_MODULES, vendorStem } from "@svc/protocol";

/** A vendor module to fetch on demand (see `ON_DEMAND_MODULES`). */
export interface VendorFile {
  module: string;
  url: string;
  integrity?: string;
}

/**
 * What a bundle response preloads (`Link: <…>; rel=modulepreload`), resolved against the
 * bundle's URL: the components of the same API (`./image.js?<hash>`, as names) and the vendor
 * modules beside the bundles directory (`../vendor/<stem>.<hash>.js`, as specifiers and URLs),
 * each in order. Anything else a proxy or the app may have added is ignored.
 */
export function modulePreloads(
  response: Response,
  url: string,
  base?: string,
): { names: string[]; modules: VendorFile[] } {
  const names: string[] = [];
  const modules: VendorFile[] = [];
  const header = response.headers.get("link");
  let bundle: URL;
  try {
    bundle = new URL(response.url || url, base ?? "http://svc.invalid/");
  } catch {
    return { names, modules };
  }
  const directory = bundle.pathname.slice(0, bundle.pathname.lastIndexOf("/") + 1);
  for (const [, target = "", params = ""] of header?.matchAll(/<([^>]*)>([^,]*)/g) ?? []) {
    const rel = /;\s*rel\s*=\s*"?([^";]*)"?/i.exec(params)?.[1] ?? "";
    if (!rel.toLowerCase().split(/\s+/).includes("modulepreload")) continue;
    let link: URL;
    try {
      link = new URL(target, bundle);
    } catch {
      continue;
    }
    const stem = /\/vendor\/([\w-]+)\.\w+\.js$/.exec(link.pathname)?.[1];
    const module = IMPORT_MAP_MODULES.find((m) => vendorStem(m) === stem);
    if (module !== undefined) modules.push({ module, url: link.href });
    if (link.origin !== bundle.origin || !link.pathname.startsWith(directory)) continue;
    const file = link.pathname.slice(directory.length);
    if (!file.endsWith(".js") || file.includes("/")) continue;
    let name: string;
    try {
      name = decodeURIComponent(file.slice(0, -3));
    } catch {
      continue;
    }
    if (componentNameProblem(name) === undefined) names.push(name);
  }
  return { names, modules };
}
