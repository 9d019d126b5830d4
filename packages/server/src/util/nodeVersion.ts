/**
 * Imported first by every entry of `@svc/server`: svc needs Node.js 22 (`node:fs` `globSync`,
 * `require(esm)`, TypeScript config files), and an app on an older Node would otherwise fail
 * somewhere later, with an error that names none of that. The CLI checks the same before it
 * loads anything (`bin/svc.js`).
 */

/** The one-line problem with running on Node `version` (`v20.20.2`), or undefined. */
export function nodeVersionProblem(version: string): string | undefined {
  const major = Number(/^v?(\d+)\./.exec(version)?.[1]);
  if (major >= 22) return undefined;
  return `svc needs Node.js 22 or newer; found ${version} — see README "Set up"`;
}

const problem = nodeVersionProblem(process.version);
if (problem !== undefined) {
  // Said and stopped here: a thrown error would print with this file's source line and a stack
  // of Node's own frames (a `require()` from CommonJS adds a dozen), burying the one line.
  process.stderr.write(`${problem}\n`);
  process.exit(1);
}
