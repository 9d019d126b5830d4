/**
 * What svc assumes of React, goober and V8 to render on the server (`reactInterop.ts`),
 * checked against the versions installed: an upgrade that changes one of them fails here,
 * by name, before it fails a render somewhere else.
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { describe, expect, it } from "vitest";
import { loadPeers } from "./peers.ts";
import {
  BOUNDARY_END,
  BOUNDARY_START,
  CLIENT_RENDERED,
  compileUncached,
  HINT_START,
  idCount,
  LEADING_HINTS,
  renderToSheet,
  SPLIT_HTML,
} from "./reactInterop.ts";

const require = createRequire(import.meta.url);
// The server's own React, as svc loads it (the core never imports it statically).
const peers = await loadPeers();
const { createElement, renderToString } = peers;
const react = peers.shared.react as typeof import("react");
const { Suspense } = react;

function Thrower(): never {
  throw new Error("secret");
}
function Waiter(): never {
  throw new Promise(() => {});
}
/** Styled by goober as server bundles get it (`perRenderGoober`). */
function Styled() {
  const goober = peers.shared.goober as typeof import("goober");
  return createElement("p", { className: goober.css({ color: "red" }) });
}
/** Asks for an id through the React server bundles get (`watchingIds`). */
function Id() {
  return createElement("i", { id: react.useId() });
}
/** A package's version, from its `package.json` beside its main file (some do not export it). */
function versionOf(id: string): string {
  const main = require.resolve(id);
  const file = `${main.slice(0, main.lastIndexOf(`/node_modules/${id}/`))}/node_modules/${id}/package.json`;
  return (JSON.parse(readFileSync(file, "utf8")) as { version: string }).version;
}

describe("reactInterop, against the versions installed", () => {
  it("is written for React 19 and goober 2", () => {
    expect(versionOf("react")).toMatch(/^19\./);
    expect(versionOf("react-dom")).toMatch(/^19\./);
    expect(versionOf("goober")).toMatch(/^2\./);
  });

  it("knows React's markers: a completed boundary, and one left to the browser when a child throws or suspends", () => {
    const ok = renderToString(
      createElement(Suspense, { fallback: "…" }, createElement("b", null, "x")),
    );
    expect(ok).toBe(`${BOUNDARY_START}<b>x</b>${BOUNDARY_END}`);
    const thrown = renderToString(
      createElement(Suspense, { fallback: "…" }, createElement(Thrower)),
    );
    expect(thrown).toMatch(CLIENT_RENDERED);
    const waited = renderToString(
      createElement(Suspense, { fallback: "…" }, createElement(Waiter)),
    );
    expect(waited).toMatch(CLIENT_RENDERED);
    expect(ok).not.toMatch(CLIENT_RENDERED);
  });

  it("finds the hints React hoists ahead of a render, and only them", () => {
    const html = renderToString(
      createElement(
        "div",
        null,
        createElement("img", { src: "/a.png", alt: "" }),
        createElement("title", null, "T"),
      ),
    );
    expect(html).toMatch(HINT_START);
    const hints = LEADING_HINTS.exec(html)?.[0] ?? "";
    expect(hints).toContain("<title>T</title>");
    expect(html.slice(hints.length)).toMatch(/^<div>/);
    expect(SPLIT_HTML).toMatch(/^<template data-svc-split="[0-9a-f-]{36}"><\/template>$/);
  });

  it("counts useId through the React server bundles get", () => {
    const before = idCount();
    renderToString(createElement(Id));
    expect(idCount()).toBe(before + 1);
  });

  it("sends goober's rules of a render to that render's own sheet", () => {
    const sheet = { data: "" };
    renderToSheet(renderToString, createElement(Styled), sheet);
    expect(sheet.data).toMatch(/color:red/);
    const other = { data: "" };
    renderToSheet(renderToString, createElement("p"), other);
    expect(other.data).toBe("");
  });

  it("compiles without V8's compilation cache, and runs the script", () => {
    const script = compileUncached("1 + 2", "svc-server:test@0.cjs");
    expect(script.runInThisContext()).toBe(3);
  });
});
