/**
 * A live reload hears its own handler set's records only: an edit that only another handler
 * set's bundle depends on makes it check nothing. Real files, real inotify, real esbuild.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { cn, settleWrites, writeTree } from "../test/fixtures.ts";
import { createLiveReload, type LiveEvent, type LiveReload } from "./liveReload.ts";

const open: LiveReload[] = [];
afterEach(() => {
  for (const live of open.splice(0)) live.close();
});

/**
 * A handler set whose card imports a helper outside its source root (heard through the dev
 * cache's watches only), its live reload (no poll), and how often it asked for a bundle.
 */
function project() {
  const outside = writeTree({ "helper.ts": 'export const h = "one";\n' });
  const dir = writeTree({
    "card/index.tsx": `import { h } from ${JSON.stringify(join(outside, "helper.ts"))};\nexport default () => h;\n`,
  });
  const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
    logger: silentLogger,
  });
  const asked = { bundles: 0 };
  const getBundle = handlers.getBundle.bind(handlers);
  handlers.getBundle = (name, options) => {
    asked.bundles++;
    return getBundle(name, options);
  };
  const live = createLiveReload(handlers, { pollMs: 0 });
  open.push(live);
  const events: LiveEvent[] = [];
  live.subscribe((event) => events.push(event));
  const save = (text: string) =>
    writeFileSync(join(outside, "helper.ts"), `export const h = "${text}";\n`);
  return { handlers, asked, events, save };
}

describe.runIf(process.platform === "linux")("live reload of one handler set among several", () => {
  it("checks nothing when only another handler set's files change, and its own at once", async () => {
    settleWrites(); // builds kept (not racy): their records are watched
    const [a, b] = [project(), project()];
    await new Promise((resolve) => setTimeout(resolve, 200)); // each one's first look
    await a.handlers.getBundle(cn("card"));
    await b.handlers.getBundle(cn("card"));
    await new Promise((resolve) => setTimeout(resolve, 50)); // the records, after the answers
    const before = a.asked.bundles;
    b.save("two");
    await vi.waitFor(() => expect(b.events.some((e) => e.type === "change")).toBe(true));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(a.asked.bundles).toBe(before);
    a.save("three");
    await vi.waitFor(() => expect(a.events.some((e) => e.type === "change")).toBe(true));
  });
});
