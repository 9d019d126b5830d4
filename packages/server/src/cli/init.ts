import { type InitResult, init } from "../scaffold/init.ts";
import type { Framework } from "../scaffold/packageJson.ts";

/** `svc init`: sets up the project in the working directory and says what it did. */
export function initCommand(): void {
  process.stdout.write(`${formatInitReport(init())}\n`);
}

/** The report `svc init` prints. */
export function formatInitReport(result: InitResult): string {
  const lines: string[] = [];
  for (const path of result.created) lines.push(`created ${path}`);
  if (result.scriptsAdded.length > 0) {
    const added = result.scriptsAdded.map((name) => `"${name}"`).join(", ");
    lines.push(`added to package.json: scripts ${added}`);
  }
  for (const kept of result.kept) lines.push(`already there, left as is: ${kept}`);
  if (result.created.length === 0 && result.scriptsAdded.length === 0) {
    lines.push("svc init changed nothing: this project is already set up");
  }
  lines.push("");
  const { server, page } = result.snippet;
  if (result.framework !== undefined) {
    lines.push(`${FRAMEWORK_TITLES[result.framework]} found in package.json. Add to your server:`);
    lines.push("", ...server.map((line) => `  ${line}`), "");
    lines.push("and to a page:");
  } else {
    lines.push(
      "No Express, Fastify, Hono, Koa or NestJS in package.json. Serve the components with",
      "`npm run svc:serve -- --cors-origin <your page's origin>` and add to a page:",
    );
  }
  lines.push("", ...page.map((line) => `  ${line}`), "");
  lines.push("Try it: npm run svc:serve, then open http://localhost:8000/");
  for (const note of result.notes) lines.push(`note: ${note}`);
  return lines.join("\n");
}

const FRAMEWORK_TITLES: Record<Framework, string> = {
  express: "Express",
  fastify: "Fastify",
  hono: "Hono",
  koa: "Koa",
  nest: "NestJS",
};
