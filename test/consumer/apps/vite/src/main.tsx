import { ServerComponent, SvcProvider, useComponent } from "@svc/react";
import * as React from "react";
import { Suspense } from "react";
import { createRoot } from "react-dom/client";

// The test compares this with window.__MODULES__.react: components must get the app's React.
(window as unknown as { appReact: unknown }).appReact = React;

function Nested() {
  const Counter = useComponent<{ label: string; start?: number }>("counter");
  return <Counter label="hook" start={10} />;
}

createRoot(document.getElementById("root") as HTMLElement).render(
  <SvcProvider apiBase="/api">
    <ServerComponent name="counter" props={{ label: "server", start: 1 }} fallback={<p>…</p>} />
    <Suspense fallback={<p>…</p>}>
      <Nested />
    </Suspense>
  </SvcProvider>,
);
