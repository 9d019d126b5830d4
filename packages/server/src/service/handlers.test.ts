import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { cn, settleWrites, typicalComponent, writeTree } from "../test/fixtures.ts";
import type { HandlerOptions } from "./handlerOptions.ts";
import { createHandlers } from "./handlers.ts";

function counted(dir: string, options: HandlerOptions = {}) {
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
  return {
    registry,
    scans,
    handlers: createHandlers(registry, { logger: silentLogger, ...options }),
  };
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

  it("answers known names of a turn before looking up the unknown ones that came first", async () => {
    settleWrites();
    const { handlers } = counted(writeTree(typicalComponent("card")));
    await handlers.getBundle(cn("card"));
    const order: string[] = [];
    const unknown = Array.from({ length: 20 }, (_, i) =>
      handlers.getBundle(cn(`nope${i}`)).catch(() => order.push("unknown")),
    );
    const warm = handlers.getBundle(cn("card")).then(() => order.push("card"));
    await Promise.all([...unknown, warm]);
    expect(order[0]).toBe("card");
    expect(order.filter((o) => o === "unknown")).toHaveLength(20);
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

describe("createHandlers: dependencies", () => {
  const uses = (...names: string[]) =>
    `import { useComponent } from "@svc/react";\nexport default function C() {\n${names.map((n, i) => `  const C${i} = useComponent("${n}");\n`).join("")}  return null;\n}\n`;

  it("preloads existing dependencies, transitively as far as their bundles are at hand", async () => {
    const dir = writeTree({
      "a/index.tsx": uses("b", "missing"),
      "b/index.tsx": uses("c", "a"),
      "c/index.tsx": uses(),
    });
    settleWrites(); // just-written sources make builds racy, and racy builds are not kept
    // Checked by stats, so a warm bundle is answered synchronously (peekBundle) too.
    const { handlers } = counted(dir, { watchFiles: false });
    // Cold: b is listed without a hash, and starts building.
    const cold = await handlers.getBundle(cn("a"));
    expect(cold.dependencies).toEqual(["b", "missing"]);
    expect(cold.preload).toEqual([{ name: "b" }]);
    const b = await handlers.getBundle(cn("b"));
    const c = await handlers.getBundle(cn("c"));
    // Warm: b and, through it, c, with their hashes; never a itself.
    const warm = await handlers.getBundle(cn("a"));
    expect(warm.preload).toEqual([
      { name: "b", hash: b.hash },
      { name: "c", hash: c.hash },
    ]);
    expect(handlers.peekBundle?.(cn("a"))?.preload).toEqual(warm.preload);
    expect((await handlers.getMetadata(cn("b"))).dependencies).toEqual(["a", "c"]);
  });

  it("derives dependencies from the same build: an edit that adds one shows on the next request", async () => {
    const dir = writeTree({ "a/index.tsx": uses("b"), "b/index.tsx": uses() });
    const { handlers } = counted(dir);
    expect((await handlers.getMetadata(cn("a"))).dependencies).toEqual(["b"]);
    writeFileSync(join(dir, "a/Extra.tsx"), uses("c"));
    writeFileSync(join(dir, "a/index.tsx"), `import "./Extra";\n${uses("b")}`);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await handlers.getMetadata(cn("a"))).dependencies).toEqual(["b", "c"]);
    expect((await handlers.getBundle(cn("a"))).dependencies).toEqual(["b", "c"]);
    writeFileSync(join(dir, "a/Extra.tsx"), "export {};\n");
    await new Promise((resolve) => setImmediate(resolve));
    expect((await handlers.getMetadata(cn("a"))).dependencies).toEqual(["b"]);
  });
});

describe("createHandlers: observers (live reload)", () => {
  it("are told of a warm bundle its watches vouch for, not only of one built for the request", async () => {
    settleWrites(); // just-written sources make builds racy, and racy builds are not kept
    const { handlers } = counted(writeTree(typicalComponent("card")));
    const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
    // Built, then checked in a later turn, before anyone observes (as by a render or a
    // metadata request): that check arms the bundle's directory watches (Linux), which vouch
    // for it from then on, without a lookup.
    await handlers.getMetadata(cn("card"));
    await nextTurn();
    await handlers.getMetadata(cn("card"));
    await nextTurn();
    const told: string[] = [];
    handlers.observe?.({
      served: (name, hash) => told.push(`${name}@${hash}`),
      failed: (name) => told.push(`${name} failed`),
    });
    const warm = await handlers.getBundle(cn("card"), { readFromSocket: true });
    expect(told).toEqual([`card@${warm.hash}`]);
  });
});

describe("createHandlers: a set of functions", () => {
  it("answers through methods taken off it, as the object literal it replaced did", async () => {
    const { handlers } = counted(writeTree(typicalComponent("card")));
    const { getBundle, listBundles, getMetadata, health, close } = handlers;
    await expect(listBundles()).resolves.toEqual([{ name: "card" }]);
    await expect(getBundle(cn("card"))).resolves.toMatchObject({ name: "card" });
    await expect(getMetadata(cn("card"))).resolves.toMatchObject({ name: "card" });
    expect(health?.()).toHaveProperty("ready");
    await close?.();
    expect(health?.()).toEqual({ ready: false, reason: "shutting down" });
  });
});
