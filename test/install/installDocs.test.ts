/**
 * The install lines in the README, the framework pages and the package READMEs stay true:
 * every tarball they name is one `npm run pack` writes (name and current version), and a
 * line that installs a package also installs the svc packages it depends on — npm finds
 * them nowhere else until they are published.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const repo = fileURLToPath(new URL("../../", import.meta.url));
const PACKAGES = ["protocol", "runtime", "react", "loader", "server"] as const;

interface Manifest {
  name: string;
  version: string;
  dependencies?: Record<string, string>;
}

const manifests = new Map<string, Manifest>(
  PACKAGES.map((dir) => {
    const pkg = JSON.parse(readFileSync(join(repo, "packages", dir, "package.json"), "utf8"));
    return [pkg.name as string, pkg as Manifest];
  }),
);

/** The tarball `npm pack` names for a package: `@svc/server@0.1.0` → `svc-server-0.1.0.tgz`. */
function tarballOf({ name, version }: Manifest): string {
  return `${name.replace(/^@/, "").replace("/", "-")}-${version}.tgz`;
}

const byTarball = new Map([...manifests.values()].map((pkg) => [tarballOf(pkg), pkg]));

const pages = [
  "README.md",
  ...readdirSync(join(repo, "docs", "frameworks")).map((f) => `docs/frameworks/${f}`),
  ...PACKAGES.map((dir) => `packages/${dir}/README.md`),
];

function installLines(page: string): string[] {
  const text = readFileSync(join(repo, page), "utf8");
  return text.split("\n").filter((line) => /npm install .*packs\/svc-/.test(line));
}

describe("install instructions", () => {
  for (const page of pages) {
    it(`${page}: each tarball line names real tarballs and their svc dependencies`, () => {
      for (const line of installLines(page)) {
        const named = [...line.matchAll(/packs\/(svc-[\w-]+?-\d+\.\d+\.\d+\.tgz)/g)].map(
          (m) => m[1] as string,
        );
        for (const tarball of named) {
          const pkg = byTarball.get(tarball);
          expect(pkg, `${tarball} in "${line}"`).toBeDefined();
          for (const dep of Object.keys(pkg?.dependencies ?? {}).filter((d) =>
            d.startsWith("@svc/"),
          )) {
            const needed = tarballOf(manifests.get(dep) as Manifest);
            expect(named, `${tarball} needs ${needed} in "${line}"`).toContain(needed);
          }
        }
      }
    });
  }

  it("every framework page and package README says how to install from the tarballs", () => {
    const frameworkPages = pages.filter((p) => /docs\/frameworks\/(?!README)/.test(p));
    expect(frameworkPages.length).toBeGreaterThanOrEqual(6);
    for (const page of [...frameworkPages, "README.md", "packages/server/README.md"]) {
      expect(installLines(page).length, page).toBeGreaterThan(0);
      expect(readFileSync(join(repo, page), "utf8"), page).toContain('"allowScripts"');
    }
    for (const dir of PACKAGES) {
      expect(installLines(`packages/${dir}/README.md`).length, dir).toBeGreaterThan(0);
    }
  });
});
