import { readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { type Bundler, esbuildBundler } from "../bundling/bundler.ts";
import { ComponentRegistry } from "../components/componentRegistry.ts";
import {
  EventStreams,
  eventStream,
  HEARTBEAT_MS,
  STREAM_LIFETIME_MS,
} from "../http/eventStream.ts";
import { silentLogger } from "../logger.ts";
import { createHandlers } from "../service/handlers.ts";
import { cn, settleWrites, typicalComponent, writeTree } from "../test/fixtures.ts";
import { createLiveReload, type LiveEvent, type LiveReload } from "./liveReload.ts";

const open: LiveReload[] = [];
afterEach(() => {
  for (const live of open.splice(0)) live.close();
});

function setup(pollMs = 0) {
  const dir = writeTree({ ...typicalComponent("card"), ...typicalComponent("other") });
  const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
    logger: silentLogger,
  });
  const live = createLiveReload(handlers, { pollMs });
  open.push(live);
  const events: LiveEvent[] = [];
  live.subscribe((e) => events.push(e));
  /** Resolves with the first event (already received or to come) matching `predicate`. */
  const next = (predicate: (e: LiveEvent) => boolean) =>
    new Promise<LiveEvent>((resolve) => {
      const found = events.find(predicate);
      if (found) return resolve(found);
      const off = live.subscribe((e) => {
        if (predicate(e)) {
          off();
          resolve(e);
        }
      });
    });
  return { dir, live, handlers, events, next };
}

/**
 * A card importing `helper.ts` (`export const h = "one"`) from a directory outside its source
 * root, and a live reload of its handler set polling every `pollMs` (0: never); nobody
 * subscribed yet.
 */
function outsideHelper(pollMs: number) {
  const outside = writeTree({ "helper.ts": 'export const h = "one";\n' });
  const dir = writeTree({
    "card/index.tsx": `import { h } from ${JSON.stringify(join(outside, "helper.ts"))};\nexport default () => h;\n`,
  });
  const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
    logger: silentLogger,
  });
  const live = createLiveReload(handlers, { pollMs });
  open.push(live);
  return {
    handlers,
    live,
    /** Saves the helper as `export const h = <source>;` (broken, if `source` is). */
    save: (source: string) =>
      writeFileSync(join(outside, "helper.ts"), `export const h = ${source};\n`),
    /**
     * The card asked for once, after live reload's first look (with nothing loaded), and
     * time for its record, taken after the answer. Nothing checks it by stats afterwards.
     */
    async loadOnce() {
      await new Promise((resolve) => setTimeout(resolve, 200));
      const bundle = await handlers.getBundle(cn("card"));
      await new Promise((resolve) => setTimeout(resolve, 50));
      return bundle;
    },
    code: async () => Buffer.from((await handlers.getBundle(cn("card"))).code).toString("utf8"),
  };
}

