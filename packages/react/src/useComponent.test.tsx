import { formatImportTable } from "@svc/protocol";
// @vitest-environment happy-dom
import { type ComponentModule, createSvcClient, type SvcClient } from "@svc/runtime";
import { QueryClient } from "@tanstack/react-query";
import { act, cleanup, render, screen } from "@testing-library/react";
import { Component, type ReactNode, Suspense } from "react";
import { afterEach, describe, expect, it } from "vitest";
import { ServerComponent } from "./ServerComponent.ts";
import { SvcProvider } from "./SvcProvider.ts";
import { useComponent } from "./useComponent.ts";

/** A bundle exporting `value`, with the import table the server writes (it imports nothing). */
const bundleOf = (value: unknown) =>
  `\nexport default ${JSON.stringify(value)};\n${formatImportTable("\n", [], [{ n: "default" }])}`;

afterEach(cleanup);

/**
 * A client whose bundles are modules made here: `fetch` answers the API's routes from
 * `components` (name → the text it renders), and evaluation looks the module up by the id in
 * its code.
 * Real fetching, rewriting and importing are the browser tests' (test/browser/).
 */
function clientFor(apiBase: string, components: Record<string, string>) {
  const fetched: string[] = [];
  const modules = new Map<string, ComponentModule>();
  const client = createSvcClient({
    apiBase,
    fetch: async (input) => {
      const url = String(input);
      fetched.push(url);
      const match = /\/bundles\/([\w.:]+)(\.js|\/metadata)/.exec(url);
      const name = match?.[1] ?? "";
      if (!Object.hasOwn(components, name)) {
        return Response.json(
          { error: "ComponentNotFound", message: "none", name },
          { status: 404 },
        );
      }
      if (match?.[2] === "/metadata") {
        return Response.json({ name, title: name, props: {}, properties: {}, hash: "0" });
      }
      const id = `${apiBase}:${name}`;
      modules.set(id, { default: () => <p data-testid={name}>{components[name]}</p> });
      return new Response(bundleOf(id));
    },
    // The code arrives rewritten; the module is found by the id it carries.
    importCode: async (code) => modules.get(/"([^"]+)"/.exec(code)?.[1] ?? "") ?? {},
  });
  return { client, fetched };
}

function Show({ name }: { name: string }) {
  const Loaded = useComponent(name);
  return <Loaded />;
}

class Catch extends Component<{ children: ReactNode }, { error?: Error }> {
  override state: { error?: Error } = {};
  static getDerivedStateFromError(error: Error) {
    return { error };
  }
  override render() {
    return this.state.error ? <p role="alert">{this.state.error.message}</p> : this.props.children;
  }
}

function within(client: SvcClient, queryClient: QueryClient, children: ReactNode) {
  return (
    <SvcProvider client={client} queryClient={queryClient}>
      <Catch>
        <Suspense fallback="loading">{children}</Suspense>
      </Catch>
    </SvcProvider>
  );
}

describe("useComponent", () => {
  it("says what is missing when there is no SvcProvider", () => {
    render(
      <Catch>
        <Show name="counter" />
      </Catch>,
    );
    expect(screen.getByRole("alert").textContent).toMatch(/need an <SvcProvider> above them/);
  });

  it("suspends, then renders the loaded component; one fetch for every user", async () => {
    const { client, fetched } = clientFor("/api", { card: "the card" });
    const queryClient = new QueryClient();
    await act(async () => {
      render(
        within(
          client,
          queryClient,
          <>
            <Show name="card" />
            <Show name="card" />
          </>,
        ),
      );
    });
    expect(await screen.findAllByTestId("card")).toHaveLength(2);
    expect(fetched.filter((url) => url.endsWith("/bundles/card.js"))).toHaveLength(1);
  });

  it("keeps two providers with different API bases apart on one QueryClient", async () => {
    const queryClient = new QueryClient();
    const one = clientFor("/one", { card: "from one" });
    const two = clientFor("/two", { card: "from two" });
    await act(async () => {
      render(
        <>
          <div data-testid="a">{within(one.client, queryClient, <Show name="card" />)}</div>
          <div data-testid="b">{within(two.client, queryClient, <Show name="card" />)}</div>
        </>,
      );
    });
    await screen.findAllByTestId("card");
    expect(screen.getByTestId("a").textContent).toBe("from one");
    expect(screen.getByTestId("b").textContent).toBe("from two");
    expect(one.fetched.some((u) => u.startsWith("/one/"))).toBe(true);
    expect(two.fetched.some((u) => u.startsWith("/two/"))).toBe(true);
  });

  it("fetches the schema alongside the bundle in development, not after it", async () => {
    const { client, fetched } = clientFor("/api", { card: "x" });
    await act(async () => {
      render(within(client, new QueryClient(), <Show name="card" />));
    });
    await screen.findByTestId("card");
    expect(fetched.slice(0, 2).sort()).toEqual([
      "/api/bundles/card.js",
      "/api/bundles/card/metadata",
    ]);
  });

  it("throws a missing component to the error boundary", async () => {
    const { client } = clientFor("/api", {});
    await act(async () => {
      render(within(client, new QueryClient(), <Show name="nowhere" />));
    });
    expect((await screen.findByRole("alert")).textContent).toMatch(/No component named "nowhere"/);
  });

  it("ServerComponent needs the provider too, and renders within it", async () => {
    const { client } = clientFor("/api", { card: "via ServerComponent" });
    await act(async () => {
      render(
        <SvcProvider client={client}>
          <ServerComponent name="card" />
        </SvcProvider>,
      );
    });
    expect((await screen.findByTestId("card")).textContent).toBe("via ServerComponent");
  });

  it("shows the provider's errorFallback where a ServerComponent has none, its own where it has one", async () => {
    const { client } = clientFor("/api", {});
    await act(async () => {
      render(
        <SvcProvider
          client={client}
          errorFallback={(error) => (
            <p data-testid="provider">{`${error.kind} ${error.component}`}</p>
          )}
        >
          <ServerComponent name="nowhere" />
          <ServerComponent name="elsewhere" errorFallback={<p data-testid="own">own</p>} />
        </SvcProvider>,
      );
    });
    expect((await screen.findByTestId("provider")).textContent).toBe("ComponentNotFound nowhere");
    expect((await screen.findByTestId("own")).textContent).toBe("own");
    expect(screen.getAllByTestId("provider")).toHaveLength(1);
  });
});
