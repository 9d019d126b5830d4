import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import type { Logger } from "../logger.ts";
import { settleWrites, writeTree } from "../test/fixtures.ts";
import { generateTypes } from "../types/typesFile.ts";
import { type TypesWatcher, watchTypes } from "./typesWatcher.ts";

const schema = (description: string) =>
  JSON.stringify({ type: "object", properties: { n: { type: "number", description } } });

const open: TypesWatcher[] = [];
afterEach(() => {
  for (const watcher of open.splice(0)) watcher.close();
});

function setup() {
  const dir = writeTree({
    "components/card/index.tsx": "export default () => null;\n",
    "components/card/schema.json": schema("First."),
  });
  const registry = new ComponentRegistry(join(dir, "components"), {
    logger: { info() {}, warn() {}, error() {} },
  });
  const lines: string[] = [];
  const logger: Logger = {
    info: (message) => lines.push(`info: ${message}`),
    warn: (message) => lines.push(`warn: ${message}`),
    error: (message) => lines.push(`error: ${message}`),
  };
  let conversions = 0;
  const file = join(dir, "svc-env.d.ts");
  const watcher = watchTypes(registry, {
    file,
    logger,
    watch: false,
    generate: (...args) => {
      conversions++;
      return generateTypes(...args);
    },
  });
  open.push(watcher);
  return { dir, file, lines, watcher, conversions: () => conversions };
}

describe("watchTypes", () => {
  it("converts again only when a schema or the listing changed, not when code did", async () => {
    settleWrites();
    const t = setup();
    await t.watcher.ready;
    expect(readFileSync(t.file, "utf8")).toContain("First.");
    expect(t.conversions()).toBe(1);

    writeFileSync(join(t.dir, "components/card/index.tsx"), "export default () => 1;\n");
    await t.watcher.update();
    expect(t.conversions()).toBe(1);

    writeFileSync(join(t.dir, "components/card/schema.json"), schema("Second."));
    await t.watcher.update();
    expect(t.conversions()).toBe(2);
    expect(readFileSync(t.file, "utf8")).toContain("Second.");

    writeTree({ "components/extra/index.tsx": "export default () => null;\n" }, t.dir);
    await t.watcher.update();
    expect(t.conversions()).toBe(3);
    expect(readFileSync(t.file, "utf8")).toContain("    extra: Record<string, unknown>;\n");
  });

  it("logs a broken schema once, keeps the file, and writes again once it is fixed", async () => {
    settleWrites();
    const t = setup();
    await t.watcher.ready;
    const written = readFileSync(t.file, "utf8");
    writeFileSync(join(t.dir, "components/card/schema.json"), "{");
    await t.watcher.update();
    writeTree({ "components/extra/index.tsx": "export default () => null;\n" }, t.dir);
    await t.watcher.update();
    expect(readFileSync(t.file, "utf8")).toBe(written);
    const problems = t.lines.filter((line) => line.includes(" not updated — "));
    expect(problems).toHaveLength(1);
    expect(problems[0]).toMatch(/not updated — card\/schema\.json: is not valid JSON/);

    writeFileSync(join(t.dir, "components/card/schema.json"), schema("Fixed."));
    await t.watcher.update();
    expect(readFileSync(t.file, "utf8")).toContain("Fixed.");
    expect(t.lines.filter((line) => line.startsWith("info: svc types: wrote"))).toHaveLength(2);
  });

  it("warns at start when @svc/protocol cannot be found from the file", () => {
    const t = setup();
    expect(t.lines[0]).toMatch(
      /^warn: svc types: @svc\/protocol cannot be found from .*svc-env\.d\.ts, so TypeScript ignores its declarations/,
    );
  });
});