describe("createLiveReload", () => {
  it("announces a changed component the client has loaded, with its new hash, when a file changes", async () => {
    const t = setup();
    const before = await t.handlers.getBundle(cn("card"));
    await t.handlers.getMetadata(cn("card"));
    writeFileSync(join(t.dir, "card/label.ts"), "export const label = (s: string) => s + '!';\n");
    const event = await t.next((e) => e.type === "change");
    expect(event).toEqual({
      type: "change",
      name: "card",
      hash: expect.stringMatching(/^[0-9a-f]{12}$/),
    });
    expect(event.type === "change" && event.hash).not.toBe(before.hash);
    const after = await t.handlers.getBundle(cn("card"));
    expect(event.type === "change" && event.hash).toBe(after.hash);
    // "other" was never loaded, so it is neither rebuilt nor announced.
    expect(t.events.some((e) => e.type === "change" && e.name === "other")).toBe(false);
  });

  it("announces a schema.json edit as a change", async () => {
    const t = setup();
    await t.handlers.getMetadata(cn("card"));
    writeFileSync(join(t.dir, "card/schema.json"), JSON.stringify({ title: "New title" }));
    expect(await t.next((e) => e.type === "change")).toMatchObject({ name: "card" });
  });

  it("reports a syntax error once, then the fix as a change", async () => {
    const t = setup();
    await t.handlers.getMetadata(cn("card"));
    writeFileSync(join(t.dir, "card/label.ts"), "export const label = (s: string) => ;\n");
    const error = await t.next((e) => e.type === "error");
    expect(error).toMatchObject({
      name: "card",
      error: "BundleError",
      message: expect.stringMatching(/label\.ts:1:\d+/),
    });
    await t.live.check();
    expect(t.events.filter((e) => e.type === "error")).toHaveLength(1);
    writeFileSync(join(t.dir, "card/label.ts"), "export const label = (s: string) => s;\n");
    expect(await t.next((e) => e.type === "change")).toMatchObject({ name: "card" });
  });

  it("announces nothing a check found when the files changed again meanwhile: the next check does", async () => {
    const dir = writeTree(typicalComponent("card"));
    let saveAgain = false;
    const bundler: Bundler = {
      async bundle(component, options) {
        const built = esbuildBundler.bundle(component, options);
        if (saveAgain) {
          saveAgain = false;
          // The save's next step lands while its broken first step is being built.
          await built.catch(() => {});
          writeFileSync(join(dir, "card/label.ts"), "export const label = (s: string) => s;\n");
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
        return built;
      },
    };
    const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
      logger: silentLogger,
      bundler,
    });
    const live = createLiveReload(handlers, { pollMs: 0 });
    open.push(live);
    await handlers.getBundle(cn("card"));
    const events: LiveEvent[] = [];
    live.subscribe((e) => events.push(e));
    saveAgain = true;
    writeFileSync(join(dir, "card/label.ts"), "export const label = (s: string) => ;\n");
    await expect.poll(() => events.some((e) => e.type === "change"), { timeout: 5_000 }).toBe(true);
    expect(saveAgain).toBe(false);
    expect(events.filter((e) => e.type === "error")).toEqual([]);
  });

  it("tracks a component broken on its first request: its error carries locations, its fix is announced", async () => {
    const t = setup();
    writeFileSync(join(t.dir, "card/label.ts"), "export const label = (s: string) => ;\n");
    await expect(t.handlers.getBundle(cn("card"))).rejects.toThrow(/label\.ts:1:/);
    const first = await t.next((e) => e.type === "error");
    expect(first).toMatchObject({
      name: "card",
      error: "BundleError",
      locations: [{ file: "label.ts", line: 1, lineText: "export const label = (s: string) => ;" }],
    });
    writeFileSync(join(t.dir, "card/label.ts"), "export const label = (s: string) => ) ;\n");
    // A different mistake is a new message; the same one is not repeated.
    const second = await t.next((e) => e.type === "error" && e !== first);
    expect(second).toMatchObject({ name: "card", message: expect.stringMatching(/"\)"/) });
    await t.live.check();
    expect(t.events.filter((e) => e.type === "error")).toHaveLength(2);
    writeFileSync(join(t.dir, "card/label.ts"), "export const label = (s: string) => s;\n");
    expect(await t.next((e) => e.type === "change")).toMatchObject({ name: "card" });
  });

  it("announces the new listing when components are added or removed", async () => {
    const t = setup();
    writeTree({ "fresh/index.tsx": "export default () => null;\n" }, t.dir);
    expect(await t.next((e) => e.type === "list" && e.names.includes("fresh"))).toEqual({
      type: "list",
      names: ["card", "fresh", "other"],
    });
    rmSync(join(t.dir, "other"), { recursive: true });
    expect(await t.next((e) => e.type === "list" && !e.names.includes("other"))).toMatchObject({
      names: ["card", "fresh"],
    });
  });

  it("announces an edit to a file outside the source roots at once, without the poll", async () => {
    settleWrites(); // the build is kept (not racy), so the dev cache watches what it read
    const t = outsideHelper(0);
    const changed = new Promise<LiveEvent>((resolve) =>
      t.live.subscribe((e) => e.type === "change" && resolve(e)),
    );
    const before = await t.loadOnce();
    t.save('"two"');
    const event = await changed;
    expect(event).toMatchObject({ name: "card" });
    expect(event.type === "change" && event.hash).not.toBe(before.hash);
    expect(await t.code()).toContain('"two"');
  });

  it("announces the fix of a broken file outside the source roots at once, without the poll", async () => {
    settleWrites();
    const t = outsideHelper(0);
    const events: LiveEvent[] = [];
    t.live.subscribe((e) => events.push(e));
    await t.loadOnce();
    t.save('"two');
    await vi.waitFor(() => expect(events.some((e) => e.type === "error")).toBe(true), {
      timeout: 5000,
    });
    // A failed build records nothing: the last good one's watches hear the fix.
    t.save('"three"');
    await vi.waitFor(() => expect(events.at(-1)).toMatchObject({ type: "change", name: "card" }), {
      timeout: 5000,
    });
    expect(await t.code()).toContain('"three"');
  });

  it("goes on hearing a file outside the source roots after a rebuild too recent to keep", async () => {
    const t = outsideHelper(0);
    const hashes: string[] = [];
    t.live.subscribe((e) => e.type === "change" && hashes.push(e.hash));
    await t.loadOnce(); // built past the racy window after the files were written: kept
    // Live reload rebuilds ~15 ms after the save: within 50 ms of it, so the bundle is served
    // but not kept (racy), and nothing asks for it again before the next save.
    t.save('"two"');
    await vi.waitFor(() => expect(hashes).toHaveLength(1), { timeout: 5000 });
    await new Promise((resolve) => setTimeout(resolve, 100));
    t.save('"three"');
    await vi.waitFor(() => expect(hashes).toHaveLength(2), { timeout: 5000 });
    expect(hashes[1]).not.toBe(hashes[0]);
  });

  it("notices edits outside the watched roots by polling", async () => {
    const t = outsideHelper(50);
    await t.handlers.getMetadata(cn("card"));
    const changed = new Promise<LiveEvent>((resolve) =>
      t.live.subscribe((e) => e.type === "change" && resolve(e)),
    );
    t.save('"two"');
    expect(await changed).toMatchObject({ name: "card" });
  });
});

