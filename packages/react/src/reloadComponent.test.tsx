import { formatImportTable } from "@svc/protocol";
// @vitest-environment happy-dom
import { type ComponentModule, createSvcClient } from "@svc/runtime";
import { QueryClient } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import type { ComponentType } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { reloadComponent, showComponentFailure } from "./reloadComponent.ts";
import { ServerComponent } from "./ServerComponent.ts";
import { SvcProvider } from "./SvcProvider.ts";
import { useComponent } from "./useComponent.ts";

afterEach(cleanup);

/** What the fake API serves for a name: a component, or a failed build's message. */
type Served = { render: ComponentType } | { broken: string };

/**
 * A client whose API is `served` (changed by the test, as saves change the sources): each
 * fetch of a bundle makes a new module from what is served then. Real fetching and importing
 * are the browser tests' (test/browser/liveCache.test.ts).
 */
function fakeApi(served: Record<string, Served>) {
  const bundleFetches: string[] = [];
  const modules = new Map<string, ComponentModule>();
  const client = createSvcClient({
    apiBase: "/api",
    fetch: async (input) => {
      const url = String(input);
      const match = /\/bundles\/([\w.:]+)(\.js|\/metadata)/.exec(url);
      const name = match?.[1] ?? "";
      const now = served[name];
      if (match?.[2] === "/metadata") {
        return Response.json({ name, title: name, props: {}, properties: {}, hash: "0" });
      }
      bundleFetches.push(name);
      if (now === undefined || "broken" in now) {
        return Response.json(
          { error: "BundleError", message: now?.broken ?? "none", name },
          { status: 500 },
        );
      }
      const id = `${name}:${bundleFetches.length}`;
      modules.set(id, { default: now.render });
      const code = `\nexport default ${JSON.stringify(id)};\n`;
      return new Response(`${code}${formatImportTable(code, [], [{ n: "default" }])}`);
    },
    importCode: async (code) => modules.get(/"([^"]+)"/.exec(code)?.[1] ?? "") ?? {},
  });
  return { client, queryClient: new QueryClient(), bundleFetches };
}

const text = (value: string) => ({
  render: () => <p data-testid="text">{value}</p>,
});

/** How often the Suspense fallback showed. */
const fallbacks = { count: 0 };
function Fallback() {
  fallbacks.count++;
  return <p>loading</p>;
}

/** A component that shows the one named "child". */
function Parent() {
  const Child = useComponent("child");
  return <Child />;
}

const settle = () => act(() => new Promise((resolve) => setTimeout(resolve, 20)));

describe("showComponentFailure", () => {
  it("goes from the last good render straight to the failure, fetched once; a second one likewise", async () => {
    const served: Record<string, Served> = { card: text("one") };
    const { client, queryClient, bundleFetches } = fakeApi(served);
    render(
      <SvcProvider client={client} queryClient={queryClient}>
        <ServerComponent name="card" fallback={<Fallback />} />
      </SvcProvider>,
    );
    expect((await screen.findByTestId("text")).textContent).toBe("one");
    fallbacks.count = 0;
    bundleFetches.length = 0;

    served.card = { broken: "index.tsx:2:10: Unexpected end of file" };
    await act(() => showComponentFailure("card", { client, queryClient }));
    expect((await screen.findByRole("alert")).textContent).toMatch(/Unexpected end of file/);
    await settle();
    expect(fallbacks.count).toBe(0);
    expect(bundleFetches).toEqual(["card"]);

    // A second broken save: its own failure, fetched once more.
    served.card = { broken: "index.tsx:3:1: Unterminated string literal" };
    await act(() => showComponentFailure("card", { client, queryClient }));
    await settle();
    expect(screen.getByRole("alert").textContent).toMatch(/Unterminated string literal/);
    expect(fallbacks.count).toBe(0);
    expect(bundleFetches).toEqual(["card", "card"]);
  });

  it("replaces a render error of the last version with the build failure, fetched once", async () => {
    const served: Record<string, Served> = {
      card: {
        render: () => {
          throw new Error("render went wrong");
        },
      },
    };
    const { client, queryClient, bundleFetches } = fakeApi(served);
    render(
      <SvcProvider client={client} queryClient={queryClient}>
        <ServerComponent name="card" />
      </SvcProvider>,
    );
    expect((await screen.findByRole("alert")).textContent).toMatch(/render went wrong/);
    bundleFetches.length = 0;

    served.card = { broken: "index.tsx:1:1: Expected identifier" };
    await act(() => showComponentFailure("card", { client, queryClient }));
    await settle();
    expect(screen.getByRole("alert").textContent).toMatch(/Expected identifier/);
    expect(bundleFetches).toEqual(["card"]);

    served.card = text("fixed");
    await act(() => reloadComponent("card", { client, queryClient }));
    expect((await screen.findByTestId("text")).textContent).toBe("fixed");
  });
});

describe("a boundary showing a failure", () => {
  it("starts over when the component it is for gets a new version, not only the one that failed", async () => {
    const served: Record<string, Served> = {
      parent: { render: Parent },
      child: { broken: "child/index.tsx:3:1: Unexpected }" },
    };
    const { client, queryClient } = fakeApi(served);
    render(
      <SvcProvider client={client} queryClient={queryClient}>
        <ServerComponent name="parent" />
      </SvcProvider>,
    );
    expect((await screen.findByRole("alert")).textContent).toMatch(/Unexpected \}/);

    // The parent's new version no longer asks for the broken child.
    served.parent = text("parent alone");
    await act(() => reloadComponent("parent", { client, queryClient }));
    expect((await screen.findByTestId("text")).textContent).toBe("parent alone");
  });
});
