/**
 * `npm run typecheck`: type-checks every TypeScript project in the repository (each
 * `tsconfig.json` / `tsconfig.node.json` outside node_modules), one `tsc -p` each, because
 * browser and Node code need different `lib`/`types` settings.
 */
import { spawnSync } from "node:child_process";
import { globSync } from "node:fs";

const projects = globSync(["**/tsconfig.json", "**/tsconfig.node.json"], {
  // test/consumer/apps are checked by the consumer test, against the packed packages.
  exclude: (path) =>
    path.includes("node_modules") || path.includes("dist") || path.startsWith("test/consumer/apps"),
}).sort();

let failed = 0;
for (const project of projects) {
  const result = spawnSync("npx", ["tsc", "--noEmit", "-p", project], { stdio: "inherit" });
  if (result.status !== 0) {
    failed++;
    console.error(`typecheck failed: ${project}`);
  }
}
console.log(`${projects.length - failed} of ${projects.length} projects type-check`);
process.exit(failed === 0 ? 0 : 1);
