import { beforeAll, describe, expect, it } from "vitest";
import { browserSuite, bundleApp, poll, type TestServer } from "./helpers.ts";

const COMPONENTS = {
  // Loads another component at run time: the nested case.
  "card/index.tsx": `import { useComponent } from "@svc/react";
import { Suspense } from "react";
function Badge() {
  const Inner = useComponent<{ label: string }>("badge");
  return <Inner label="nested badge" />;
}
export default function Card({ title }: { title: string }) {
  return <div className="card"><h3>{title}</h3><Suspense fallback="…"><Badge /></Suspense></div>;
}
`,
  "badge/index.tsx": `export default function Badge({ label }: { label: string }) {
  return <span className="badge">{label}</span>;
}
`,
  // Loads "inner", which throws while rendering: the failure is inner's, not outer's.
  "outer/index.tsx": `import { useComponent } from "@svc/react";
export default function Outer() {
  const Inner = useComponent("inner");
  return <div className="outer"><Inner /></div>;
}
`,
  "inner/index.tsx": `export default function Inner(): never {
  throw new Error("inner broke");
}
`,
  "typed/index.tsx": `export default function Typed({ count, label = "x" }: { count: number; label?: string }) {
  return <output className="typed">{label}{count * 2}</output>;
}
`,
  "typed/schema.json": JSON.stringify({
    title: "Typed",
    type: "object",
    properties: { count: { type: "number" }, label: { type: "string" } },
    required: ["count"],
  }),
};

/** The React app (`@svc/react`'s provider and hook) the tests load components into. */
const APP = new URL("./fixtures/app.tsx", import.meta.url);

const page = (script: string) =>
  `<!doctype html><html><body><div id="root"></div><script type="module" src="${script}"></script></body></html>`;

describe("a React app with SvcProvider and useComponent", () => {
  const suite = browserSuite();
  let server: TestServer;

  beforeAll(async () => {
    const [fixtures, dev, prod] = await Promise.all([
      suite.fixtures(COMPONENTS),
      bundleApp(APP, "development"),
      bundleApp(APP, "production"),
    ]);
    server = await suite.server({
      registry: fixtures.registry,
      pages: {
        "/app.dev.js": { body: dev },
        "/app.prod.js": { body: prod },
        "/dev.html": { body: page("/app.dev.js") },
        "/prod.html": { body: page("/app.prod.js") },
      },
    });
  });

  it("renders server components and a nested one, with one fetch per bundle", async () => {
    const requestsSince = server.since();
    const { page: tab, errors } = await suite.open(`${server.url}/dev.html`);
    await poll(() => tab.locator("#hook .card h3").textContent()).toBe("from the hook");
    await poll(() => tab.locator("#hook .badge").textContent()).toBe("nested badge");
    await poll(() => tab.locator("#server .card h3").textContent()).toBe("from ServerComponent");
    await poll(() => tab.locator("#server .badge").textContent()).toBe("nested badge");
    await poll(() => tab.locator("#valid .typed").textContent()).toBe("x6");
    await poll(() => tab.locator("#missing [role=alert]").textContent()).toMatch(
      /No component named "nowhere" was found/,
    );
    const report = await tab.evaluate(() => (window as unknown as { report: unknown }).report);
    expect(report).toMatchObject({ prefetched: true });
    const bundles = requestsSince().filter((r) => /^\/api\/bundles\/\w+\.js/.test(r));
    expect(bundles.sort()).toEqual([
      "/api/bundles/badge.js",
      "/api/bundles/card.js",
      "/api/bundles/inner.js",
      "/api/bundles/nowhere.js",
      "/api/bundles/outer.js",
      "/api/bundles/typed.js",
    ]);
    expect(errors).toEqual([]);
  });

  for (const build of ["dev", "prod"]) {
    it(`names the nested component that threw, not the one that loaded it (${build})`, async () => {
      const { page: tab, consoleLines } = await suite.open(`${server.url}/${build}.html`);
      // Production shows a neutral placeholder; the message goes to the console.
      await poll(() => tab.locator("#nested [role=alert]").textContent()).toBe(
        build === "dev"
          ? 'Component "inner" threw: inner broke'
          : "This component could not be shown",
      );
      if (build === "prod") {
        await poll(() => consoleLines.join("\n")).toContain('Component "inner" threw: inner broke');
      }
      const report = (await tab.evaluate(
        () => (window as unknown as { report: { errors: unknown[] } }).report,
      )) as { errors: { name: string; component?: string }[] };
      expect(report.errors.find((e) => e.name === "RenderError")).toMatchObject({
        kind: "Render",
        component: "inner",
        isSvcError: true,
      });
    });
  }

  it("raises SchemaValidationError listing each failing prop, in development only", async () => {
    const { context, page: dev } = await suite.open(`${server.url}/dev.html`);
    await poll(() => dev.locator("#invalid [role=alert]").textContent()).toMatch(
      /Invalid props for component "typed": count: .*number.*; label: .*string/,
    );
    const report = (await dev.evaluate(
      () => (window as unknown as { report: { errors: unknown[] } }).report,
    )) as { errors: { name: string; issues?: { prop: string }[] }[] };
    const validation = report.errors.find((e) => e.name === "SchemaValidationError");
    expect(validation).toMatchObject({ kind: "SchemaValidation", isSvcError: true });
    expect(validation?.issues?.map((issue) => issue.prop)).toEqual(["count", "label"]);

    // The production build skips validation (and never asks for metadata).
    const prod = await context.newPage();
    const requestsSince = server.since();
    await prod.goto(`${server.url}/prod.html`);
    await poll(() => prod.locator("#invalid .typed").count()).toBe(1);
    expect(requestsSince().some((r) => r.includes("/metadata"))).toBe(false);
  });
});
