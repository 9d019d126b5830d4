#!/usr/bin/env node
// Checked before anything else is loaded: svc's modules need Node.js 22 (node:fs globSync,
// require(esm), TypeScript config files), and an older Node would fail on them with an error
// that names none of that. Keep this file to syntax that old Node versions parse.
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(
    `svc needs Node.js 22 or newer; found ${process.version} — see README "Set up"\n`,
  );
  process.exit(2);
}
import("../dist/cli/svc.js");
