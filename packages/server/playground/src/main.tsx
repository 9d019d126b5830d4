import * as goober from "goober";
import { createElement, StrictMode } from "react";
import * as ReactDOM from "react-dom";
import * as ReactDOMClient from "react-dom/client";
import { App } from "./App.tsx";
import "./playground.css";

// Components share the page's React, react-dom and goober through window.__MODULES__.
goober.setup(createElement);
const modules = { "react-dom": ReactDOM, "react-dom/client": ReactDOMClient, goober };

// In static mode `svc serve` names the build's manifest: components load through it.
const manifestUrl =
  document.querySelector<HTMLMetaElement>('meta[name="svc-manifest"]')?.content || undefined;

const container = document.getElementById("root");
if (container === null) throw new Error("svc playground: #root is missing from the page");
ReactDOMClient.createRoot(container).render(
  <StrictMode>
    <App modules={modules} manifestUrl={manifestUrl} />
  </StrictMode>,
);
