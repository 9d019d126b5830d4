import { formatImportTable, type LiveEvent } from "@svc/protocol";
import { createSvcClient } from "@svc/runtime";
import { QueryClient } from "@tanstack/react-query";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { componentQueryOptions } from "./componentQueryOptions.ts";
import { connectLive } from "./connectLive.ts";
import { svcQueryKeys } from "./queryKeys.ts";

/** A bundle exporting `value`, with the import table the server writes (it imports nothing). */
const bundleOf = (value: unknown) =>
  `\nexport default ${JSON.stringify(value)};\n${formatImportTable("\n", [], [{ n: "default" }])}`;

/** A stand-in for the browser's EventSource: the test opens, feeds and drops connections. */
class FakeEventSource {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSED = 2;
  static instances: FakeEventSource[] = [];
  readyState = FakeEventSource.CONNECTING;
  onopen: (() => void) | null = null;
  onmessage: ((message: { data: string }) => void) | null = null;
  onerror: (() => void) | null = null;
  readonly url: string;
  constructor(url: string) {
    this.url = url;
    FakeEventSource.instances.push(this);
  }
  open() {
    this.readyState = FakeEventSource.OPEN;
    this.onopen?.();
  }
  send(event: LiveEvent) {
    this.onmessage?.({ data: JSON.stringify(event) });
  }
  fail() {
    this.readyState = FakeEventSource.CLOSED;
    this.onerror?.();
  }
  close() {
    this.readyState = FakeEventSource.CLOSED;
  }
}

beforeEach(() => {
  FakeEventSource.instances = [];
  vi.stubGlobal("EventSource", FakeEventSource);
});
afterEach(() => {
  vi.unstubAllGlobals();
  vi.useRealTimers();
});

/** A client over a fake API where each component's bundle carries `versions[name]`. */
function setup() {
  const versions: Record<string, string> = { card: "h1" };
  const requested: string[] = [];
  const client = createSvcClient({
    apiBase: "/api",
    fetch: async (input) => {
      const url = String(input);
      requested.push(url);
      const name = /bundles\/(\w+)/.exec(url)?.[1] ?? "";
      if (url.endsWith("/metadata")) return Response.json({ name, hash: versions[name] });
      return new Response(bundleOf(versions[name]));
    },
    importCode: async (code) => ({ default: /"(\w+)"/.exec(code)?.[1] }),
  });
  const queryClient = new QueryClient();
  return { client, queryClient, versions, requested };
}

const flush = () => new Promise((resolve) => setTimeout(resolve, 0));