/** inotify watches this process holds, read from /proc (Linux). */
function inotifyWatches(): number {
  let count = 0;
  for (const fd of readdirSync("/proc/self/fd")) {
    let target = "";
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue;
    }
    if (!target.includes("inotify")) continue;
    const info = readFileSync(`/proc/self/fdinfo/${fd}`, "utf8");
    count += info.split("\n").filter((line) => line.startsWith("inotify wd:")).length;
  }
  return count;
}

describe("createLiveReload: what it costs", () => {
  it("watches the sources but never node_modules or .git", async () => {
    const tree: Record<string, string> = { ...typicalComponent("card") };
    for (let i = 0; i < 150; i++) {
      tree[`node_modules/pkg${i}/lib/index.js`] = "module.exports = 1;\n";
      tree[`.git/objects/${i}/x`] = "x";
    }
    const dir = writeTree(tree);
    // Counted from before the handler set: its dev cache watches the bundle's directories too.
    const before = inotifyWatches();
    const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
      logger: silentLogger,
    });
    const live = createLiveReload(handlers, { pollMs: 0 });
    open.push(live);
    await handlers.getBundle(cn("card"));
    const changed = new Promise<LiveEvent>((resolve) =>
      live.subscribe((e) => e.type === "change" && resolve(e)),
    );
    // Watching works (a change is announced) …
    await new Promise((resolve) => setTimeout(resolve, 300));
    writeFileSync(join(dir, "card/label.ts"), "export const label = (s: string) => s + '?';\n");
    await changed;
    // … with a watch per source directory, not one per directory of node_modules and .git.
    const added = inotifyWatches() - before;
    expect(added).toBeGreaterThan(0);
    expect(added).toBeLessThan(10);
  });

  it("re-reads no schema while nothing changed; a schema.json edit is read once", async () => {
    const t = setup();
    let reads = 0;
    const getMetadata = t.handlers.getMetadata.bind(t.handlers);
    t.handlers.getMetadata = (name) => {
      reads++;
      return getMetadata(name);
    };
    await t.handlers.getMetadata(cn("card"));
    reads = 0;
    for (let i = 0; i < 5; i++) await t.live.check();
    expect(reads).toBe(0);
    writeFileSync(join(t.dir, "card/schema.json"), JSON.stringify({ title: "Renamed" }));
    await t.next((e) => e.type === "change");
    expect(reads).toBe(1);
  });

  it("announces other components while one component's build hangs", async () => {
    const dir = writeTree({ ...typicalComponent("stuck"), ...typicalComponent("fine") });
    let hang = false;
    const bundler: Bundler = {
      bundle(component, options) {
        if (hang && component.name === "stuck") return new Promise(() => {});
        return esbuildBundler.bundle(component, options);
      },
    };
    const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
      logger: silentLogger,
      bundler,
    });
    const live = createLiveReload(handlers, { pollMs: 0 });
    open.push(live);
    await handlers.getBundle(cn("stuck"));
    await handlers.getBundle(cn("fine"));
    const events: LiveEvent[] = [];
    live.subscribe((e) => events.push(e));
    hang = true;
    writeFileSync(join(dir, "stuck/label.ts"), "export const label = (s: string) => s;\n");
    void live.check(); // stuck's check now waits on its build
    await new Promise((resolve) => setTimeout(resolve, 50));
    writeFileSync(join(dir, "fine/label.ts"), "export const label = (s: string) => s + '.';\n");
    await expect
      .poll(() => events.some((e) => e.type === "change" && e.name === "fine"), { timeout: 5_000 })
      .toBe(true);
  });
});

