import { relative } from "node:path";
import type { Component } from "../components/componentRegistry.ts";
import { toPosix } from "../util/paths.ts";
import type { BuildFailure } from "./buildErrors.ts";
import type { FinishedBundle } from "./bundleAll.ts";

/** The entries whose module has no default export: the loader renders `default`. */
export function checkDefaultExports(
  components: readonly Component[],
  finished: readonly FinishedBundle[],
): BuildFailure[] {
  const exportsOf = new Map(finished.map((bundle) => [bundle.name, bundle.exports]));
  return components.flatMap((component) => {
    const exported = exportsOf.get(component.name) ?? [];
    if (exported.includes("default")) return [];
    const named = exported.length === 0 ? "nothing" : exported.join(", ");
    return [
      {
        component: component.name,
        file: toPosix(relative(component.dir, component.entry)),
        text: `has no default export (it exports ${named}): export the React component as default — \`export default function …\` or \`export { default } from "./…"\``,
      },
    ];
  });
}