describe("connectLive", () => {
  it("subscribes to {apiBase}/events and reloads a changed component under its new hash", async () => {
    const { client, queryClient, versions, requested } = setup();
    await queryClient.fetchQuery(componentQueryOptions("card", { client }));
    const disconnect = connectLive({ client, queryClient });
    const source = FakeEventSource.instances[0] as FakeEventSource;
    expect(source.url).toBe("/api/events");
    source.open();
    versions.card = "h2";
    source.send({ type: "change", name: "card", hash: "h2" });
    await vi.waitFor(() =>
      expect(queryClient.getQueryData(svcQueryKeys.component(client, "card"))).toEqual({
        default: "h2",
      }),
    );
    expect(requested).toContain("/api/bundles/card.js?h2");
    disconnect();
    expect(source.readyState).toBe(FakeEventSource.CLOSED);
  });

  it("after an error, asks for the component without its last good hash (no cached copy)", async () => {
    const { client, queryClient, requested } = setup();
    client.setHash("card", "h1");
    await queryClient.fetchQuery(componentQueryOptions("card", { client }));
    connectLive({ client, queryClient });
    const source = FakeEventSource.instances[0] as FakeEventSource;
    source.open();
    requested.length = 0;
    source.send({ type: "error", name: "card", error: "BundleError", message: "broken" });
    await client.load("card");
    await flush();
    expect(requested).toContain("/api/bundles/card.js");
    expect(requested).not.toContain("/api/bundles/card.js?h1");
  });

  it("reopens a stream the browser gave up on, backing off from 1 s", async () => {
    vi.useFakeTimers();
    // Asked why the browser gave up, the server answers an error (it is starting, say).
    vi.stubGlobal("fetch", async () => new Response(null, { status: 502 }));
    const { client, queryClient } = setup();
    const statuses: string[] = [];
    const disconnect = connectLive({ client, queryClient, onStatus: (s) => statuses.push(s) });
    (FakeEventSource.instances[0] as FakeEventSource).fail();
    expect(FakeEventSource.instances).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(FakeEventSource.instances).toHaveLength(2);
    (FakeEventSource.instances[1] as FakeEventSource).fail();
    await vi.advanceTimersByTimeAsync(1000);
    expect(FakeEventSource.instances).toHaveLength(2); // now 2 s
    await vi.advanceTimersByTimeAsync(1000);
    expect(FakeEventSource.instances).toHaveLength(3);
    // Until a first `hello` it is still connecting; after each drop, reconnecting.
    expect(statuses).toEqual([
      "connecting",
      "reconnecting",
      "connecting",
      "reconnecting",
      "connecting",
    ]);
    disconnect();
  });

  it("leaves other sources' queries alone", async () => {
    const { client, queryClient } = setup();
    const other = createSvcClient({
      apiBase: "/elsewhere",
      fetch: async () => new Response(bundleOf("theirs")),
      importCode: async () => ({ default: "theirs" }),
    });
    await queryClient.fetchQuery(componentQueryOptions("card", { client }));
    await queryClient.fetchQuery(componentQueryOptions("card", { client: other }));
    connectLive({ client, queryClient });
    const source = FakeEventSource.instances[0] as FakeEventSource;
    source.open();
    source.send({ type: "change", name: "card", hash: "h9" });
    await flush();
    expect(queryClient.getQueryState(svcQueryKeys.component(other, "card"))?.isInvalidated).toBe(
      false,
    );
  });

  for (const status of [204, 404]) {
    it(`stops for good when the server answers ${status} (no live reload there), asking nothing more`, async () => {
      vi.useFakeTimers();
      const probes: string[] = [];
      vi.stubGlobal("fetch", async (url: string, init?: RequestInit) => {
        probes.push(`${init?.method} ${url}`);
        return new Response(null, { status });
      });
      const { client, queryClient, requested } = setup();
      await queryClient.fetchQuery(componentQueryOptions("card", { client }));
      const statuses: string[] = [];
      connectLive({ client, queryClient, onStatus: (s) => statuses.push(s) });
      (FakeEventSource.instances[0] as FakeEventSource).fail();
      await vi.advanceTimersByTimeAsync(60_000);
      expect(FakeEventSource.instances).toHaveLength(1);
      expect(probes).toEqual(["HEAD /api/events"]);
      expect(statuses).toEqual(["connecting", "reconnecting", "off"]);
      expect(requested.filter((url) => url.endsWith("/events"))).toEqual([]);
    });
  }

  it("a component edited between its load and the first hello is fetched again (its hash is recorded at load)", async () => {
    const { client, queryClient, versions, requested } = setup();
    connectLive({ client, queryClient });
    const source = FakeEventSource.instances[0] as FakeEventSource;
    await queryClient.fetchQuery(componentQueryOptions("card", { client }));
    await vi.waitFor(() => expect(requested).toContain("/api/bundles/card/metadata"));
    await flush();
    // Edited before this page's stream opened: announced to no one here.
    versions.card = "h2";
    source.open();
    source.send({ type: "hello", server: "s1" });
    await vi.waitFor(() => expect(requested).toContain("/api/bundles/card.js?h2"));
    await vi.waitFor(() =>
      expect(queryClient.getQueryData(svcQueryKeys.component(client, "card"))).toEqual({
        default: "h2",
      }),
    );
  });
});
