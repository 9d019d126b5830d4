// `npm install` runs this first among the repository's own scripts (preinstall): everything
// after it (the build, the tests, the `svc` command) needs Node.js 22, and an older Node
// would fail there with errors that do not say so. Keep it to syntax old Node versions parse.
const major = Number(process.versions.node.split(".")[0]);
if (major < 22) {
  process.stderr.write(
    `svc needs Node.js 22 or newer; found ${process.version} — see README "Set up"\n`,
  );
  process.exit(2);
}