describe("the event stream of a live reload", () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A live reload that neither watches nor polls (so no timer but the stream's runs). */
  function quietLive() {
    const dir = writeTree(typicalComponent("card"));
    const handlers = createHandlers(new ComponentRegistry(dir, { logger: silentLogger }), {
      logger: silentLogger,
    });
    const live = createLiveReload(handlers, { pollMs: 0, watch: false });
    open.push(live);
    return live;
  }

  const decoder = new TextDecoder();
  const text = async (reader: ReadableStreamDefaultReader<Uint8Array>) =>
    decoder.decode((await reader.read()).value);

  it("sends a comment line every 15 s and ends after its lifetime with retry, letting go of its subscription", async () => {
    vi.useFakeTimers();
    const live = quietLive();
    const reader = eventStream(live).getReader();
    expect(await text(reader)).toBe("retry: 1000\n\n");
    expect(JSON.parse((await text(reader)).slice("data: ".length))).toEqual({
      type: "hello",
      server: live.serverId,
    });
    expect(live.listeners).toBe(1);
    await vi.advanceTimersByTimeAsync(HEARTBEAT_MS - 1);
    let next = reader.read();
    let settled = false;
    void next.then(() => {
      settled = true;
    });
    await vi.advanceTimersByTimeAsync(0);
    expect(settled).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(decoder.decode((await next).value)).toBe(": keep-alive\n\n");
    // A comment line every 15 s until the lifetime ends; then `retry` again, and the end.
    await vi.advanceTimersByTimeAsync(STREAM_LIFETIME_MS - HEARTBEAT_MS);
    const rest: string[] = [];
    for (next = reader.read(); ; next = reader.read()) {
      const { value, done } = await next;
      if (done) break;
      rest.push(decoder.decode(value));
    }
    expect(rest.filter((line) => line === ": keep-alive\n\n")).toHaveLength(19);
    expect(rest.at(-1)).toBe("retry: 1000\n\n");
    expect(live.listeners).toBe(0);
  });

  it("serves at most its cap of streams at once; a place frees whichever way a stream ends", async () => {
    vi.useFakeTimers();
    const live = quietLive();
    const warnings: string[] = [];
    const logger = { ...silentLogger, warn: (message: string) => warnings.push(message) };
    const streams = new EventStreams(live, { maxClients: 2, lifetimeMs: 60_000, logger });
    const client = new AbortController();
    const first = streams.open(client.signal);
    const second = streams.open();
    expect([first, second].every((s) => s instanceof ReadableStream)).toBe(true);
    expect(streams.open()).toBeUndefined();
    expect(streams.open()).toBeUndefined();
    expect(warnings).toHaveLength(1); // once, not per refused client
    expect([streams.clients, live.listeners]).toEqual([2, 2]);
    // The client goes away …
    client.abort();
    expect(streams.clients).toBe(1);
    const third = streams.open();
    expect(third).toBeInstanceOf(ReadableStream);
    // … the transport cancels the stream …
    await second?.cancel();
    expect(streams.clients).toBe(1);
    // … or its lifetime ends: each lasts 90 to 100 % of it, never longer.
    await vi.advanceTimersByTimeAsync(60_000 * 0.9 - 1);
    expect(streams.clients).toBe(1);
    await vi.advanceTimersByTimeAsync(60_000 * 0.1 + 1);
    expect([streams.clients, live.listeners]).toEqual([0, 0]);
  });
});
