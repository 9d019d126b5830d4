// Type-checked with moduleResolution NodeNext and Bundler (tsconfig.nodenext.json,
// tsconfig.bundler.json): the packages' types resolve and check (skipLibCheck off).
import { ServerComponent, SvcProvider, useComponent } from "@svc/react";
import { ComponentRegistry, createHandlers, defineConfig } from "@svc/server";
import { createFetchHandler } from "@svc/server/fetch";
import { svcHono } from "@svc/server/hono";
import { Hono } from "hono";
import { createElement, type ReactNode } from "react";

const registry: ComponentRegistry = new ComponentRegistry("./components");
export const app = new Hono().use("/api/*", svcHono(registry));
export const GET: (request: Request) => Promise<Response> = createFetchHandler(
  createHandlers(registry),
  { prefix: "/api" },
);
export const config = defineConfig({ sources: ["components"], build: { output: "dist/svc" } });

export function Page(): ReactNode {
  const Counter = useComponent<{ label: string }>("counter");
  return createElement(
    SvcProvider,
    { apiBase: "/api" },
    createElement(ServerComponent, { name: "counter", props: { label: "x" } }),
    createElement(Counter, { label: "y" }),
  );
}
