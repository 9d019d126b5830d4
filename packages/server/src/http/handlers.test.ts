import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { cn, typicalComponent, writeTree } from "../test/fixtures.ts";
import { createHandlers } from "./handlers.ts";

function counted(dir: string) {
  const registry = new ComponentRegistry(dir, { logger: silentLogger });
  const scans = { sync: 0, async: 0 };
  const refresh = registry.refresh.bind(registry);
  const refreshAsync = registry.refreshAsync.bind(registry);
  registry.refresh = () => {
    scans.sync++;
    refresh();
  };
  registry.refreshAsync = () => {
    scans.async++;
    return refreshAsync();
  };
  return { registry, scans, handlers: createHandlers(registry, { logger: silentLogger }) };
}

describe("createHandlers: keeping the registry current", () => {
  it("answers unknown names without scanning the sources", async () => {
    const tree: Record<string, string> = {};
    for (let i = 0; i < 50; i++) Object.assign(tree, typicalComponent(`c${i}`));
    const { handlers, scans } = counted(writeTree(tree));
    for (let i = 0; i < 200; i++) {
      await expect(handlers.getBundle(cn(`missing${i}`))).rejects.toMatchObject({
        kind: "ComponentNotFound",
      });
      await expect(handlers.getMetadata(cn(`nope.x${i}`))).rejects.toMatchObject({
        kind: "ComponentNotFound",
      });
    }
    expect(scans).toEqual({ sync: 0, async: 0 });
  });

  it("finds a component created since the last scan on its first request", async () => {
    const dir = writeTree(typicalComponent("card"));
    const { handlers, scans } = counted(dir);
    writeTree(typicalComponent("ui/fresh"), dir);
    expect((await handlers.getBundle(cn("ui.fresh"))).hash).toMatch(/^[0-9a-f]{12}$/);
    expect(scans).toEqual({ sync: 0, async: 0 });
    // A listing scans (without blocking the loop) and lists it.
    expect(await handlers.listBundles()).toEqual([{ name: "card" }, { name: "ui.fresh" }]);
    expect(scans.async).toBe(1);
  });

  it("answers 404 for a component deleted since the last scan, and never an old bundle", async () => {
    const dir = writeTree({ ...typicalComponent("card"), ...typicalComponent("gone") });
    const { handlers } = counted(dir);
    await handlers.getBundle(cn("gone"));
    writeFileSync(join(dir, "gone/index.tsx"), ""); // still a component …
    await handlers.getBundle(cn("gone"));
    rmSync(join(dir, "gone"), { recursive: true }); // … and now not
    await new Promise((resolve) => setImmediate(resolve));
    await expect(handlers.getBundle(cn("gone"))).rejects.toMatchObject({
      kind: "ComponentNotFound",
    });
  });
});
